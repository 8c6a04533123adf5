#include "recommend/nccl_choice.hpp"

#include <cstdlib>
#include <map>

namespace ncclsweep {

std::optional<NcclChoice> logged_choice(const PointOutcome& point, const CollectiveKind& collective, Bytes size,
                                        int ranks) {
  // NCCL logs the bytes one rank passes: a collective that splits its total across the
  // ranks (all_gather, reduce_scatter) logs total / ranks.
  const Bytes logged = collective.splits_across_ranks && ranks > 0 ? size / static_cast<Bytes>(ranks) : size;
  const std::string key = std::string(collective.nccl_name) + " " + std::to_string(logged) + " B: ";
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
