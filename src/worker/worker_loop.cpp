#include "worker/worker_loop.hpp"

#include <cstdlib>

#include "core/errors.hpp"
#include "core/failure_report.hpp"
#include "results/record_json.hpp"
#include "worker/point_runner.hpp"
#include "worker/relay_coordinator.hpp"
#include "worker/resource_probe.hpp"

namespace ncclsweep {
namespace {

// Rank 0's worker forwards each row to its MPI rank, which owns the sinks.
class RowForwarder final : public ResultSink {
 public:
  explicit RowForwarder(MessageChannel& channel) : channel_(channel) {}
  void row(std::span<const MeasurementRecord> placements) override {
    channel_.send(message(RowMessage{{placements.begin(), placements.end()}}));
  }

 private:
  MessageChannel& channel_;
};

// The MPI rank holds the signal handlers; it answers whether this rank wants to stop.
bool parent_wants_stop(MessageChannel& channel) {
  channel.send(message(StopPoll{}));
  const auto reply = channel.receive();
  if (!reply) throw RuntimeFailure("relay", "the MPI rank closed the worker channel");
  return expect<PollAnswer>(*reply).stop;
}

// The calls a request names, out of the start's plan.
MeasurementPlan selected_calls(const MeasurementPlan& plan, const std::vector<std::size_t>& calls) {
  if (calls.empty()) return plan;
  MeasurementPlan selected;
  selected.comms = plan.comms;
  for (const std::size_t c : calls) {
    if (c >= plan.calls.size()) {
      throw RuntimeFailure("worker message", "a request names call " + std::to_string(c) + " of " +
                                                 std::to_string(plan.calls.size()));
    }
    selected.calls.push_back(plan.calls[c]);
  }
  return selected;
}

// Requests until the rank says stop; returns the exit status.
int serve_requests(MessageChannel& channel, const WorkerStart& start, PointContext& context) {
  for (;;) {
    const auto next = channel.receive();
    if (!next || message_type(*next) == StopWorker::kType) return kExitOk;
    const MeasureRequest request = expect<MeasureRequest>(*next);
    const MeasurementPlan plan = selected_calls(start.plan, request.calls);
    context.options.first_repeat = request.first_repeat;
    context.options.repeats = request.repeats;
    context.options.order = request.order;
    context.engine.slow_down(request.slow_factor);
    MeasureEnd end;
    try {
      end.outcome = run_point(request.point, plan, context);
    } catch (const PointRejected& rejected) {
      // NCCL failed after refusing one of the point's values: the point is settled as a
      // mismatch, and the next points run in a fresh worker.
      channel.send(message(WorkerError{kExitRuntime, rejected.call() + " failed: " + rejected.what(), rejected.outcome()}));
      return kExitRuntime;
    }
    context.engine.slow_down(1);
    end.free_memory_bytes = free_memory_bytes(context.engine.device());
    channel.send(message(end));
  }
}

}  // namespace

int serve_worker(MessageChannel& channel, const EnvironmentMap& environment, const WorkerEngineFactory& make_engine) {
  const auto first = channel.receive();
  if (!first) return kExitRuntime;
  const WorkerStart start = expect<WorkerStart>(*first);
  RelayCoordinator ranks(channel, start.rank, start.ranks, start.local_rank);
  try {
    // A launch never plans nothing (plan_measurements refuses it): an empty plan is a broken message.
    if (start.plan.calls.empty()) throw RuntimeFailure("worker start", "the start message holds no planned call");
    std::unique_ptr<Engine> engine = make_engine(start, ranks, channel, environment);
    channel.send(message(WorkerReady{engine->device(), free_memory_bytes(engine->device())}));
    const auto reply = channel.receive();
    if (!reply || !expect<StartReply>(*reply).go) return kExitOk;  // the MPI ranks decided to stop
    RowForwarder forwarder(channel);
    LoopOptions options = loop_options(start.spec, start.corrupt_rank, "");
    options.done.insert(start.done.begin(), start.done.end());
    options.stop_requested = [&channel] { return parent_wants_stop(channel); };
    options.trace_timing = environment.count("NCCLSWEEP_TRACE_TIMING") != 0;
    PointContext context{*engine,
                         ranks,
                         options,
                         NcclLogFollower(start.nccl_log_path),
                         start.rank == 0 ? &forwarder : nullptr,
                         start.fault,
                         environment.count("NCCLSWEEP_RESOURCE_LOG") != 0,
                         environment,
                         recorded_environment(environment)};
    return serve_requests(channel, start, context);
  } catch (const PeerFailure&) {
    return kExitRuntime;  // another rank's worker failed; its MPI rank reports why
  } catch (...) {
    // Any failure (bad input, CUDA/NCCL, a file system or JSON error, out of memory)
    // reaches the MPI rank as this worker's error, never std::terminate.
    const FailureReport failure = describe_failure(std::current_exception());
    channel.send(message(WorkerError{failure.status, failure.message, std::nullopt}));
    return failure.status;
  }
}

}  // namespace ncclsweep
