#pragma once
// One `ncclsweep plan`: the sweep file read and planned as run would plan it (its points,
// isolation groups, refusals on the chosen engine, workload sizes), with the time it
// would take, a search's cost and, with --ranks, the estimate at scale; printed as a
// table or JSON. No MPI, no GPU. The CLI only parses flags into a PlanFlags.
#include <iosfwd>
#include <string>

#include "plan/sweep_plan.hpp"

namespace ncclsweep {

struct PlanFlags {
  std::string sweep_file;
  bool json = false;          // --format json
  PlanOptions plan_options;   // --env, --config, --isolation, --engine, --allow-unknown-values, this build's NCCL
  std::string version_note;   // which NCCL's config fields were checked (a plan note)
  std::string groups;         // --groups: overrides the sweep file's
  std::string models_dir;     // where a workload's model is found (resolved by the CLI)
  int ranks = 0;              // --ranks; 0: 2 for the estimate, no estimate at scale
  double busbw_gbps = 0;      // --busbw; 0: the model's default
  std::string reference_dir;  // --reference: a run whose times replace the model's
};

// Writes the plan to `out` and returns kExitOk; throws UsageError for what run would refuse.
int run_plan_command(const PlanFlags& flags, std::ostream& out);

}  // namespace ncclsweep
