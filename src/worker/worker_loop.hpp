#pragma once
// A worker's life (processes/worker_protocol.hpp): its start message, its engine, then one
// MeasureRequest after another (a point each, on a fresh communicator) until its MPI rank
// says stop. `ncclsweep worker` runs it on descriptor 3 (worker_main.cpp); the unit tests
// run it on a thread, with an engine of their own.
#include <functional>
#include <memory>

#include "engine/coordinator.hpp"
#include "engine/engine.hpp"
#include "processes/message_channel.hpp"
#include "processes/worker_protocol.hpp"
#include "worker/point_environment.hpp"

namespace ncclsweep {

// The worker's engine: `environment` is the worker's as it started, `channel` its rank's
// (the mpi engine's collectives go through it). Throws UsageError or RuntimeFailure.
using WorkerEngineFactory = std::function<std::unique_ptr<Engine>(const WorkerStart& start, Coordinator& ranks,
                                                                  MessageChannel& channel,
                                                                  const EnvironmentMap& environment)>;

// Returns the worker's exit status. `environment`: the worker's as it started (each
// point's init starts from it).
int serve_worker(MessageChannel& channel, const EnvironmentMap& environment, const WorkerEngineFactory& make_engine);

}  // namespace ncclsweep
