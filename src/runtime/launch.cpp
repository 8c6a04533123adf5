#include "runtime/launch.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "core/errors.hpp"
#include "core/utc_time.hpp"
#include "doctor/preflight.hpp"
#include "ncclsweep_version.hpp"
#include "report/summary_file.hpp"
#include "report/sweep_summary.hpp"
#include "report/terminal_table.hpp"
#include "results/results_directory.hpp"
#include "results/stragglers.hpp"
#include "engine/mpi/mpi_engine.hpp"
#include "runtime/measurement_loop.hpp"
#include "runtime/mpi_session.hpp"
#include "runtime/rank_environment.hpp"
#include "runtime/worker_environment.hpp"
#include "runtime/worker_group.hpp"
#include "runtime/worker_process.hpp"
#include "workload/sweep_sizes.hpp"

namespace ncclsweep {
namespace {

void print_error(const MpiSession& session, const std::string& message, bool shared_by_all_ranks) {
  if (shared_by_all_ranks) {
    if (session.rank() == 0) std::fprintf(stderr, "ncclsweep: error: %s\n", message.c_str());
  } else {
    std::fprintf(stderr, "ncclsweep: error on rank %d (%s): %s\n", session.rank(), session.host().c_str(),
                 message.c_str());
  }
}

// Warnings and errors one line each; information only counted (run.json has it all).
void print_preflight(const std::vector<doctor::Finding>& findings) {
  int info = 0;
  for (const auto& f : findings) {
    if (f.severity == doctor::Severity::info) {
      ++info;
      continue;
    }
    std::printf("# preflight: %s %s ranks %s: %s\n", std::string(doctor::name_of(f.severity)).c_str(),
                f.check.c_str(), doctor::compact_ranks(f.ranks).c_str(), f.evidence.c_str());
  }
  std::printf("# preflight: %d informational finding(s) in run.json; ncclsweep doctor explains each\n", info);
}

// State of one launch on this rank; the sinks and the document live on rank 0.
class Launch {
 public:
  Launch(MpiSession& session, const LaunchRequest& request)
      : session_(session), request_(request), leader_(session.rank() == 0),
        start_(std::chrono::system_clock::now()) {}

  int run() {
    if (const int status = open_results(); status != kExitOk) return status;
    const int status = request_.spec.engine == "mpi" ? run_in_process() : run_in_workers();
    return finish(status);
  }

 private:
  // Rank 0 creates the directory and sinks; every rank learns the directory (NCCL logs go there).
  int open_results() {
    std::string error;
    if (leader_) {
      try {
        results_dir_ = !request_.output_dir.empty()
                           ? request_.output_dir
                           : default_results_dir(request_.results_root, request_.spec.name, compact_utc(start_)).string();
        sinks_.add(make_terminal_table(stdout));
        sinks_.add(make_results_directory(results_dir_));
        sinks_.add(make_summary_file(results_dir_));
        sinks_.add(make_sweep_summary(stdout, request_.baseline_point));
      } catch (const UsageError& e) {
        error = e.message();
      }
    }
    if (session_.max_across_ranks(error.empty() ? kExitOk : kExitUsage) != kExitOk) {
      print_error(session_, error, true);
      return kExitUsage;
    }
    results_dir_ = session_.broadcast_string(results_dir_);
    return kExitOk;
  }

