#pragma once
// Where the mpi engine's collectives go: MPI in this process, when the engine runs in an
// MPI rank (engine/mpi/mpi_fabric.hpp), or the MPI of the rank that started this worker
// process, over a memory region the two processes map (worker/relayed_fabric.hpp). A
// worker is not an MPI process (its rank spawned it, the launcher did not), so it reaches
// the other ranks through its own. The engine above it (buffers, the check pattern,
// timing, the testing aids) is the same code either way.
#include <cstddef>
#include <vector>

#include "engine/engine.hpp"

namespace ncclsweep {

struct HostBuffers {
  std::byte* send = nullptr;
  std::byte* recv = nullptr;
};

class HostFabric {
 public:
  struct Place {
    int rank = 0;
    int ranks = 1;
  };
  virtual ~HostFabric() = default;
  // This rank in communicator `comm` (0: every rank; i: the i-th of split()).
  virtual Place place(int comm) const = 0;
  // One sub-communicator per entry of `colors` (this rank's colour in it), after
  // freeing those of an earlier split.
  virtual void split(const std::vector<int>& colors) = 0;
  virtual void free_splits() = 0;
  virtual void barrier() = 0;
  // One collective on memory from buffers() (MPI_IN_PLACE where call.placement says so).
  virtual void collective(const CollectiveCall& call, std::byte* send, std::byte* recv) = 0;
  // A send and a receive buffer the collectives can reach, valid until the next call.
  // A size of 0 keeps that buffer as it was (an in-place call has no send buffer). The
  // contents are kept while the sizes stay the same. Throws RuntimeFailure with the fix
  // when the memory cannot be had.
  virtual HostBuffers buffers(std::size_t send_bytes, std::size_t recv_bytes) = 0;
};

}  // namespace ncclsweep
