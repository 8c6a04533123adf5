#include "worker/resource_probe.hpp"

#include <filesystem>
#include <fstream>

#include "doctor/gpu_probe.hpp"
#include "engine/engine.hpp"

namespace ncclsweep {

ResourceUse current_resource_use() {
  ResourceUse use;
  std::error_code ec;
  int fds = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    ++fds;
  }
  if (!ec) use.open_fds = fds - 1;  // the iterator's own descriptor
  if (const auto free_mib = doctor::gpu_free_mib()) use.gpu_free_mib = *free_mib;
  return use;
}

namespace {

// MemAvailable of /proc/meminfo, in bytes; -1 when it cannot be read.
std::int64_t host_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::int64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return -1;
}

}  // namespace

std::int64_t free_memory_bytes(const DeviceDescription& device) {
  if (device.gpu_index < 0) return host_available_bytes();
  const std::int64_t mib = current_resource_use().gpu_free_mib;
  return mib < 0 ? -1 : mib << 20;
}

std::string resource_line(int rank, const std::string& point, const ResourceUse& use) {
  return "ncclsweep resources: rank " + std::to_string(rank) + " point " + point + " open_fds " +
         std::to_string(use.open_fds) + " gpu_free_mib " + std::to_string(use.gpu_free_mib);
}

}  // namespace ncclsweep
