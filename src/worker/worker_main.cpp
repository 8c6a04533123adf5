#include "worker/worker_main.hpp"

#include <unistd.h>  // environ

#include <cstdio>
#include <cstdlib>

#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/failure_report.hpp"
#include "results/record_json.hpp"
#include "runtime/stop_signals.hpp"
#include "runtime/worker_process.hpp"
#include "worker/point_runner.hpp"
#include "worker/relay_coordinator.hpp"
#if NCCLSWEEP_HAVE_NCCL
#include "engine/nccl/nccl_engine.hpp"
#endif

namespace ncclsweep {
namespace {

// Rank 0's worker forwards each row to its MPI rank, which owns the sinks.
class RowForwarder final : public ResultSink {
 public:
  explicit RowForwarder(MessageChannel& channel) : channel_(channel) {}
  void row(std::span<const MeasurementRecord> placements) override {
    channel_.send({{"type", "row"}, {"records", std::vector<MeasurementRecord>(placements.begin(), placements.end())}});
  }

 private:
  MessageChannel& channel_;
};

std::unique_ptr<Engine> make_worker_engine(Coordinator& ranks) {
#if NCCLSWEEP_HAVE_NCCL
  return make_nccl_engine(ranks);
#else
  (void)ranks;
  throw UsageError("this ncclsweep was built without CUDA or NCCL, so it has no nccl engine", "use --engine mpi");
#endif
}

// The MPI rank holds the signal handlers; it answers whether this rank wants to stop.
bool parent_wants_stop(MessageChannel& channel) {
  channel.send({{"type", "poll_stop"}});
  const auto reply = channel.receive();
  if (!reply) throw RuntimeFailure("relay", "the MPI rank closed the worker channel");
  return reply->at("stop").get<bool>();
}

int run_group(MessageChannel& channel, const WorkerStart& start, const EnvironmentMap& base_environment) {
  RelayCoordinator ranks(channel, start.rank, start.ranks, start.local_rank);
  try {
    // A launch never plans nothing (plan_measurements refuses it): an empty plan is a broken message.
    if (start.plan.calls.empty()) throw RuntimeFailure("worker start", "the start message holds no planned call");
    std::unique_ptr<Engine> engine = make_worker_engine(ranks);
    channel.send({{"type", "device"}, {"device", engine->device()}});
    const auto reply = channel.receive();
    if (!reply || reply->at("type") != "go") return kExitOk;  // the MPI ranks decided to stop
    RowForwarder forwarder(channel);
    LoopOptions options = loop_options(start.spec, start.corrupt_rank, "");
    options.done.insert(start.done.begin(), start.done.end());
    options.stop_requested = [&channel] { return parent_wants_stop(channel); };
    options.trace_timing = std::getenv("NCCLSWEEP_TRACE_TIMING") != nullptr;
    PointContext context{*engine,
                         ranks,
                         start.plan,
                         options,
                         NcclLogFollower(start.nccl_log_path),
                         start.rank == 0 ? &forwarder : nullptr,
                         start.fault.empty() ? FaultInjection{} : parse_fault_injection(start.fault),
                         std::getenv("NCCLSWEEP_RESOURCE_LOG") != nullptr,
                         base_environment,
                         recorded_environment(environ)};
    for (const PointVisit& visit : point_visits(start.points.size(), context.options)) {
      context.options.first_repeat = visit.first_repeat;
      context.options.repeats = visit.repeats;
      const bool reports = start.rank == 0 && visit.first_repeat == 0;
      PointOutcome outcome;
      try {
        outcome = run_point(start.points[visit.point], context);
      } catch (const PointRejected& rejected) {
        // NCCL failed after refusing one of the point's values: the point is settled as a
        // mismatch, and the next points run in a fresh worker.
        if (reports) channel.send({{"type", "point"}, {"outcome", rejected.outcome()}});
        channel.send({{"type", "error"},
                      {"status", static_cast<int>(kExitRuntime)},
                      {"message", rejected.call() + " failed: " + rejected.what()},
                      {"after_outcome", true}});
        return kExitRuntime;
      }
      // One outcome per point: its first visit's (later visits re-verify and measure).
      if (reports) channel.send({{"type", "point"}, {"outcome", outcome}});
      if (outcome.status == PointStatus::interrupted) break;
    }
    ranks.end();
    // Every result is delivered: the MPI rank may start the next group while this worker
    // tears down its communicator and CUDA context (it reaps this one before timing).
    channel.send({{"type", "done"}});
    return kExitOk;
  } catch (const PeerFailure&) {
    return kExitRuntime;  // another rank's worker failed; its MPI rank reports why
  } catch (...) {
    // Any failure (bad input, CUDA/NCCL, a file system or JSON error, out of memory)
    // reaches the MPI rank as this worker's error, never std::terminate.
    const FailureReport failure = describe_failure(std::current_exception());
    channel.send({{"type", "error"}, {"status", failure.status}, {"message", failure.message}});
    return failure.status;
  }
}

}  // namespace

int worker_main() {
  // Every point starts from this: the environment the MPI rank gave the worker.
  const EnvironmentMap base_environment = environment_map(environ);
  ignore_stop_signals();
  MessageChannel channel(kWorkerChannelFd);
  try {
    const auto start = channel.receive();
    if (!start) return kExitRuntime;
    return run_group(channel, start->get<WorkerStart>(), base_environment);
  } catch (...) {
    // The channel itself broke: nobody to tell but stderr.
    const FailureReport failure = describe_failure(std::current_exception());
    std::fprintf(stderr, "ncclsweep worker: %s\n", failure.message.c_str());
    return failure.status;
  }
}

}  // namespace ncclsweep
