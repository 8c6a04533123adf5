#pragma once
// RunSpec + rank count -> the ordered list of calls to measure, with requested sizes
// rounded down to ones the collective can move.
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

// Throws UsageError when the root is not a rank, a group does not divide the ranks, or
// nothing is left to measure.
MeasurementPlan plan_measurements(const RunSpec& spec, int ranks);

}  // namespace ncclsweep
