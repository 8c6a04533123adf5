#pragma once
// Workers as threads of the test process (the in-process fake of worker processes): each
// runs the worker's own loop (worker/worker_loop.hpp) over a real socket pair with its
// rank, with an engine the test makes from the environment the rank gave the worker - a
// PacedEngine, which reads the testing aid's variables from it once, as the mpi engine
// does. So the pool, the grid's schedule and a search's rounds run whole in unit tests.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "engine/engine.hpp"
#include "processes/worker_pool.hpp"

namespace ncclsweep::testing {

// The engine of one worker, from its environment and start message.
using ThreadEngineFactory =
    std::function<std::unique_ptr<Engine>(const std::map<std::string, std::string>& environment, const WorkerStart& start)>;

// A WorkerStarter whose workers are threads; `starts` (when given) counts them.
WorkerStarter thread_workers(ThreadEngineFactory make_engine, std::atomic<int>* starts = nullptr);

}  // namespace ncclsweep::testing
