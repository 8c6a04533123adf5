#pragma once
// What a worker holds after a point's communicator is gone: open descriptors and the
// GPU's free memory. bench/reinit-leak reads it to show that repeated
// communicator inits leave both flat (NCCLSWEEP_RESOURCE_LOG=1 in the environment).
#include <cstdint>
#include <string>

#include "engine/engine.hpp"

namespace ncclsweep {

struct ResourceUse {
  int open_fds = -1;               // entries of /proc/self/fd
  std::int64_t gpu_free_mib = -1;  // cudaMemGetInfo's free memory; -1 without CUDA
};

ResourceUse current_resource_use();

// What the device a worker measures on has free now: the GPU's memory, or for a device
// without one (the mpi engine) the host's available memory; -1 when unknown. It sizes
// the pool of warm workers (processes/worker_pool.hpp).
std::int64_t free_memory_bytes(const DeviceDescription& device);

// One line for the log: "ncclsweep resources: rank R point P open_fds N gpu_free_mib M".
std::string resource_line(int rank, const std::string& point, const ResourceUse& use);

}  // namespace ncclsweep
