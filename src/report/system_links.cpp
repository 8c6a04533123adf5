#include "report/system_links.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <vector>

#include "core/errors.hpp"
#include "core/input_file.hpp"

namespace ncclsweep {

std::optional<SystemLink> find_system_link(const std::filesystem::path& dir, const std::string& gpu) {
  std::error_code ec;
  if (gpu.empty() || !std::filesystem::is_directory(dir, ec)) return std::nullopt;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());  // a fixed order: the first match wins
  for (const auto& file : files) {
    try {
      const YAML::Node node = YAML::Load(read_input_file(file.string(), kSettingsFileInput));
      const auto match = node["gpu_name_contains"].as<std::string>();
      if (gpu.find(match) == std::string::npos) continue;
      return SystemLink{node["name"].as<std::string>(), node["link_peak_gbps"].as<double>()};
    } catch (const YAML::Exception& e) {
      throw UsageError(std::string("malformed system file: ") + e.what(),
                       "give name, gpu_name_contains and link_peak_gbps", SourcePosition{file.string(), 0, 0});
    }
  }
  return std::nullopt;
}

}  // namespace ncclsweep
