#include "verify/unexpected_environment.hpp"

namespace ncclsweep {

std::vector<std::string> unexpected_nccl_variables(const std::map<std::string, std::string>& seen_at_init,
                                                   const NcclLogFacts& point_log, const std::set<std::string>& named,
                                                   const std::map<std::string, std::string>& run_environment) {
  std::map<std::string, std::string> unexpected;
  const auto consider = [&](const std::string& name, const std::string& value, bool logged) {
    if (name.rfind("NCCL_", 0) != 0 || named.count(name)) return;
    const auto run = run_environment.find(name);
    if (run == run_environment.end()) {
      unexpected.emplace(name, value);
      return;
    }
    // NCCL logs an integer as it parsed it ("4."): only a different string value counts.
    if (!logged && run->second != value) unexpected.emplace(name, value);
  };
  for (const auto& [name, value] : seen_at_init) consider(name, value, false);
  for (const auto& [name, value] : point_log.set_by_environment) consider(name, value, true);
  std::vector<std::string> out;
  for (const auto& [name, value] : unexpected) out.push_back(name + "=" + value);
  return out;
}

}  // namespace ncclsweep
