#pragma once
// Bad input one rank found, turned into a stop of every rank before anything is measured.
#include <optional>
#include <string>

#include "transport/rank_group.hpp"

namespace ncclsweep {

// Collective: nullopt on every rank when `message` is empty on every rank; otherwise a
// refusal on every rank, so all stop together: rank 0's is its message (or `others` when
// only other ranks refused), for the command to print; the other ranks' is empty.
std::optional<std::string> refusal_of_any_rank(RankGroup& ranks, const std::string& message,
                                               const std::string& others = "another rank refused");

}  // namespace ncclsweep
