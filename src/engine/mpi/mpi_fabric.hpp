#pragma once
// The mpi engine's collectives on MPI in this process: the engine in an MPI rank, and
// the rank's side of a worker's relayed collectives (processes/worker_data_plane.hpp).
#include <mpi.h>

#include <memory>

#include "engine/host_fabric.hpp"

namespace ncclsweep {

// `comm` must outlive the fabric; its splits are the fabric's own.
std::unique_ptr<HostFabric> make_mpi_fabric(MPI_Comm comm);

}  // namespace ncclsweep
