#include "runtime/worker_schedule.hpp"

#include <algorithm>
#include <filesystem>

#include "core/errors.hpp"
#include "runtime/deadline.hpp"
#include "runtime/launch_state.hpp"
#include "runtime/rank_group.hpp"
#include "runtime/point_settlement.hpp"
#include "runtime/rank_environment.hpp"
#include "runtime/run_start.hpp"
#include "runtime/worker_environment.hpp"
#include "runtime/worker_group.hpp"
#include "runtime/worker_reaper.hpp"

namespace ncclsweep {
namespace {

// One worker run over the points a group has left, as every rank saw it.
struct WorkerRun {
  bool refused = false;  // the run may not start (begin_run said no)
  bool last_try = false;  // nothing more to retry in this group
  int settled = 0;        // points off the front of the list
};

class WorkerSchedule {
 public:
  explicit WorkerSchedule(LaunchState& state)
      : state_(state), session_(state.ranks), request_(state.request),
        base_env_(environment_map(state.request.envp)),
        log_dir_(std::filesystem::path(state.results_dir) / "nccl-logs"),
        deadline_s_(progress_deadline_s(state.request.spec, state.request.plan)), reaper_(deadline_s_) {
    std::filesystem::create_directories(log_dir_);
    callbacks_.on_device = [this](const DeviceDescription& device) { return on_device(device); };
    callbacks_.on_row = [this](std::span<const MeasurementRecord> row) { state_.add_row(row); };
    callbacks_.stop_requested = [this] { return state_.signalled(); };
  }

  int run() {
    for (const WorkerGroup& group : request_.groups) {
      std::vector<PointSpec> remaining = group.points;
      while (!remaining.empty() && !state_.stopped) {
        if (stop_between_points()) break;
        const WorkerRun run = run_workers(group, remaining);
        if (run.refused) return kExitUsage;
        if (run.last_try) break;
        remaining.erase(remaining.begin(), remaining.begin() + run.settled);
      }
      if (state_.stopped || !begun_) break;  // workers that never came up: later groups would fail alike
    }
    reap();
    if (!begun_) {
      state_.refuse(failed_reasons_.empty() ? "the workers failed to start" : failed_reasons_.front());
      return worst_ == kExitOk ? static_cast<int>(kExitRuntime) : worst_;
    }
    return worst_;
  }

 private:
  // Collective: a signal some rank received between points stops every rank.
  bool stop_between_points() {
    if (session_.max_across_ranks(state_.received_signal()) == 0) return false;
    state_.stopped = true;
    return true;
  }

  // Collective, once all of a group's workers have their GPU: the run starts with the
  // first group; the worker of the group before is reaped before anything is timed.
  bool on_device(const DeviceDescription& device) {
    exclusive_gpu_ = exclusive_gpu_ || device.exclusive_process;
    reap();
    return begun_ || (begun_ = begin_run(state_, device));
  }

  void reap() {
    if (const std::string how = reaper_.reap(); !how.empty()) {
      state_.log(LogLevel::note, "rank " + std::to_string(session_.rank()) + ": a worker ended with " + how +
                                     " after delivering all its results");
    }
  }

  WorkerStart worker_start(const WorkerGroup& group, const std::vector<PointSpec>& points) const {
    const std::string log_name =
        "group" + std::to_string(group.index) + "-rank" + std::to_string(session_.rank()) + ".log";
    return {session_.rank(), session_.size(), session_.local_rank(), group.index, request_.spec, request_.plan,
            request_.corrupt_rank, (log_dir_ / log_name).string(), points,
            {state_.done.begin(), state_.done.end()}, to_text(request_.fault)};
  }

  // Collective: one worker per rank over `points`, until they are done or one fails.
  WorkerRun run_workers(const WorkerGroup& group, const std::vector<PointSpec>& points) {
    std::vector<PointOutcome> reported;
    callbacks_.on_point = [&](const PointOutcome& outcome) {
      reported.push_back(outcome);
      reported.back().isolation_group = group.index;
    };
    const WorkerStart start = worker_start(group, points);
    if (exclusive_gpu_) reap();  // else the new worker could not create its CUDA context
    GroupResult result = run_worker_group(
        session_, start, worker_environment(base_env_, group.process_env, start.nccl_log_path, state_.leader),
        callbacks_, deadline_s_);
    // A worker says done only after its "go", which on_device gave once it had reaped
    // the one before: nothing is dropped unreaped here.
    reaper_.hold(std::move(result.exiting));
    if (result.stopped) return {.refused = true};
    const std::vector<std::string> errors =
        session_.gather(result.local_error.empty() ? "" : session_.host() + ": " + result.local_error);
    worst_ = std::max(worst_, session_.max_across_ranks(result.failed ? std::max(result.local_status, 1) : 0));
    // Rank 0 alone hears the points' outcomes: it tells the others whether the workers stopped.
    const bool interrupted = std::any_of(reported.begin(), reported.end(),
                                         [](const PointOutcome& o) { return o.status == PointStatus::interrupted; });
    state_.stopped = session_.max_across_ranks(state_.leader && interrupted ? 1 : 0) != 0;
    if (!reported.empty()) reported.front().phase_s.worker_start = result.startup_s;
    WorkerRun run;
    run.last_try = state_.stopped || !begun_ || !result.failed;
    const int settled = state_.leader ? record(group.index, points, result, errors, std::move(reported), run.last_try)
                                      : 0;
    if (!run.last_try) run.settled = session_.max_across_ranks(settled);  // rank 0 alone knows it
    return run;
  }

  // Rank 0: the points' outcomes into the document, and the failures into the log.
  int record(int group, const std::vector<PointSpec>& points, const GroupResult& result,
             const std::vector<std::string>& errors, std::vector<PointOutcome> reported, bool last_try) {
    WorkerRunEnd end{result.failed, result.ended_after_outcome, state_.stopped, describe_group_failure(result, errors)};
    if (!end.failure.reason.empty()) failed_reasons_.push_back(end.failure.reason);
    Settlement settlement = settle_points(group, points, std::move(reported), end, last_try);
    if (state_.started()) {
      for (const std::string& failure : settlement.failures) state_.log(LogLevel::outcome, failure);
    }
    state_.add_points(settlement.outcomes);
    return settlement.settled;
  }

  LaunchState& state_;
  RankGroup& session_;
  const LaunchRequest& request_;
  const std::map<std::string, std::string> base_env_;
  const std::filesystem::path log_dir_;
  const double deadline_s_;
  WorkerReaper reaper_;
  GroupCallbacks callbacks_;
  bool begun_ = false;          // the run started (the first group's workers came up)
  bool exclusive_gpu_ = false;  // a GPU that takes one process at a time: no overlap there
  int worst_ = kExitOk;
  std::vector<std::string> failed_reasons_;  // rank 0
};

}  // namespace

int run_in_workers(LaunchState& state) { return WorkerSchedule(state).run(); }

}  // namespace ncclsweep
