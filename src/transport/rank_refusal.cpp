#include "transport/rank_refusal.hpp"

namespace ncclsweep {

std::optional<std::string> refusal_of_any_rank(RankGroup& ranks, const std::string& message, const std::string& others) {
  if (ranks.max_across_ranks(message.empty() ? 0 : 1) == 0) return std::nullopt;
  if (ranks.rank() != 0) return std::string();
  return message.empty() ? others : message;
}

}  // namespace ncclsweep
