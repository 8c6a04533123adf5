#include "runtime/launch_document.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "core/utc_time.hpp"
#include "ncclsweep_version.hpp"
#include "report/terminal_table.hpp"
#include "results/iteration_times.hpp"
#include "results/point_notes.hpp"
#include "results/stragglers.hpp"
#include "runtime/rank_environment.hpp"

namespace ncclsweep {

RunDocument start_run_document(const LaunchRequest& request, const RunStart& start, const EarlierRun& earlier) {
  const RunSpec& spec = request.spec;
  const DeviceDescription& device = start.device;
  RunDocument run;
  run.fingerprint = start.fingerprint;
  run.preflight = start.preflight;
  run.name = spec.name;
  run.status = RunStatus::incomplete;
  run.command_line = request.command_line;
  run.start_time = iso_utc(start.start);
  run.versions = {NCCLSWEEP_VERSION,           NCCLSWEEP_GIT_SHA,          device.driver_version,
                  device.cuda_runtime_version, device.nccl_header_version, device.nccl_library_version,
                  start.mpi_library_version};
  run.settings = {spec.engine, spec.warmup, spec.iters, spec.check};
  run.hosts = distinct_hosts(start.ranks);
  run.ranks = start.ranks;
  run.notes = request.plan.notes;
  run.workload = request.workload;
  run.baseline = request.baseline_point;
  if (!start.shared_gpu_conflict.empty()) run.notes.push_back("--allow-shared-gpu: " + start.shared_gpu_conflict);
  if (start.ranks.size() == 1) run.notes.push_back(one_rank_busbw_note(spec.engine));
  if (!request.resume_dir.empty()) {
    // One document for the whole run: the earlier invocation's start and records stay.
    const RecordedMeasurements& recorded = earlier.recorded;
    run.start_time = earlier.document.start_time;
    run.notes.push_back("resumed " + iso_utc(start.start) + " keeping " + std::to_string(recorded.records.size()) +
                        " measurement(s)" + (request.force ? " (--force)" : ""));
    if (!recorded.dropped_tail.empty()) run.notes.push_back(recorded.dropped_tail);
    run.records = recorded.records;
  }
  return run;
}

void close_run_document(RunDocument& run, int signal) {
  run.status = signal != 0 ? RunStatus::interrupted : RunStatus::complete;
  run.end_time = iso_utc(std::chrono::system_clock::now());
  run.iteration_times = weigh_points(run);
  run.stragglers = find_stragglers(run);
}

ClosingWords closing_words(const RunDocument& run, int status, int signal, const std::string& results_dir) {
  ClosingWords words{status, {}};
  const auto say = [&](LogLevel level, std::string text) { words.messages.emplace_back(level, std::move(text)); };
  say(LogLevel::info, "results: " + results_dir);
  if (signal != 0) {
    say(LogLevel::outcome, "stopped by signal " + std::to_string(signal) + " after " +
                               std::to_string(run.records.size()) +
                               " measurement(s); the rest can be measured with the same command and --resume " +
                               results_dir);
  }
  for (const auto& point : run.points) {
    if (point.status == PointStatus::mismatch) {
      say(LogLevel::outcome, "point " + point.label + ": a setting did not reach NCCL; see run.json points");
      words.status = std::max(words.status, static_cast<int>(kExitRuntime));
    }
    if (!point.unexpected_environment.empty()) {
      say(LogLevel::warning, "point " + point.label +
                                 ": its communicator init saw variables the point does not name and the run did "
                                 "not start with (" +
                                 unexpected_environment_note(point).substr(2) + "); see run.json points");
    }
  }
  std::uint64_t wrong = 0;
  for (const auto& r : run.records) wrong += r.wrong.value_or(0);
  if (wrong > 0) {
    say(LogLevel::error, std::to_string(wrong) + " output elements held wrong values (see #wrong)");
    words.status = std::max(words.status, static_cast<int>(kExitRuntime));
  }
  return words;
}

}  // namespace ncclsweep
