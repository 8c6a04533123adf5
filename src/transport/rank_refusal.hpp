#pragma once
// Bad input one rank found, turned into a stop of every rank before anything is measured.
#include <optional>
#include <string>

#include "transport/rank_group.hpp"

namespace ncclsweep {

// Collective: nullopt on every rank when `message` is empty on every rank; otherwise a
// refusal on every rank, so all stop together. Rank 0's is the words for the command to
// print: its own message, or, when only other ranks refused, the lowest such rank's,
// prefixed "rank N (host H): " (the rank that saw what rank 0 did not, e.g. a file only
// its host lacks). The other ranks' is empty.
std::optional<std::string> refusal_of_any_rank(RankGroup& ranks, const std::string& message);

}  // namespace ncclsweep
