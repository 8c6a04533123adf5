#include "cli/data_dir.hpp"

#include <cstdlib>
#include <system_error>

namespace ncclsweep {

std::filesystem::path installed_data_directory() {
  namespace fs = std::filesystem;
  std::error_code error;
  // The binary's own path, links resolved: <prefix>/bin/ncclsweep -> <prefix>/share/ncclsweep.
  const fs::path binary = fs::canonical("/proc/self/exe", error);
  if (!error) {
    const fs::path share = binary.parent_path().parent_path() / "share" / "ncclsweep";
    if (fs::is_directory(share / "configs", error)) return share;
  }
  return NCCLSWEEP_SOURCE_DIR;
}

std::string configs_directory(const std::string& kind) {
  namespace fs = std::filesystem;
  if (const char* data = std::getenv("NCCLSWEEP_DATA_DIR"); data && *data) {
    return (fs::path(data) / "configs" / kind).string();
  }
  const fs::path here = fs::path("configs") / kind;
  std::error_code error;  // an unreadable current directory means none here, not a failure
  if (fs::is_directory(here, error)) return here.string();
  return (installed_data_directory() / "configs" / kind).string();
}

std::string models_directory(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("NCCLSWEEP_MODELS_DIR"); env && *env) return env;
  return configs_directory("models");
}

}  // namespace ncclsweep
