#pragma once
// A worker's life (processes/worker_protocol.hpp): its start message, its engine, then one
// MeasureRequest after another until its MPI rank says stop. `ncclsweep worker` runs it
// on descriptor 3 (worker_main.cpp); the unit tests run it on a thread, with an engine
// of their own. Each request is one sweep point: compose the point's environment (the
// worker's own plus the point's variables, nothing from earlier points), initialise a
// fresh communicator, verify from NCCL's own log that every setting applied and nothing
// else crept in, measure, tear the communicator down, and give the environment back.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "engine/coordinator.hpp"
#include "engine/engine.hpp"
#include "plan/measurement_plan.hpp"
#include "results/result_sink.hpp"
#include "measure/fault_injection.hpp"
#include "measure/measurement_loop.hpp"
#include "processes/message_channel.hpp"
#include "processes/worker_protocol.hpp"
#include "verify/nccl_log.hpp"
#include "worker/point_environment.hpp"

namespace ncclsweep {

struct PointContext {
  Engine& engine;
  Coordinator& ranks;
  LoopOptions options;
  NcclLogFollower nccl_log;  // this worker's NCCL log, read as it grows
  ResultSink* rows;  // rank 0's worker forwards rows; null elsewhere
  FaultInjection fault;  // --inject-fault: a testing aid
  bool log_resources = false;  // NCCLSWEEP_RESOURCE_LOG: print fds and free GPU memory after each point
  EnvironmentMap base_environment;  // the worker's whole environment as it started: each point starts from it
  // What the run has without any point: recorded_environment() of the worker at start,
  // plus what NCCL set in this process during an init (its config file). A variable at a
  // point's init that is neither here nor named by the point is reported.
  EnvironmentMap run_environment;
};

// NCCL refused one of the point's values (an unknown algorithm or protocol name, no
// algorithm for a call) and failed the init or a call: the point is a mismatch, and the
// worker ends as after any NCCL failure. Carries the outcome to report first.
class PointRejected : public RuntimeFailure {
 public:
  PointRejected(PointOutcome outcome, const RuntimeFailure& cause)
      : RuntimeFailure(cause.call(), cause.what()), outcome_(std::move(outcome)) {}
  const PointOutcome& outcome() const { return outcome_; }

 private:
  PointOutcome outcome_;
};

// The outcome as every rank agrees on it (statuses are the worst over ranks);
// channels, transports and the environment are this rank's view. Throws PointRejected
// when NCCL failed because it refused one of the point's values. `plan`: the calls to
// measure, with context.options' repeats.
PointOutcome run_point(const PointSpec& point, const MeasurementPlan& plan, PointContext& context);


// The worker's engine: `environment` is the worker's as it started, `channel` its rank's
// (the mpi engine's collectives go through it). Throws UsageError or RuntimeFailure.
using WorkerEngineFactory = std::function<std::unique_ptr<Engine>(const WorkerStart& start, Coordinator& ranks,
                                                                  MessageChannel& channel,
                                                                  const EnvironmentMap& environment)>;

// Returns the worker's exit status. `environment`: the worker's as it started (each
// point's init starts from it).
int serve_worker(MessageChannel& channel, const EnvironmentMap& environment, const WorkerEngineFactory& make_engine);

}  // namespace ncclsweep
