#include "core/call_modes.hpp"

#include <algorithm>
#include <array>
#include <sstream>
#include <utility>

#include "core/errors.hpp"
#include "spec/suggest.hpp"

namespace ncclsweep {
namespace {

constexpr std::array<std::pair<BufferMode, std::string_view>, 3> kBufferModes{{
    {BufferMode::cuda_malloc, "cuda-malloc"},
    {BufferMode::nccl_register, "nccl-register"},
    {BufferMode::nccl_window, "nccl-window"},
}};
constexpr std::array<std::pair<LaunchMode, std::string_view>, 3> kLaunchModes{{
    {LaunchMode::stream, "stream"},
    {LaunchMode::graph, "graph"},
    {LaunchMode::blocking, "blocking"},
}};

template <typename Mode, std::size_t N>
std::vector<Mode> parse_list(const std::string& text, const std::array<std::pair<Mode, std::string_view>, N>& names,
                             const char* what) {
  std::string valid;
  std::vector<std::string> candidates;
  for (const auto& [mode, name] : names) {
    valid += (valid.empty() ? "" : ", ") + std::string(name);
    candidates.emplace_back(name);
  }
  std::vector<Mode> out;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    const auto found = std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.second == item; });
    if (found == names.end()) {
      throw UsageError(std::string("unknown ") + what + " '" + item + "'" + did_you_mean(item, candidates),
                       std::string("use one of ") + valid);
    }
    if (std::find(out.begin(), out.end(), found->first) == out.end()) out.push_back(found->first);
  }
  if (out.empty()) throw UsageError(std::string("empty list of ") + what + "s", std::string("use one of ") + valid);
  return out;
}

}  // namespace

std::string_view name_of(BufferMode mode) {
  for (const auto& [m, name] : kBufferModes) {
    if (m == mode) return name;
  }
  return "?";
}

std::string_view name_of(LaunchMode mode) {
  for (const auto& [m, name] : kLaunchModes) {
    if (m == mode) return name;
  }
  return "?";
}

std::vector<BufferMode> parse_buffer_mode_list(const std::string& text) {
  return parse_list(text, kBufferModes, "buffer mode");
}

std::vector<LaunchMode> parse_launch_mode_list(const std::string& text) {
  return parse_list(text, kLaunchModes, "launch mode");
}

}  // namespace ncclsweep
