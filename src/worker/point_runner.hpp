#pragma once
// Runs one sweep point inside a worker: set the point's variables, initialise a fresh
// communicator, verify from NCCL's own log that every setting applied, measure, and
// tear the communicator down.
#include <string>
#include <vector>

#include "engine/coordinator.hpp"
#include "engine/engine.hpp"
#include "plan/measurement_plan.hpp"
#include "results/result_sink.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/measurement_loop.hpp"
#include "runtime/worker_protocol.hpp"
#include "verify/nccl_log.hpp"

namespace ncclsweep {

struct PointContext {
  Engine& engine;
  Coordinator& ranks;
  const MeasurementPlan& plan;
  LoopOptions options;
  NcclLogFollower nccl_log;  // this worker's NCCL log, read as it grows
  ResultSink* rows;  // rank 0's worker forwards rows; null elsewhere
  FaultInjection fault;  // --inject-fault: a testing aid
  bool log_resources = false;  // NCCLSWEEP_RESOURCE_LOG: print fds and free GPU memory after each point
};

// One run of a point inside its worker: which repeats it measures.
struct PointVisit {
  std::size_t point = 0;
  int first_repeat = 0;
  int repeats = 1;
};

// Sequential order, or a single point: each point once with all repeats (the
// measurement loop orders them over sizes). Interleaved or shuffled over several points:
// one visit per point and repeat in that order (A B A B), each with a fresh communicator.
std::vector<PointVisit> point_visits(std::size_t points, const LoopOptions& options);

// The outcome as every rank agrees on it (statuses are the worst over ranks);
// channels and transports are this rank's view.
PointOutcome run_point(const PointSpec& point, PointContext& context);

}  // namespace ncclsweep
