#pragma once
// One soak window as records.jsonl holds it (one window a line): when it ran, each
// collective and size on the world communicator and on every host's own split, and
// every rank's GPU and CPU signals sampled as it ended. Verdicts, metrics and the
// timeline are made from a list of these alone.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/gpu_clocks.hpp"
#include "core/collective.hpp"
#include "core/units.hpp"

namespace ncclsweep::soak {

// Where a figure was measured: the world communicator, one host's ranks alone, or the
// ranks of two hosts together (the pair tests that trace a world drift, soak_runner.hpp).
enum class Scope { world, host, pair };
std::string_view name_of(Scope scope);

struct WindowFigure {
  Scope scope = Scope::world;
  int host = -1;            // host index (Scope::host; Scope::pair: the lower); -1 for the world
  int peer = -1;            // Scope::pair: the other host's index
  const CollectiveKind* collective = nullptr;
  Bytes bytes = 0;          // total size, nccl-tests convention
  int ranks = 0;            // of the communicator
  int rounds = 0;           // timed rounds in the window
  double seconds = 0;       // per call, slowest rank, the median of the rounds
  double algbw_gbps = 0;    // bytes / seconds: what verdicts follow (busbw is 0 on one rank)
  double busbw_gbps = 0;
  double low_gbps = 0, high_gbps = 0;  // algbw of the window's slowest and fastest round
};

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
  std::vector<WindowFigure> figures;
  std::vector<RankSignals> signals;     // every rank, in rank order
  std::vector<double> slow_factors;     // testing aid: per rank, the factor in force (empty: none)
};

void to_json(nlohmann::json& j, const SoakWindow& w);
void from_json(const nlohmann::json& j, SoakWindow& w);

}  // namespace ncclsweep::soak
