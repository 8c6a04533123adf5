#include "recommend/nccl_choice.hpp"

#include <cstdlib>
#include <map>

namespace ncclsweep {

std::optional<NcclChoice> logged_choice(const PointOutcome& point, const std::string& collective, Bytes size, int ranks) {
  static const std::map<std::string, std::string> functions = {{"all_gather", "AllGather"},
                                                               {"reduce_scatter", "ReduceScatter"},
                                                               {"all_reduce", "AllReduce"},
                                                               {"broadcast", "Broadcast"},
                                                               {"reduce", "Reduce"}};
  const auto function = functions.find(collective);
  if (function == functions.end()) return std::nullopt;
  const bool per_rank = collective == "all_gather" || collective == "reduce_scatter";
  const Bytes logged = per_rank && ranks > 0 ? size / static_cast<Bytes>(ranks) : size;
  const std::string key = function->second + " " + std::to_string(logged) + " B: ";
  for (const auto& entry : point.algorithms) {
    if (entry.rfind(key, 0) != 0) continue;
    const std::string text = entry.substr(key.size());  // "RING/LL, 24 channels"
    const std::size_t slash = text.find('/');
    const std::size_t comma = text.find(", ");
    if (slash == std::string::npos || comma == std::string::npos || comma < slash) return std::nullopt;
    return NcclChoice{text.substr(0, slash), text.substr(slash + 1, comma - slash - 1), std::atoi(text.c_str() + comma + 2)};
  }
  return std::nullopt;
}

}  // namespace ncclsweep
