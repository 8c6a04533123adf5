#pragma once
// The NCCL whose config fields a sweep may use: this build's header, else the newest
// known (and a note saying so).
#include <optional>
#include <string>

#include <vector>

#include "plan/sweep_plan.hpp"
#include "spec/sweep.hpp"

namespace ncclsweep {

inline SweepContext build_sweep_context(std::string& note) {
#ifdef NCCLSWEEP_NCCL_VERSION_CODE
  note = "config fields checked against NCCL " + nccl_version_text(NCCLSWEEP_NCCL_VERSION_CODE) + " (this build's header)";
  return SweepContext{NCCLSWEEP_NCCL_VERSION_CODE};
#else
  note = "built without NCCL: config fields checked against the newest known, NCCL " +
         nccl_version_text(kNewestKnownNcclVersion);
  return SweepContext{kNewestKnownNcclVersion};
#endif
}

// The options `plan` and `run` share: the command line's axes, isolation and
// --allow-unknown-values, checked against this build's NCCL.
inline PlanOptions sweep_plan_options(Isolation isolation, std::optional<EngineKind> engine,
                                      const std::vector<std::string>& env_axes,
                                      const std::vector<std::string>& config_axes, bool allow_unknown_values,
                                      std::string& note) {
  PlanOptions options;
  options.context = build_sweep_context(note);
  options.context.allow_unknown_values = allow_unknown_values;
  options.isolation = isolation;
  options.engine = engine;
  options.env_axes = env_axes;
  options.config_axes = config_axes;
  return options;
}

}  // namespace ncclsweep
