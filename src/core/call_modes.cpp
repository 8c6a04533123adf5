#include "core/call_modes.hpp"

#include <algorithm>
#include <sstream>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

template <typename Mode, std::size_t N>
std::vector<Mode> parse_list(const std::string& text, const NameTable<Mode, N>& names) {
  std::vector<Mode> out;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    const Mode mode = names.parse(item);
    if (std::find(out.begin(), out.end(), mode) == out.end()) out.push_back(mode);
  }
  if (out.empty()) {
    throw UsageError("empty list of " + std::string(names.what()) + "s", "use one of " + names.joined());
  }
  return out;
}

}  // namespace

std::vector<BufferMode> parse_buffer_mode_list(const std::string& text) { return parse_list(text, kBufferModeNames); }

std::vector<LaunchMode> parse_launch_mode_list(const std::string& text) { return parse_list(text, kLaunchModeNames); }

}  // namespace ncclsweep
