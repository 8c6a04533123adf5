#pragma once
// The mpi engine's collectives from a worker process (engine/host_fabric.hpp): the
// buffers live in a memory region the worker and its MPI rank both map (a memfd the
// rank made and handed over as descriptor kWorkerRegionFd), and each collective, barrier
// and split is one FabricRequest the rank runs with its own MPI on that same memory
// (processes/worker_data_plane.hpp). Zero copies; one small message per call.
#include <cstddef>
#include <memory>

#include "engine/host_fabric.hpp"
#include "processes/message_channel.hpp"

namespace ncclsweep {

// `region_fd` is the region's descriptor (owned by the fabric from then on); `rank` and
// `ranks` place this worker's rank among all of them.
std::unique_ptr<HostFabric> make_relayed_fabric(MessageChannel& channel, int region_fd, int rank, int ranks);

}  // namespace ncclsweep
