#pragma once
// The repeats of a measurement folded once, in the manner of google/benchmark's
// ComputeStats: every report reads these finished rows and none aggregates again.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "results/measurement_key.hpp"
#include "results/record.hpp"

namespace ncclsweep {

// One figure over the repeats of a measurement.
struct RepeatStats {
  double median = 0, min = 0, max = 0;
  double spread = 0;  // (max - min) / median: 0 for one repeat, or a zero median
  int count = 0;
};

// Not empty.
RepeatStats repeat_stats(std::span<const double> values);

struct RepeatedMeasurement {
  MeasurementKey key;         // without its repeat (repeat 0)
  MeasurementRecord first;    // the lowest repeat: what does not vary (count, root, ranks)
  RepeatStats busbw_gbps, algbw_gbps, time_us;  // time: the collective's (max over ranks)
  std::optional<std::uint64_t> wrong;  // summed over repeats; empty when none was checked
  // Under compute (docs/overlap.md), when measured: each figure's median over the repeats.
  struct UnderComputeStats {
    RepeatStats comm_slowdown, compute_slowdown, exposed_us, comm_under_us, compute_under_us;
  };
  std::optional<UnderComputeStats> under_compute;
};

// One entry per measurement, in key order. Records of the same key (the same repeat
// recorded twice) count as repeats too.
std::vector<RepeatedMeasurement> aggregate_repeats(std::span<const MeasurementRecord> records);

// busbw as the sweep reports show it: per series (series_of), per size (measured,
// requested: two requests that round to one size stay apart), per point.
using BusbwByPoint = std::map<std::string, RepeatStats>;
using BusbwBySize = std::map<std::pair<Bytes, Bytes>, BusbwByPoint>;
std::map<MeasurementKey, BusbwBySize> busbw_by_series(std::span<const RepeatedMeasurement> measurements,
                                                      Placement placement);

}  // namespace ncclsweep
