#pragma once
// RunSpec + rank count -> the ordered list of calls to measure, with requested sizes
// rounded down to ones the collective can move.
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "plan/run_spec.hpp"

namespace ncclsweep {

struct PlannedCall {
  CollectiveCall call;  // placement is chosen at run time (out-of-place, then in-place)
  bool reduces = false;
  Bytes requested_bytes = 0;
  Bytes total_bytes = 0;
};

struct MeasurementPlan {
  std::vector<PlannedCall> calls;  // collective, then dtype, then op, then size
  std::vector<std::string> notes;  // sizes rounded or dropped, said once each
};

// Throws UsageError when the root is not a rank or nothing is left to measure.
MeasurementPlan plan_measurements(const RunSpec& spec, int ranks);

}  // namespace ncclsweep
