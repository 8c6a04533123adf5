#include "transport/rank_refusal.hpp"

#include <cstddef>
#include <vector>

namespace ncclsweep {

std::optional<std::string> refusal_of_any_rank(RankGroup& ranks, const std::string& message) {
  if (ranks.max_across_ranks(message.empty() ? 0 : 1) == 0) return std::nullopt;
  // Every rank takes part in both gathers; only rank 0's result holds them.
  const std::vector<std::string> messages = ranks.gather(message);
  const std::vector<std::string> hosts = ranks.gather(ranks.host());
  if (ranks.rank() != 0) return std::string();
  if (!message.empty()) return message;
  for (std::size_t r = 1; r < messages.size(); ++r) {
    if (!messages[r].empty()) return "rank " + std::to_string(r) + " (host " + hosts[r] + "): " + messages[r];
  }
  return std::string("another rank refused");  // unreachable while gather keeps every rank's message
}

}  // namespace ncclsweep
