#pragma once
// `ncclsweep run`'s planning, on every rank alike and before anything is measured: the
// flags over the sweep file (or the defaults), the sweep's points and isolation groups,
// sizes from a workload, the measurement plan, the search, and every refusal of a run that
// cannot be measured as asked. The CLI only parses flags into a RunFlags.
#include <optional>
#include <string>
#include <vector>

#include "core/repeat_order.hpp"
#include "core/units.hpp"
#include "plan/sweep_plan.hpp"
#include "recommend/verification.hpp"
#include "runtime/launch.hpp"
#include "spec/run_spec.hpp"
#include "spec/search_spec.hpp"

namespace ncclsweep {

struct RunFlags {
  RunOverrides measurements;        // --collectives ... --with-compute, --engine
  std::string sweep_file;           // "" : none
  // --env, --config, --isolation, --allow-unknown-values, this build's NCCL (its engine
  // is measurements.engine's)
  PlanOptions plan_options;
  std::string groups;               // --groups: overrides the sweep file's groups
  std::string models_dir;           // where a workload's model is found (resolved by the CLI)
  std::string fault;                // --inject-fault text; "" for none
  bool probe = false;               // --probe
  std::optional<SearchMethod> search_method;  // --search: overrides the sweep file's search.method
  std::string budget;               // --budget: overrides search.budget
  std::string verify_file;          // --verify-recommendation
  std::string tuner_plugin;         // the plugin a tuner CSV is verified with ("" : beside this binary)
  // What the launch does with the plan (copied into the LaunchRequest as they are).
  std::string output, results_root = "results", resume_dir;
  bool force = false, allow_shared_gpu = false;
  int corrupt_rank = -1;
  ProgressSetting progress = ProgressSetting::automatic;  // --quiet is off
};

// Where the ranks sit, as the groups and the host-memory check need it.
struct RankLayout {
  int ranks = 1;
  int per_node = 0;        // ranks per node when placed in equal blocks, else 0
  int most_on_a_host = 1;  // ranks on the fullest host
  Bytes host_memory = 0;   // this host's memory, shared by its ranks (the mpi engine's buffers)
  std::string host_memory_what;  // what bounds it (the node's RAM or the job's cgroup); "": the node's
};

// What rank 0 read for every rank: the sweep file's text and, under
// --verify-recommendation, the recommendation.
struct RunInputs {
  std::string sweep_text;
  const RecommendedSettings* verify = nullptr;
  // Sizes in place of the sweep's (diagnose --workload): a sweep is planned around them,
  // with flags.sweep_file naming where they came from when there is no file text.
  std::optional<SizesSource> sizes = std::nullopt;
};

// What run plans, and what `plan` shows of it: the launch and, with a sweep, its points.
struct RunPlan {
  LaunchRequest request;
  std::optional<SweepPlan> sweep;  // none: a run of the flags alone
};

// The whole plan of a launch: spec, measurement plan, worker groups, baseline, workload,
// search, fault and RunFlags' launch fields (command_line and envp are the caller's), and
// every refusal of what the chosen engine cannot run. `ncclsweep plan` calls it too, so
// it counts and refuses what run does. Throws UsageError, the same on every rank for the
// same inputs.
RunPlan plan_run(const RunFlags& flags, const RunInputs& inputs, const RankLayout& layout);

// plan_run, for a launch: also refuses an engine this build lacks.
LaunchRequest build_run_plan(const RunFlags& flags, const RunInputs& inputs, const RankLayout& layout);

}  // namespace ncclsweep
