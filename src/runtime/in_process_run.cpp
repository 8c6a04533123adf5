#include "runtime/in_process_run.hpp"

#include <memory>

#include "core/errors.hpp"
#include "measure/fault_injection.hpp"
#include "runtime/launch_state.hpp"
#include "measure/measurement_loop.hpp"
#include "transport/rank_group.hpp"
#include "runtime/run_start.hpp"
#include "runtime/search_rounds.hpp"

namespace ncclsweep {
namespace {

// Rank 0's rows go to the launch's sinks and document.
class RowsToLaunch final : public ResultSink {
 public:
  explicit RowsToLaunch(LaunchState& state) : state_(state) {}
  void row(std::span<const MeasurementRecord> placements) override { state_.add_row(placements); }

 private:
  LaunchState& state_;
};

}  // namespace

int run_in_process(LaunchState& state) {
  RankGroup& session = state.ranks;
  const LaunchRequest& request = state.request;
  std::unique_ptr<Engine> engine;
  std::string error;
  int status = kExitOk;
  try {
    engine = state.make_engine();
    for (const auto& planned : request.plan.calls) {
      if (const std::string reason = engine->unsupported_reason(planned.call); !reason.empty()) {
        throw UsageError(reason);
      }
    }
    if (request.spec.compute) {
      if (const std::string reason = engine->compute_unsupported_reason(*request.spec.compute); !reason.empty()) {
        throw UsageError(reason, "drop --with-compute / compute:");
      }
    }
  } catch (const UsageError& e) {
    status = kExitUsage;
    error = e.message();
  }
  if (session.max_across_ranks(status) != kExitOk) {
    state.refuse(error);
    return kExitUsage;
  }
  if (!begin_run(state, engine->device())) return kExitUsage;
  engine->connect({});
  if (request.search) return run_search_rounds(state, *in_process_measurer(state, *engine));
  RowsToLaunch to_launch(state);
  LoopOptions options = loop_options(request.spec, request.corrupt_rank, "default");
  options.done = state.done;
  options.stop_requested = [&state] { return state.signalled(); };
  if (request.fault.slows("default")) {
    // Every rank of rank R's communicator repeats its calls, so they stay in step: with
    // sub-communicators, the ranks that share R's colour in each of them.
    const bool shares = comm_colors(request.plan, session.rank()) == comm_colors(request.plan, request.fault.rank);
    if (shares) engine->slow_down(request.fault.factor);
  } else if (request.fault.applies(session.rank(), "default")) {
    inject_fault(request.fault);  // not skip: refused earlier
  }
  state.stopped = !measure_plan(request.plan, options, *engine, session, state.leader ? &to_launch : nullptr);
  return kExitOk;
}

}  // namespace ncclsweep
