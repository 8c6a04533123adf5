#pragma once
#include <mpi.h>

#include <map>
#include <memory>
#include <string>

#include "core/environment.hpp"
#include "core/stall_watch.hpp"
#include "engine/coordinator.hpp"
#include "engine/engine.hpp"
#include "engine/host_fabric.hpp"

namespace ncclsweep {

// Host buffers and MPI collectives: a real CPU-fabric benchmark, and the engine that
// exercises the whole tool end to end on machines without a GPU. `environment` is the
// process's as it started: the testing aid's variables are read from it once
// (core/test_slowdown.hpp).
std::unique_ptr<Engine> make_mpi_engine(std::unique_ptr<HostFabric> fabric,
                                        const std::map<std::string, std::string>& environment);

// In an MPI rank: the collectives on `comm` (each watched by `watch` where given), the
// testing variables from this process.
std::unique_ptr<Engine> make_mpi_engine(MPI_Comm comm, StallWatch* watch = nullptr);

}  // namespace ncclsweep
