#include "core/list_text.hpp"

#include <algorithm>
#include <unordered_set>

#include "core/errors.hpp"

namespace ncclsweep {

std::vector<std::string> split_list(const std::string& text, std::string_view what) {
  std::vector<std::string> items;
  std::unordered_set<std::string_view> seen;  // views into `text`
  std::size_t entries = 0;
  // As std::getline splits: "a," is one entry, "" none.
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string_view item(text.data() + start, comma - start);
    start = comma + 1;
    const std::size_t first = item.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
      throw UsageError("empty entry in the " + std::string(what) + " list '" + text + "'",
                       "separate entries with single commas");
    }
    item = item.substr(first, item.find_last_not_of(" \t") - first + 1);
    if (++entries > kMaxListEntries) {
      throw UsageError("the " + std::string(what) + " list holds more than " + std::to_string(kMaxListEntries) +
                           " entries",
                       "name fewer values; a list that long is almost always a mistake");
    }
    if (seen.insert(item).second) items.emplace_back(item);
  }
  if (items.empty()) throw UsageError("the " + std::string(what) + " list is empty", "name at least one");
  return items;
}

}  // namespace ncclsweep