  // Gathers every rank's description, refuses two ranks on one GPU, and starts the
  // document on rank 0. Collective; true when the run goes on.
  bool begin(const DeviceDescription& device) {
    const std::vector<RankEntry> ranks = gather_rank_entries(session_, device, request_.envp);
    const std::vector<std::string> conflicts = leader_ ? shared_gpu_conflicts(ranks) : std::vector<std::string>{};
    const bool refused = !conflicts.empty() && !request_.allow_shared_gpu;
    if (session_.max_across_ranks(refused ? 1 : 0) != 0) {
      if (leader_) {  // only rank 0 holds the conflicts
        print_error(session_,
                    conflicts.front() + " (" + std::to_string(conflicts.size()) + " conflict(s))" +
                        "\n  fix: give each rank its own GPU (one rank per GPU), or pass --allow-shared-gpu",
                    true);
      }
      return false;
    }
    const std::vector<doctor::Finding> preflight =
        doctor::cheap_checks(session_, request_.envp, device.pci_bus_id);  // collective
    if (!leader_) return true;
    print_preflight(preflight);
    run_.preflight = preflight;
    const RunSpec& spec = request_.spec;
    run_.name = spec.name;
    run_.status = "incomplete";
    run_.command_line = request_.command_line;
    run_.start_time = iso_utc(start_);
    run_.versions = {NCCLSWEEP_VERSION,           NCCLSWEEP_GIT_SHA,          device.driver_version,
                     device.cuda_runtime_version, device.nccl_header_version, device.nccl_library_version,
                     session_.library_version()};
    run_.settings = {spec.engine, spec.warmup, spec.iters, spec.check};
    run_.hosts = distinct_hosts(ranks);
    run_.ranks = ranks;
    run_.notes = request_.plan.notes;
    run_.workload = request_.workload;
    run_.baseline = request_.baseline_point;
    if (!conflicts.empty()) run_.notes.push_back("--allow-shared-gpu: " + conflicts.front());
    sinks_.begin(run_);
    return true;
  }

  void on_row(std::span<const MeasurementRecord> row) {
    sinks_.row(row);
    run_.records.insert(run_.records.end(), row.begin(), row.end());
  }

  // The mpi engine: host buffers, measured in this process.
  int run_in_process() {
    std::unique_ptr<Engine> engine;
    std::string error;
    int status = kExitOk;
    try {
      engine = make_mpi_engine(session_.world());
      for (const auto& planned : request_.plan.calls) {
        if (const std::string reason = engine->unsupported_reason(planned.call); !reason.empty()) {
          throw UsageError(reason);
        }
      }
    } catch (const UsageError& e) {
      status = kExitUsage;
      error = e.message();
    }
    if (session_.max_across_ranks(status) != kExitOk) {
      print_error(session_, error, true);
      return kExitUsage;
    }
    if (!begin(engine->device())) return kExitUsage;
    engine->connect({});
    ResultSink* rows = leader_ ? &row_sink_ : nullptr;
    measure_plan(request_.plan, loop_options(request_.spec, request_.corrupt_rank, "default"), *engine, session_,
                 rows);
    return kExitOk;
  }

  // The nccl engine: one worker per rank and isolation group.
  int run_in_workers() {
    RelayReducer relay(session_);
    const auto base_env = environment_map(request_.envp);
    const std::filesystem::path log_dir = std::filesystem::path(results_dir_) / "nccl-logs";
    std::filesystem::create_directories(log_dir);
    bool begun = false;
    GroupCallbacks callbacks;
    callbacks.on_device = [&](const DeviceDescription& device) { return begun || (begun = begin(device)); };
    callbacks.on_row = [&](std::span<const MeasurementRecord> row) { on_row(row); };
    int worst = kExitOk;
    for (const WorkerGroup& group : request_.groups) {
      std::vector<PointOutcome> outcomes;
      callbacks.on_point = [&](const PointOutcome& outcome) {
        outcomes.push_back(outcome);
        outcomes.back().group = group.index;
      };
      WorkerStart start{session_.rank(), session_.size(), session_.local_rank(), group.index, request_.spec,
                        request_.corrupt_rank,
                        (log_dir / ("group" + std::to_string(group.index) + "-rank" +
                                    std::to_string(session_.rank()) + ".log"))
                            .string(),
                        group.points};
      const GroupResult result = run_worker_group(
          relay, start, worker_environment(base_env, group.process_env, start.nccl_log_path, leader_), callbacks);
      if (result.stopped) return kExitUsage;
      const std::vector<std::string> errors =
          session_.gather(result.local_error.empty() ? "" : session_.host() + ": " + result.local_error);
      worst = std::max(worst, session_.max_across_ranks(result.failed ? std::max(result.local_status, 1) : 0));
      if (leader_) record_group(group, result, errors, outcomes);
      if (!begun) break;  // the workers never came up: later groups would fail alike
    }
    if (!begun && leader_) {
      const auto& errors = failed_reasons_;
      print_error(session_, errors.empty() ? "the workers failed to start" : errors.front(), true);
    }
    if (begun) return worst;
    return worst == kExitOk ? static_cast<int>(kExitRuntime) : worst;
  }

