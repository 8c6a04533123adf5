#include "runtime/group_failure.hpp"

namespace ncclsweep {

GroupFailure describe_group_failure(const WorkerFailure& result, const std::vector<std::string>& errors) {
  std::string first, late;
  for (std::size_t r = 0; r < errors.size(); ++r) {
    if (errors[r].empty()) continue;
    const std::string where = "rank " + std::to_string(r) + " (" + errors[r].substr(0, errors[r].find(": ")) + ")";
    if (errors[r].find(": timeout: ") != std::string::npos) {
      late += (late.empty() ? "" : ", ") + where;
      if (first.empty() || first.find("timeout") == std::string::npos) first = errors[r].substr(errors[r].find(": ") + 2);
    } else if (first.empty()) {
      first = "rank " + std::to_string(r) + " on " + errors[r];
    }
  }
  if (!late.empty()) return {first + "; did not finish: " + late, true};
  if (result.failed && first.empty()) return {"rank " + std::to_string(result.failed_rank) + " failed", false};
  return {first, false};
}

}  // namespace ncclsweep
