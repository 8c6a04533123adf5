#pragma once
// `ncclsweep plan --ranks N`: the at-scale wall-time estimate, as text and as JSON.
#include <nlohmann/json.hpp>

#include <string>

#include "plan/scale_estimate.hpp"

namespace ncclsweep {

// One line per term, with the figures behind it, so a reader can redo the sum.
std::string scale_estimate_text(const ScaleEstimate& estimate, const ScaleModel& model);

// {"ranks", "total_seconds", "launch_seconds", "init_seconds", "collectives_seconds",
//  "coordination_seconds", "measurements", "sizes_from_reference"}
nlohmann::json scale_estimate_json(const ScaleEstimate& estimate, const ScaleModel& model);

}  // namespace ncclsweep
