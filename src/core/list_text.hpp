#pragma once
// Comma lists, as flags and sweep files write them: "all_gather, reduce_scatter".
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ncclsweep {

// The most entries one comma list may hold (sizes count their expanded ranges against
// kMaxSizesInList instead): every entry multiplies the grid a run measures, so a list
// past this is refused before any of that work.
inline constexpr std::size_t kMaxListEntries = 10000;

// `items` one after another with `separator` between them: "a, b, c". Items are anything
// a std::string_view is made from (std::string, std::string_view, const char*).
template <typename Items>
std::string join_text(const Items& items, std::string_view separator = ", ") {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += separator;
    out += std::string_view(item);
    first = false;
  }
  return out;
}

// Splits on commas and trims blanks; drops a repeated entry, keeping the first. Throws
// UsageError naming `what` ("collective", "buffer footprint") for an empty entry, an
// empty list, or more than kMaxListEntries entries.
std::vector<std::string> split_list(const std::string& text, std::string_view what);

}  // namespace ncclsweep
