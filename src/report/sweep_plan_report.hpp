#pragma once
// `ncclsweep plan` output: a readable table, or JSON with one object per point.
#include <nlohmann/json.hpp>

#include <string>

#include "plan/sweep_estimate.hpp"
#include "plan/sweep_plan.hpp"
#include "plan/sweep_sizes.hpp"

namespace ncclsweep {

// {"measurements": {...}, "points": [{"index", "label", "group", "baseline", "expected_mismatch",
//  "settings": [{"name", "value", "kind"}]}], "groups": [{"index", "process_env", "points"}],
//  "repeats", "order", "seed", "isolation", "estimated_seconds", "estimate": {"measurements",
//  "low_seconds", "typical_seconds", "high_seconds", "from_reference", "basis"}, "notes"}
nlohmann::json sweep_plan_json(const SweepPlan& plan, const SweepEstimate& estimate);

std::string sweep_plan_text(const SweepPlan& plan, const SweepEstimate& estimate);

// A workload's calls as `plan` shows them: "sizes from ... as measured on N ranks:" and a
// line per call and note; starts with a blank line.
std::string planned_workload_text(const PlannedWorkload& workload);

// [{"collective", "bytes", "dtype", "communicator"}]: plan --format json's workload_calls.
nlohmann::json planned_workload_json(const PlannedWorkload& workload);

// "45 s", "12 min", "3.5 h".
std::string duration_text(double seconds);

}  // namespace ncclsweep
