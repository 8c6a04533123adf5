#include "worker/resource_probe.hpp"

#include <filesystem>

#include "doctor/gpu_probe.hpp"

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

std::string resource_line(int rank, const std::string& point, const ResourceUse& use) {
  return "ncclsweep resources: rank " + std::to_string(rank) + " point " + point + " open_fds " +
         std::to_string(use.open_fds) + " gpu_free_mib " + std::to_string(use.gpu_free_mib);
}

}  // namespace ncclsweep
