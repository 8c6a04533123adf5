#include "runtime/worker_schedule.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "measure/fault_injection.hpp"
#include "runtime/group_failure.hpp"
#include "runtime/launch_pool.hpp"
#include "runtime/launch_state.hpp"
#include "measure/measurement_loop.hpp"
#include "runtime/point_settlement.hpp"
#include "transport/rank_group.hpp"

namespace ncclsweep {
namespace {

// One worker run over the points a group has left, as every rank saw it.
struct WorkerRun {
  bool refused = false;   // the run may not start (begin_run said no)
  bool last_try = false;  // nothing more to retry in this group
  int settled = 0;        // points off the front of the list
};

class WorkerSchedule {
 public:
  explicit WorkerSchedule(LaunchState& state)
      : state_(state), session_(state.ranks), request_(state.request), pool_(make_launch_pool(state, begun_)) {}

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
      // A grid visits each group once: its workers go, and exit while the next start.
      pool_->stop(group.index);
      if (state_.stopped || !begun_) break;  // workers that never came up: later groups would fail alike
    }
    pool_.reset();  // every worker stopped and reaped
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

  // Collective: the group's workers over `points`, until they are done or one fails.
  WorkerRun run_workers(const WorkerGroup& group, const std::vector<PointSpec>& points) {
    std::vector<PointOutcome> reported;  // rank 0: each point's outcome, from its first visit
    const StartResult started = pool_->start(group);
    if (started.refused) return {.refused = true};
    WorkerFailure failure = started.failure;
    if (started.up) {
      LoopOptions order = loop_options(request_.spec, request_.corrupt_rank, "");
      for (const PointVisit& visit : point_visits(points.size(), order)) {
        const PointSpec& point = points[visit.point];
        MeasureRequest request{point, {}, visit.first_repeat, visit.repeats, request_.spec.order,
                               point_slow_factor(request_.fault, request_.plan, session_.rank(), point.label)};
        const MeasureResult measured = pool_->measure(group, request, state_.leader ? &rows_ : nullptr);
        if (!measured.ok) {
          failure = measured.failure;
          if (failure.outcome && state_.leader) record_outcome(reported, *failure.outcome, group.index);
          break;
        }
        if (visit.first_repeat == 0) record_outcome(reported, measured.outcome, group.index);
        // The ranks agreed to stop in the measurement loop: every rank's outcome says so.
        if (measured.outcome.status == PointStatus::interrupted) {
          state_.stopped = true;
          break;
        }
      }
    }
    const std::vector<std::string> errors =
        session_.gather(failure.local_error.empty() ? "" : session_.host() + ": " + failure.local_error);
    worst_ = std::max(worst_, session_.max_across_ranks(failure.failed ? std::max(failure.local_status, 1) : 0));
    if (!reported.empty() && started.fresh) reported.front().phase_s.worker_start = started.startup_s;
    WorkerRun run;
    run.last_try = state_.stopped || !begun_ || !failure.failed;
    const int settled = state_.leader ? record(group.index, points, failure, errors, std::move(reported), run.last_try)
                                      : 0;
    if (!run.last_try) run.settled = session_.max_across_ranks(settled);  // rank 0 alone knows it
    return run;
  }

  void record_outcome(std::vector<PointOutcome>& reported, PointOutcome outcome, int group) const {
    if (!state_.leader) return;
    outcome.isolation_group = group;
    reported.push_back(std::move(outcome));
  }

  // Rank 0: the points' outcomes into the document, and the failures into the log.
  int record(int group, const std::vector<PointSpec>& points, const WorkerFailure& failure,
             const std::vector<std::string>& errors, std::vector<PointOutcome> reported, bool last_try) {
    const WorkerRunEnd end{failure.failed, failure.outcome.has_value(), state_.stopped,
                           describe_group_failure(failure, errors)};
    if (!end.failure.reason.empty()) failed_reasons_.push_back(end.failure.reason);
    Settlement settlement = settle_points(group, points, std::move(reported), end, last_try);
    if (state_.started()) {
      for (const std::string& line : settlement.failures) state_.log(LogLevel::outcome, line);
    }
    state_.add_points(settlement.outcomes);
    return settlement.settled;
  }

  // Rank 0's rows go to the launch's sinks and document.
  class RowsToLaunch final : public ResultSink {
   public:
    explicit RowsToLaunch(LaunchState& state) : state_(state) {}
    void row(std::span<const MeasurementRecord> records) override { state_.add_row(records); }

   private:
    LaunchState& state_;
  };

  LaunchState& state_;
  RankGroup& session_;
  const LaunchRequest& request_;
  bool begun_ = false;  // the run started (the first group's workers came up)
  std::unique_ptr<WorkerPool> pool_;
  RowsToLaunch rows_{state_};
  int worst_ = kExitOk;
  std::vector<std::string> failed_reasons_;  // rank 0
};

}  // namespace

int run_in_workers(LaunchState& state) { return WorkerSchedule(state).run(); }

}  // namespace ncclsweep
