#pragma once
#include <mpi.h>

#include <memory>

#include "engine/coordinator.hpp"
#include "engine/engine.hpp"

namespace ncclsweep {

// Host buffers and MPI collectives: a real CPU-fabric benchmark, and the engine that
// exercises the whole tool end to end on machines without a GPU.
std::unique_ptr<Engine> make_mpi_engine(MPI_Comm comm);

}  // namespace ncclsweep
