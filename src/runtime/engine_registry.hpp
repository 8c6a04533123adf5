#pragma once
#include <memory>
#include <string_view>
#include <vector>

#include "engine/engine.hpp"

namespace ncclsweep {

class MpiSession;

// Engines compiled into this build, in preference order ("nccl" first when present).
std::vector<std::string_view> available_engines();

// Throws UsageError for an unknown engine, or one this build lacks.
void check_engine(std::string_view name);

// The one factory for an engine that measures in the MPI ranks themselves: the mpi engine
// always; the nccl engine where nothing needs a NCCL never initialised before (locate,
// soak, and a run whose points set no NCCL variable). Worker processes build theirs from
// the worker's own coordinator (worker/worker_main.cpp). Throws UsageError.
std::unique_ptr<Engine> make_in_process_engine(std::string_view name, MpiSession& session);

}  // namespace ncclsweep
