#pragma once
// The mpi engine's collectives on MPI in this process: the engine in an MPI rank, and
// the rank's side of a worker's relayed collectives (processes/worker_data_plane.hpp).
#include <mpi.h>

#include <memory>

#include "core/stall_watch.hpp"
#include "engine/host_fabric.hpp"

namespace ncclsweep {

// `comm` must outlive the fabric; its splits are the fabric's own. `watch` (null: none),
// which must outlive it too, watches every blocking call.
std::unique_ptr<HostFabric> make_mpi_fabric(MPI_Comm comm, StallWatch* watch = nullptr);

}  // namespace ncclsweep
