#include "core/nccl_version.hpp"

#include <cstdio>

namespace ncclsweep {

std::string nccl_version_text(int code) {
  const bool new_scheme = code >= 10000;
  const int major = new_scheme ? code / 10000 : code / 1000;
  const int minor = new_scheme ? code / 100 % 100 : code % 1000 / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

int nccl_version_code(std::string_view text) {
  const std::string copy(text);
  int major = 0, minor = 0, patch = 0;
  if (std::sscanf(copy.c_str(), "%d.%d.%d", &major, &minor, &patch) < 2) return 0;
  if (major < 0 || minor < 0 || minor > 99 || patch < 0 || patch > 99 || major > 99) return 0;
  return major * 10000 + minor * 100 + patch;
}

std::string cuda_version_text(int code) { return std::to_string(code / 1000) + "." + std::to_string(code % 1000 / 10); }

}  // namespace ncclsweep
