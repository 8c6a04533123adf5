#pragma once
#include <memory>
#include <string_view>
#include <vector>

#include "engine/engine.hpp"

namespace ncclsweep {

// Engines compiled into this build, in preference order ("nccl" first when present).
// The mpi engine runs in the MPI ranks; the nccl engine only in worker processes.
std::vector<std::string_view> available_engines();

// Throws UsageError for an unknown engine, or one this build lacks.
void check_engine(std::string_view name);

}  // namespace ncclsweep
