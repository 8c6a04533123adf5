#pragma once
#include <memory>
#include <string_view>
#include <vector>

#include "core/run_options.hpp"
#include "engine/engine.hpp"

namespace ncclsweep {

class MpiSession;

// Engines compiled into this build, in preference order ("nccl" first when present).
std::vector<std::string_view> available_engines();

// The first of them: what a run, locate or soak uses when nothing names an engine.
EngineKind default_engine();

// Throws UsageError for an engine this build lacks.
void check_engine(EngineKind engine);

// The one factory for an engine that measures in the MPI ranks themselves: the mpi engine
// always; the nccl engine where nothing needs a NCCL never initialised before (locate,
// soak, and a run whose points set no NCCL variable). Worker processes build theirs from
// the worker's own coordinator (worker/worker_main.cpp). Throws UsageError.
std::unique_ptr<Engine> make_in_process_engine(EngineKind engine, MpiSession& session);

}  // namespace ncclsweep
