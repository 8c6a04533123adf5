#pragma once
// The MPI rank's side of a worker's relayed collectives (worker/relayed_fabric.hpp): the
// memory region the two share, made here before the worker starts, and each of the
// worker's FabricRequests run with this rank's MPI on that memory. The mpi engine only:
// a worker is not an MPI process, so its rank carries its collectives.
#include <mpi.h>

#include <memory>

#include "processes/worker_protocol.hpp"

namespace ncclsweep {

class WorkerDataPlane {
 public:
  virtual ~WorkerDataPlane() = default;
  // The region's descriptor, for the worker (processes/worker_process.hpp passes it on).
  virtual int region_fd() const = 0;
  // Collective over the ranks' data planes, as the workers' requests are.
  virtual FabricReply serve(const FabricRequest& request) = 0;
};

// Over `comm` (which must outlive it): a communicator of the data plane's own, so its
// collectives never match the ranks' control messages.
std::unique_ptr<WorkerDataPlane> make_mpi_data_plane(MPI_Comm comm);

}  // namespace ncclsweep
