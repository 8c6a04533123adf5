#pragma once
// configs/systems/*.yaml: the link peak of a machine, so reports can show busbw as a
// share of it. One file per system:
//   name: H200 NVLink
//   gpu_name_contains: H200      # matched against the GPU model of every rank
//   link_peak_gbps: 478          # per direction, 1e9 B/s
#include <filesystem>
#include <optional>
#include <string>

namespace ncclsweep {

struct SystemLink {
  std::string name;
  double peak_gbps = 0;
};

// The first system in `dir` whose gpu_name_contains occurs in `gpu`; none when the
// directory does not exist or nothing matches. Throws UsageError for a malformed file.
std::optional<SystemLink> find_system_link(const std::filesystem::path& dir, const std::string& gpu);

}  // namespace ncclsweep
