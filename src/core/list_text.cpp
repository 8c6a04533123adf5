#include "core/list_text.hpp"

#include <algorithm>
#include <sstream>

#include "core/errors.hpp"

namespace ncclsweep {

std::vector<std::string> split_list(const std::string& text, std::string_view what) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) {
      throw UsageError("empty entry in the " + std::string(what) + " list '" + text + "'",
                       "separate entries with single commas");
    }
    if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
  }
  if (items.empty()) throw UsageError("the " + std::string(what) + " list is empty", "name at least one");
  return items;
}

}  // namespace ncclsweep
