#pragma once
// This host's caches and cores as the mpi engine meets them: its `--cache flush` and
// plan's estimate of the engine use the same figures.
#include <cstddef>

namespace ncclsweep {

// A flush writes this many times the last-level cache, so nothing the collective's buffers
// left in it survives (as the nccl engine reads twice the GPU's L2).
inline constexpr std::size_t kHostCacheFlushFactor = 2;

// kHostCacheFlushFactor x this host's last-level cache, as the C library reports it
// (64 MiB where it cannot say).
std::size_t host_cache_flush_bytes();

// The cores this host has online (at least 1).
int online_cores();

}  // namespace ncclsweep
