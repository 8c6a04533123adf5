#include "core/host_cpu.hpp"

#include <unistd.h>

namespace ncclsweep {

std::size_t host_cache_flush_bytes() {
  const long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  const std::size_t fallback = std::size_t(64) << 20;
  return kHostCacheFlushFactor * (llc > 0 ? static_cast<std::size_t>(llc) : fallback);
}

int online_cores() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace ncclsweep
