// `ncclsweep plan SWEEP.yaml`: validate, expand and group a sweep without MPI or a GPU.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "core/table_or_json.hpp"
#include "core/run_options.hpp"
#include "cli/data_dir.hpp"
#include "cli/sweep_context.hpp"
#include "runtime/plan_entry.hpp"

namespace ncclsweep {
namespace {

struct PlanArgs {
  std::string sweep_file;
  TableOrJson format = TableOrJson::table;
  std::vector<std::string> env_axes;
  std::vector<std::string> config_axes;
  bool allow_unknown_values = false;  // values the NCCL tables do not know pass (a newer NCCL)
  Isolation isolation = Isolation::automatic;
  std::optional<EngineKind> engine;
  std::string groups;
  std::string models_dir;
  int ranks = 0;  // 0: no at-scale estimate
  double busbw_gbps = 0;
  std::string reference_dir;
};

int run_plan(const PlanArgs& args) {
  PlanFlags flags;
  flags.plan_options =
      sweep_plan_options(args.isolation, args.engine,
                         args.env_axes, args.config_axes, args.allow_unknown_values, flags.version_note);
  flags.sweep_file = args.sweep_file;
  flags.json = args.format == TableOrJson::json;
  flags.groups = args.groups;
  flags.models_dir = models_directory(args.models_dir);
  flags.ranks = args.ranks;
  flags.busbw_gbps = args.busbw_gbps;
  flags.reference_dir = args.reference_dir;
  return run_plan_command(flags, std::cout);
}

}  // namespace

void add_plan_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* plan = add_command(
      app, chosen, args, "plan",
      "Validate a sweep file and print its points, isolation groups and a rough run time (no MPI, no GPU)",
      [](const PlanArgs& a, CommandContext&) { return run_plan(a); });
  plan->add_option("sweep", args->sweep_file, "Sweep file (docs/sweep-files.md)")->required();
  add_choice(*plan, "--format", args->format, kTableOrJsonNames, "table or json");
  plan->add_option("--env", args->env_axes, "VAR=v1,v2: add or replace an env axis (repeatable)")
      ->allow_extra_args(false);
  plan->add_option("--config", args->config_axes, "field=v1,v2: add or replace a config axis (repeatable)")
      ->allow_extra_args(false);
  plan->add_flag("--allow-unknown-values", args->allow_unknown_values,
                  "Pass env and config values the NCCL tables do not know (a newer NCCL); as the sweep file's "
                  "allow_unknown_values: true");
  add_choice(*plan, "--isolation", args->isolation, kIsolationNames,
             "auto (fresh processes where needed) or reinit (in-process re-init only)");
  add_choice(*plan, "--engine", args->engine, kEngineNames, "nccl or mpi (default: the sweep file's)");
  plan->add_option("--groups", args->groups, "Sub-communicators (as for run): intra-node, inter-node, stride:K, size:N, workload, dp...");
  plan->add_option("--models-dir", args->models_dir, "Model catalog for sizes from a workload (default configs/models)");
  CLI::Option* ranks = plan->add_option("--ranks", args->ranks,
                                        "Ranks the run will have (default 2); also estimate the wall time at this many "
                                        "ranks (docs/scale.md)")
      ->check(finite_range(2, 1 << 20));
  plan->add_option("--busbw", args->busbw_gbps, "With --ranks: assumed bus bandwidth in GB/s (default 100)")
      ->check(finite_positive())
      ->needs(ranks);
  plan->add_option("--reference", args->reference_dir,
                   "A previous run's results directory: its measured per-call times and iteration counts replace "
                   "the model (and, with --ranks, its busbw per collective and size)");
}

}  // namespace ncclsweep
