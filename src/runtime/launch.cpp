#include "runtime/launch.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>

#include "core/errors.hpp"
#include "core/run_options.hpp"
#include "core/utc_time.hpp"
#include "runtime/preflight.hpp"
#include "ncclsweep_version.hpp"
#include "report/summary_file.hpp"
#include "report/sweep_summary.hpp"
#include "report/terminal_table.hpp"
#include "results/results_directory.hpp"
#include "results/point_notes.hpp"
#include "results/resume.hpp"
#include "results/iteration_times.hpp"
#include "results/stragglers.hpp"
#include "engine/mpi/mpi_engine.hpp"
#include "runtime/measurement_loop.hpp"
#include "runtime/deadline.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/group_failure.hpp"
#include "runtime/mpi_session.hpp"
#include "runtime/progress.hpp"
#include "runtime/rank_environment.hpp"
#include "runtime/run_fingerprint.hpp"
#include "runtime/stop_signals.hpp"
#include "runtime/worker_environment.hpp"
#include "runtime/worker_group.hpp"
#include "runtime/worker_process.hpp"
#include "plan/sweep_sizes.hpp"

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
    const int status = parse_engine(request_.spec.engine) == EngineKind::mpi ? run_in_process() : run_in_workers();
    return finish(status);
  }

 private:
  // Rank 0 creates the directory and sinks; every rank learns the directory (NCCL logs go there).
  int open_results() {
    std::string error;
    std::string done_keys;
    if (leader_) {
      try {
        results_dir_ = !request_.resume_dir.empty()   ? request_.resume_dir
                       : !request_.output_dir.empty() ? request_.output_dir
                                                      : default_results_dir(request_.results_root, request_.spec.name,
                                                                            compact_utc(start_))
                                                            .string();
        sinks_.add(make_progress_display(make_terminal_table(stdout),
                                         progress_plan(request_.plan, request_.spec, request_.groups),
                                         progress_mode(request_.progress), stdout));
        if (request_.resume_dir.empty()) {
          sinks_.add(make_results_directory(results_dir_));
        } else {
          done_keys = read_earlier_run();
          sinks_.add(resume_results_directory(results_dir_, earlier_.complete_bytes));
        }
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
    // Every rank skips the same measurements.
    done_keys = session_.broadcast_string(done_keys);
    for (std::size_t start = 0; start < done_keys.size();) {
      const std::size_t end = std::min(done_keys.find('\n', start), done_keys.size());
      done_.insert(done_keys.substr(start, end - start));
      start = end + 1;
    }
    return kExitOk;
  }

  // Rank 0, --resume: the earlier run's document and complete records; their keys, one a line.
  std::string read_earlier_run() {
    earlier_run_ = read_run_document(results_dir_);
    earlier_ = read_recorded_measurements(std::filesystem::path(results_dir_) / "records.jsonl");
    if (!earlier_.dropped_tail.empty()) std::fprintf(stderr, "ncclsweep: note: %s\n", earlier_.dropped_tail.c_str());
    std::string keys;
    for (const std::string& key : measurement_keys(earlier_.records)) keys += key + "\n";
    if (!keys.empty()) keys.pop_back();
    return keys;
  }

  // Rank 0, --resume: refuses (a message) when the sweep or rank layout changed, unless --force.
  std::string resume_refusal() const {
    if (request_.resume_dir.empty() || request_.force || earlier_run_.fingerprint == run_.fingerprint) return "";
    return "cannot resume " + results_dir_ + ": the sweep or the rank layout changed since it was started " +
           "(fingerprint " + earlier_run_.fingerprint + ", now " + run_.fingerprint + ")" +
           "\n  fix: resume with the same sweep, flags and ranks, or pass --force to add to it anyway, "
           "or start a new directory";
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
    std::string refusal;
    if (leader_) {
      std::vector<std::string> rank_hosts;
      for (const RankEntry& r : ranks) rank_hosts.push_back(r.host);
      run_.fingerprint = run_fingerprint(request_.spec, request_.groups, rank_hosts);
      refusal = resume_refusal();
    }
    if (session_.max_across_ranks(refusal.empty() ? 0 : 1) != 0) {
      print_error(session_, refusal, true);
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
    if (ranks.size() == 1) run_.notes.push_back(one_rank_busbw_note(spec.engine));
    if (!request_.resume_dir.empty()) {
      // One document for the whole run: the earlier invocation's start and records stay.
      run_.start_time = earlier_run_.start_time;
      run_.notes.push_back("resumed " + iso_utc(start_) + " keeping " + std::to_string(earlier_.records.size()) +
                           " measurement(s)" + (request_.force ? " (--force)" : ""));
      if (!earlier_.dropped_tail.empty()) run_.notes.push_back(earlier_.dropped_tail);
      run_.records = earlier_.records;
    }
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
    LoopOptions options = loop_options(request_.spec, request_.corrupt_rank, "default");
    options.done = done_;
    options.stop_requested = [this] { return signals_.received() != 0; };
    if (request_.fault.applies(session_.rank(), "default")) inject_fault(request_.fault);  // not skip: refused earlier
    stopped_ = !measure_plan(request_.plan, options, *engine, session_, rows);
    return kExitOk;
  }

  // The nccl engine: one worker per rank and isolation group.
  int run_in_workers() {
    RelayReducer relay(session_);
    const auto base_env = environment_map(request_.envp);
    const std::filesystem::path log_dir = std::filesystem::path(results_dir_) / "nccl-logs";
    std::filesystem::create_directories(log_dir);
    bool begun = false;
    const double deadline_s = progress_deadline_s(request_.spec, request_.plan);
    // The previous group's worker, still tearing down: it overlaps the next group's start,
    // and is reaped once the new workers are up, before they time anything.
    std::unique_ptr<WorkerProcess> exiting;
    bool exclusive_gpu = false;  // a GPU that takes one process at a time: no overlap there
    const auto reap = [&] {
      if (!exiting) return;
      const std::string how = exiting->wait_for(std::chrono::milliseconds(static_cast<std::int64_t>(deadline_s * 1000)));
      exiting.reset();
      if (how != "exit 0") {
        std::fprintf(stderr, "ncclsweep: note: rank %d: a worker ended with %s after delivering all its results\n",
                     session_.rank(), how.c_str());
      }
    };
    GroupCallbacks callbacks;
    callbacks.on_device = [&](const DeviceDescription& device) {
      exclusive_gpu = exclusive_gpu || device.exclusive_process;
      reap();
      return begun || (begun = begin(device));
    };
    callbacks.on_row = [&](std::span<const MeasurementRecord> row) { on_row(row); };
    callbacks.stop_requested = [this] { return signals_.received() != 0; };
    int worst = kExitOk;
    for (const WorkerGroup& group : request_.groups) {
      std::vector<PointSpec> remaining = group.points;
      // A failed point costs only itself: the group's workers restart for the points after it.
      while (!remaining.empty() && !stopped_) {
        if (session_.max_across_ranks(signals_.received()) != 0) {  // a signal between points
          stopped_ = true;
          break;
        }
        std::vector<PointOutcome> outcomes;
        callbacks.on_point = [&](const PointOutcome& outcome) {
          outcomes.push_back(outcome);
          outcomes.back().isolation_group = group.index;
        };
        WorkerStart start{session_.rank(), session_.size(), session_.local_rank(), group.index, request_.spec,
                          request_.corrupt_rank,
                          (log_dir / ("group" + std::to_string(group.index) + "-rank" +
                                      std::to_string(session_.rank()) + ".log"))
                              .string(),
                          remaining, {done_.begin(), done_.end()}, to_text(request_.fault)};
        if (exclusive_gpu) reap();  // else the new worker could not create its CUDA context
        GroupResult result =
            run_worker_group(relay, start, worker_environment(base_env, group.process_env, start.nccl_log_path, leader_),
                             callbacks, deadline_s);
        // A worker says done only after its "go", which on_device gave once it had reaped
        // the one before: nothing is dropped unreaped here.
        if (result.exiting) exiting = std::move(result.exiting);
        if (result.stopped) return kExitUsage;
        const std::vector<std::string> errors =
            session_.gather(result.local_error.empty() ? "" : session_.host() + ": " + result.local_error);
        worst = std::max(worst, session_.max_across_ranks(result.failed ? std::max(result.local_status, 1) : 0));
        // Rank 0 alone hears the points' outcomes: it tells the others whether the workers stopped.
        const bool interrupted = std::any_of(outcomes.begin(), outcomes.end(),
                                             [](const PointOutcome& o) { return o.status == "interrupted"; });
        stopped_ = session_.max_across_ranks(leader_ && interrupted ? 1 : 0) != 0;
        if (!outcomes.empty()) outcomes.front().phase_s.worker_start = result.startup_s;
        const bool last_try = stopped_ || !begun || !result.failed;
        const int settled = leader_ ? record_points(group.index, remaining, result, errors, outcomes, last_try) : 0;
        if (last_try) break;
        remaining.erase(remaining.begin(), remaining.begin() + session_.max_across_ranks(settled));
      }
      if (stopped_ || !begun) break;  // workers that never came up: later groups would fail alike
    }
    reap();
    if (!begun && leader_) {
      const auto& errors = failed_reasons_;
      print_error(session_, errors.empty() ? "the workers failed to start" : errors.front(), true);
    }
    if (begun) return worst;
    return worst == kExitOk ? static_cast<int>(kExitRuntime) : worst;
  }

  // Rank 0: the outcomes of one worker run over `points`. The first point without an
  // outcome is the one that failed (or timed out); with `all`, every point without one
  // is marked (failed, or interrupted after a stop). Returns how many points are settled.
  int record_points(int group, const std::vector<PointSpec>& points, const GroupResult& result,
                    const std::vector<std::string>& errors, std::vector<PointOutcome>& outcomes, bool all) {
    const auto [reason, timed_out] = describe_group_failure(result, errors);
    if (!reason.empty()) failed_reasons_.push_back(reason);
    int settled = 0;
    for (const PointSpec& point : points) {
      const bool done = std::any_of(outcomes.begin(), outcomes.end(),
                                    [&](const PointOutcome& o) { return o.label == point.label; });
      // A worker that ended right after reporting a point (NCCL refused one of its values)
      // left no point half done: the rest run in a new worker.
      if (!done && !all && result.ended_after_outcome && settled > 0) break;
      ++settled;
      if (done) continue;
      PointOutcome failed;
      failed.label = point.label;
      failed.isolation_group = group;
      const bool interrupted = stopped_ && !result.failed;
      failed.status = interrupted ? "interrupted" : timed_out ? "timeout" : "failed";
      failed.error = interrupted ? "not run: stopped by a signal" : reason;
      failed.settings = point.settings;
      outcomes.push_back(failed);
      if (!reason.empty() && !run_.start_time.empty() && !interrupted) {
        std::fprintf(stderr, "ncclsweep: point %s %s: %s\n", point.label.c_str(), failed.status.c_str(),
                     reason.c_str());
      }
      if (!all) break;
    }
    run_.points.insert(run_.points.end(), outcomes.begin(), outcomes.end());
    return settled;
  }

  int finish(int status) {
    // stopped_ is agreed by every rank; the signal is the largest any rank received.
    const int signal = stopped_ ? std::max(session_.max_across_ranks(signals_.received()), 1) : 0;
    if (signal != 0) status = exit_status_for_signal(signal);
    if (leader_ && !run_.start_time.empty()) status = write_summary(status, signal);
    // A launcher ends every rank once one exits non-zero (130/143 after a signal): the
    // others wait here until rank 0 has written the results.
    session_.barrier();
    return status;
  }

  // Rank 0: the final run.json and summaries; the exit status with what they found.
  int write_summary(int status, int signal) {
    std::uint64_t wrong = 0;
    for (const auto& r : run_.records) wrong += r.wrong.value_or(0);
    run_.status = signal != 0 ? "interrupted" : "complete";
    run_.end_time = iso_utc(std::chrono::system_clock::now());
    run_.iteration_times = weigh_points(run_);
    run_.stragglers = find_stragglers(run_);
    sinks_.finish(run_);
    std::printf("# results: %s\n", results_dir_.c_str());
    if (signal != 0) {
      std::fprintf(stderr,
                   "ncclsweep: stopped by signal %d after %zu measurement(s); the rest can be measured with "
                   "the same command and --resume %s\n",
                   signal, run_.records.size(), results_dir_.c_str());
    }
    for (const auto& point : run_.points) {
      if (point.status == "mismatch") {
        std::fprintf(stderr, "ncclsweep: point %s: a setting did not reach NCCL; see run.json points\n",
                     point.label.c_str());
        status = std::max(status, static_cast<int>(kExitRuntime));
      }
      if (!point.unexpected_environment.empty()) {
        std::fprintf(stderr,
                     "ncclsweep: warning: point %s: its communicator init saw variables the point does not name and "
                     "the run did not start with (%s); see run.json points\n",
                     point.label.c_str(), unexpected_environment_note(point).c_str() + 2);
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
  StopSignals signals_;
  bool stopped_ = false;               // the ranks agreed to stop early (a signal)
  std::set<std::string> done_;         // --resume: measurement keys recorded earlier, on every rank
  RunDocument earlier_run_;            // rank 0, --resume: the earlier run.json
  RecordedMeasurements earlier_;       // rank 0, --resume: its complete records
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
  // A failure on one rank leaves the others in a collective: it goes up to main, whose
  // one handler (runtime/uncaught_failure.hpp) reports it and aborts every rank.
  return Launch(session, request).run();
}

}  // namespace ncclsweep
