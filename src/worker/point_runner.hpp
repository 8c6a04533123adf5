#pragma once
// Runs one sweep point inside a worker: set the point's variables, initialise a fresh
// communicator, verify from NCCL's own log that every setting applied, measure, and
// tear the communicator down.
#include <string>

#include "engine/engine.hpp"
#include "plan/measurement_plan.hpp"
#include "report/result_sink.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/measurement_loop.hpp"
#include "runtime/worker_protocol.hpp"

namespace ncclsweep {

struct PointContext {
  Engine& engine;
  Coordinator& ranks;
  const MeasurementPlan& plan;
  LoopOptions options;
  std::string nccl_log_path;
  ResultSink* rows;  // rank 0's worker forwards rows; null elsewhere
  FaultInjection fault;  // --inject-fault: a testing aid
  bool log_resources = false;  // NCCLSWEEP_RESOURCE_LOG: print fds and free GPU memory after each point
};

// The outcome as every rank agrees on it (statuses are the worst over ranks);
// channels and transports are this rank's view.
PointOutcome run_point(const PointSpec& point, PointContext& context);

}  // namespace ncclsweep
