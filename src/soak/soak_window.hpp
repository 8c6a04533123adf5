#pragma once
// One soak window as records.jsonl holds it (one window a line): when it ran, the record
// of each collective and size on the world communicator and on every host's own split
// (and on pairs of hosts while tracing), and every rank's GPU and CPU signals sampled as
// it ended. Verdicts, metrics and the timeline are made from a list of these alone.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/gpu_clocks.hpp"
#include "results/record.hpp"

namespace ncclsweep::soak {

// A window's figure of one test on one communicator is a MeasurementRecord
// (results/record.hpp) with a SoakPlace: its rounds are the record's samples, the window
// its repeat. The place of a soak figure (a record without one is not a soak figure).
const SoakPlace& place_of(const MeasurementRecord& figure);

// Why a signal has no value.
enum class Gap {
  none,
  no_gpu,          // the engine has no GPU (mpi engine)
  unreadable,      // the reader ran and failed (no NVML device, nvidia-smi missing)
  not_built,       // this build has no reader for it
};
std::string_view name_of(Gap gap);
Gap gap_named(std::string_view name);  // throws UsageError for an unknown name

struct GpuSignals {
  Gap gap = Gap::none;  // none: the fields below are read
  int sm_mhz = 0, mem_mhz = 0;
  std::optional<double> power_w, temperature_c;  // each may be missing while the clocks are read
  std::array<bool, kThrottleReasons> throttled{};
};

struct CpuSignals {
  Gap gap = Gap::none;
  double busy_core_mhz = 0;  // the frequency a busy core of this rank runs at
};

struct RankSignals {
  int rank = 0;
  int host = 0;
  GpuSignals gpu;
  CpuSignals cpu;
};

struct SoakWindow {
  int index = 0;              // 0.. over the whole timeline, resumed launches included
  std::string start_utc, end_utc;
  double start_s = 0, end_s = 0;        // seconds into the timeline (monotonic; resumes continue it)
  double monotonic_start_s = 0;         // rank 0's CLOCK_MONOTONIC at the start (this boot)
  double end_unix_s = 0;                // the end as seconds since 1970 (UTC)
  int launch = 1;                       // 1, and one more after each --resume
  std::vector<MeasurementRecord> figures;  // each with its SoakPlace
  std::vector<RankSignals> signals;     // every rank, in rank order
  std::vector<double> slow_factors;     // testing aid: per rank, the factor in force (empty: none)
};

void to_json(nlohmann::json& j, const SoakWindow& w);
void from_json(const nlohmann::json& j, SoakWindow& w);

}  // namespace ncclsweep::soak