  // Rank 0: the group's outcomes, with the points a failure cut off marked failed.
  void record_group(const WorkerGroup& group, const GroupResult& result, const std::vector<std::string>& errors,
                    std::vector<PointOutcome>& outcomes) {
    std::string reason;
    for (std::size_t r = 0; r < errors.size(); ++r) {
      if (!errors[r].empty()) {
        reason = "rank " + std::to_string(r) + " on " + errors[r];
        break;
      }
    }
    if (result.failed && reason.empty()) reason = "rank " + std::to_string(result.failed_rank) + " failed";
    if (!reason.empty()) failed_reasons_.push_back(reason);
    for (const PointSpec& point : group.points) {
      const bool done = std::any_of(outcomes.begin(), outcomes.end(),
                                    [&](const PointOutcome& o) { return o.label == point.label; });
      if (done) continue;
      PointOutcome failed;
      failed.label = point.label;
      failed.group = group.index;
      failed.status = "failed";
      failed.error = reason;
      failed.settings = point.settings;
      outcomes.push_back(failed);
      if (!reason.empty() && !run_.start_time.empty()) {
        std::fprintf(stderr, "ncclsweep: point %s failed: %s\n", point.label.c_str(), reason.c_str());
      }
    }
    run_.points.insert(run_.points.end(), outcomes.begin(), outcomes.end());
  }

  int finish(int status) {
    std::uint64_t wrong = 0;
    for (const auto& r : run_.records) wrong += r.wrong.value_or(0);
    if (!leader_ || run_.start_time.empty()) return status;
    run_.status = "complete";
    run_.end_time = iso_utc(std::chrono::system_clock::now());
    run_.iteration_times = weigh_points(run_);
    run_.stragglers = find_stragglers(run_);
    sinks_.finish(run_);
    std::printf("# results: %s\n", results_dir_.c_str());
    for (const auto& point : run_.points) {
      if (point.status == "mismatch") {
        std::fprintf(stderr, "ncclsweep: point %s: a setting did not reach NCCL; see run.json points\n",
                     point.label.c_str());
        status = std::max(status, static_cast<int>(kExitRuntime));
      }
    }
    if (wrong > 0) {
      std::fprintf(stderr, "ncclsweep: error: %llu output elements held wrong values (see #wrong)\n",
                   static_cast<unsigned long long>(wrong));
      status = std::max(status, static_cast<int>(kExitRuntime));
    }
    return status;
  }

  // Forwards rows to on_row (so in-process runs collect records the same way).
  class RowSink final : public ResultSink {
   public:
    explicit RowSink(Launch& launch) : launch_(launch) {}
    void row(std::span<const MeasurementRecord> placements) override { launch_.on_row(placements); }

   private:
    Launch& launch_;
  };

  MpiSession& session_;
  const LaunchRequest& request_;
  const bool leader_;
  const std::chrono::system_clock::time_point start_;
  std::string results_dir_;
  SinkFanout sinks_;
  RunDocument run_;
  RowSink row_sink_{*this};
  std::vector<std::string> failed_reasons_;
};

}  // namespace

std::vector<WorkerGroup> default_groups() {
  WorkerGroup group;
  PointSpec point;
  point.label = "default";
  group.points.push_back(point);
  return {group};
}

int run_launch(MpiSession& session, const LaunchRequest& request) {
  try {
    return Launch(session, request).run();
  } catch (const RuntimeFailure& e) {
    // Other ranks may be waiting inside a collective: end them all.
    std::fprintf(stderr, "ncclsweep: error: %s\n", e.message(session.rank(), session.host()).c_str());
    session.abort(kExitRuntime);
  } catch (const UsageError& e) {
    print_error(session, e.message(), false);
    session.abort(kExitUsage);
  }
}

}  // namespace ncclsweep
