#pragma once
// A GPU's clocks at one moment and what holds them down, so a record can say its
// measurement ran throttled. Read by the nccl engine (NVML, or
// nvidia-smi when NVML was not there at build time).
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/name_table.hpp"

namespace ncclsweep {

// NVML's clock event reasons that slow work down (idle, application clocks and sync boost
// do not count), by NVML's names (nvmlClocksEventReason*, lower case), as records and
// soak windows hold them.
enum class ThrottleReason { sw_power_cap, hw_slowdown, sw_thermal, hw_thermal, hw_power_brake };
inline constexpr std::size_t kThrottleReasons = 5;
inline constexpr NameTable<ThrottleReason, kThrottleReasons> kThrottleReasonNames{
    "throttle reason",
    {{{ThrottleReason::sw_power_cap, "sw_power_cap"},
      {ThrottleReason::hw_slowdown, "hw_slowdown"},
      {ThrottleReason::sw_thermal, "sw_thermal"},
      {ThrottleReason::hw_thermal, "hw_thermal"},
      {ThrottleReason::hw_power_brake, "hw_power_brake"}}}};
inline std::string_view name_of(ThrottleReason reason) { return kThrottleReasonNames.name(reason); }

// One flag per reason, indexed by ThrottleReason: what a clock reader fills and ranks
// reduce (an element-wise max).
using ThrottleFlags = std::array<bool, kThrottleReasons>;

struct GpuClocks {
  int sm_mhz = 0;
  int mem_mhz = 0;
  ThrottleFlags throttled{};
};

// The reasons set in `throttled`, in enum order.
std::vector<ThrottleReason> throttle_reasons(const ThrottleFlags& throttled);

// The nvidia-smi query that read_clock_query parses (after "--query-gpu=").
std::string clock_query_fields();
// One line of `nvidia-smi --query-gpu=<clock_query_fields()> --format=csv,noheader,nounits`:
// "1980, 3201, Not Active, Active, Not Active, Not Active, Not Active". Nothing when the
// line does not have that shape (an older nvidia-smi, "[N/A]").
std::optional<GpuClocks> parse_clock_query(std::string_view line);

}  // namespace ncclsweep
