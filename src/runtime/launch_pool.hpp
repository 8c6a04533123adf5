#pragma once
// The worker pool of one launch (processes/worker_pool.hpp), as the grid's schedule and a
// search's rounds both use it: every worker told the launch's spec, plan, resume keys
// and testing aids; the run begins (begin_run) once the first group's workers are up.
#include <memory>

#include "processes/worker_pool.hpp"

namespace ncclsweep {

struct LaunchState;

// `begun` turns true once the run began (the first workers came up and every rank passed
// begin_run); both must outlive the pool.
std::unique_ptr<WorkerPool> make_launch_pool(LaunchState& state, bool& begun);

}  // namespace ncclsweep
