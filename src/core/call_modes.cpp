#include "core/call_modes.hpp"

#include <algorithm>
#include <array>
#include <sstream>
#include <utility>

#include "core/errors.hpp"

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
constexpr std::array<std::pair<Placement, std::string_view>, 2> kPlacements{{
    {Placement::out_of_place, "out_of_place"},
    {Placement::in_place, "in_place"},
}};

template <typename Mode, std::size_t N>
std::string valid_names(const std::array<std::pair<Mode, std::string_view>, N>& names) {
  std::string valid;
  for (const auto& [mode, name] : names) valid += (valid.empty() ? "" : ", ") + std::string(name);
  return valid;
}

template <typename Mode, std::size_t N>
std::string_view name_in(const std::array<std::pair<Mode, std::string_view>, N>& names, Mode mode) {
  for (const auto& [m, name] : names) {
    if (m == mode) return name;
  }
  return "?";
}

template <typename Mode, std::size_t N>
Mode mode_named(const std::array<std::pair<Mode, std::string_view>, N>& names, std::string_view name, const char* what) {
  const auto found = std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.second == name; });
  if (found == names.end()) {
    throw UsageError(std::string("unknown ") + what + " '" + std::string(name) + "'", "use one of " + valid_names(names));
  }
  return found->first;
}

template <typename Mode, std::size_t N>
std::vector<Mode> parse_list(const std::string& text, const std::array<std::pair<Mode, std::string_view>, N>& names,
                             const char* what) {
  const std::string valid = valid_names(names);
  std::vector<Mode> out;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    const Mode mode = mode_named(names, item, what);
    if (std::find(out.begin(), out.end(), mode) == out.end()) out.push_back(mode);
  }
  if (out.empty()) throw UsageError(std::string("empty list of ") + what + "s", std::string("use one of ") + valid);
  return out;
}

}  // namespace

std::string_view name_of(BufferMode mode) { return name_in(kBufferModes, mode); }
std::string_view name_of(LaunchMode mode) { return name_in(kLaunchModes, mode); }
std::string_view name_of(Placement placement) { return name_in(kPlacements, placement); }

BufferMode parse_buffer_mode(std::string_view name) { return mode_named(kBufferModes, name, "buffer mode"); }
LaunchMode parse_launch_mode(std::string_view name) { return mode_named(kLaunchModes, name, "launch mode"); }
Placement parse_placement(std::string_view name) { return mode_named(kPlacements, name, "placement"); }

std::vector<BufferMode> parse_buffer_mode_list(const std::string& text) {
  return parse_list(text, kBufferModes, "buffer mode");
}

std::vector<LaunchMode> parse_launch_mode_list(const std::string& text) {
  return parse_list(text, kLaunchModes, "launch mode");
}

}  // namespace ncclsweep
