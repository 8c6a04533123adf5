#pragma once
// Where workload files find their models: --models-dir, NCCLSWEEP_MODELS_DIR,
// ./configs/models, else the catalog shipped with the sources.
#include <cstdlib>
#include <filesystem>
#include <string>

namespace ncclsweep {

inline std::string models_directory(const std::string& given = {}) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("NCCLSWEEP_MODELS_DIR")) return env;
  if (std::filesystem::is_directory("configs/models")) return "configs/models";
  return NCCLSWEEP_SOURCE_DIR "/configs/models";
}

}  // namespace ncclsweep
