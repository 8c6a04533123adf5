#include "core/gpu_clocks.hpp"

#include <charconv>
#include <string>

namespace ncclsweep {
namespace {

// nvidia-smi's names for the reasons, in ThrottleReason's order.
constexpr std::array<std::string_view, kThrottleReasons> kQueryNames{
    "clocks_throttle_reasons.sw_power_cap", "clocks_throttle_reasons.hw_slowdown",
    "clocks_throttle_reasons.sw_thermal_slowdown", "clocks_throttle_reasons.hw_thermal_slowdown",
    "clocks_throttle_reasons.hw_power_brake_slowdown"};

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

std::optional<int> mhz(std::string_view field) {
  int value = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (error != std::errc() || end != field.data() + field.size() || value <= 0) return std::nullopt;
  return value;
}

}  // namespace

std::vector<ThrottleReason> throttle_reasons(const ThrottleFlags& throttled) {
  std::vector<ThrottleReason> reasons;
  for (const auto& [reason, name] : kThrottleReasonNames.entries()) {
    if (throttled[static_cast<std::size_t>(reason)]) reasons.push_back(reason);
  }
  return reasons;
}

std::string clock_query_fields() {
  std::string fields = "clocks.sm,clocks.mem";
  for (const std::string_view name : kQueryNames) fields += "," + std::string(name);
  return fields;
}

std::optional<GpuClocks> parse_clock_query(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(trimmed(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (fields.size() != 2 + kThrottleReasons) return std::nullopt;
  const auto sm = mhz(fields[0]), mem = mhz(fields[1]);
  if (!sm || !mem) return std::nullopt;
  GpuClocks clocks{*sm, *mem, {}};
  for (std::size_t i = 0; i < kThrottleReasons; ++i) {
    const std::string_view state = fields[2 + i];
    if (state != "Active" && state != "Not Active") return std::nullopt;
    clocks.throttled[i] = state == "Active";
  }
  return clocks;
}

}  // namespace ncclsweep
