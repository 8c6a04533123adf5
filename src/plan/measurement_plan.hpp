#pragma once
// RunSpec + rank count -> the ordered list of calls to measure, with requested sizes
// rounded down to ones the collective can move.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "spec/run_spec.hpp"

namespace ncclsweep {

struct PlannedCall {
  CollectiveCall call;  // placement is chosen at run time (out-of-place, then in-place)
  bool reduces = false;
  Bytes requested_bytes = 0;
  Bytes total_bytes = 0;
  BufferFootprint footprint;  // as asked; call.footprint_bytes is what it resolved to
  CommSplit split;  // call.comm says which of the plan's sub-communicators it is (0: world)
};

struct MeasurementPlan {
  std::vector<PlannedCall> calls;  // collective, then dtype, then op, then size
  std::vector<std::string> notes;  // sizes rounded or dropped, said once each
  std::vector<CommSplit> comms;    // distinct sub-communicators; call.comm == i + 1 runs on comms[i]
};

// This rank's colour in each of the plan's sub-communicators (Engine::split's argument).
std::vector<int> comm_colors(const MeasurementPlan& plan, int rank);

// The most measurements one point may plan (collectives x dtypes x ops x sizes x buffer
// footprints x cache states x buffer and launch modes): refused before any is built, since
// planning a grid costs memory and time per entry long before a run could measure it.
inline constexpr std::uint64_t kMaxPlannedCalls = 100000;

// Throws UsageError at `sizes_place` when `spec` would plan more than kMaxPlannedCalls
// measurements per point; counts them without building one.
void check_plan_size(const RunSpec& spec, const SourcePosition& sizes_place);

// Throws UsageError when the root is not a rank (at `root_place`, the root's key or flag),
// a group does not divide the ranks, the grid is larger than kMaxPlannedCalls or nothing
// is left to measure (at `sizes_place`, the sizes' key or flag).
MeasurementPlan plan_measurements(const RunSpec& spec, int ranks, const SourcePosition& sizes_place = {},
                                  const SourcePosition& root_place = {"--root", 0, 0});

// The calls an estimate counts at `ranks`: plan_measurements, or where a sub-communicator
// needs more ranks than that, the same calls on the world (`on_world` then says so).
MeasurementPlan plan_measurements_for_estimate(const RunSpec& spec, int ranks, bool& on_world);

}  // namespace ncclsweep
