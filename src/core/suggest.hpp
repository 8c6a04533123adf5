#pragma once
// "did you mean ...?": the closest known name to a misspelt one.
#include <string>
#include <string_view>
#include <vector>

namespace ncclsweep {

// The candidate nearest to `word` by edit distance (case-insensitive), or "" when none
// is close enough to be a plausible typo (at most a third of the word's length).
std::string closest_name(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean X?)" or "" - ready to append to a message.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace ncclsweep
