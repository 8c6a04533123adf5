#pragma once
// Comma lists, as flags and sweep files write them: "all_gather, reduce_scatter".
#include <string>
#include <string_view>
#include <vector>

namespace ncclsweep {

// Splits on commas and trims blanks; drops a repeated entry, keeping the first. Throws
// UsageError naming `what` ("collective", "buffer footprint") for an empty entry or an
// empty list.
std::vector<std::string> split_list(const std::string& text, std::string_view what);

}  // namespace ncclsweep
