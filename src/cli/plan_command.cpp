// `ncclsweep plan SWEEP.yaml`: validate, expand and group a sweep without MPI or a GPU.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/sweep_context.hpp"
#include "plan/scale_estimate.hpp"
#include "plan/sweep_estimate.hpp"
#include "plan/sweep_plan.hpp"
#include "report/scale_estimate_report.hpp"
#include "report/sweep_plan_report.hpp"
#include "results/results_directory.hpp"
#include "spec/sweep.hpp"

namespace ncclsweep {
namespace {

struct PlanArgs {
  std::string sweep_file;
  std::string format = "table";
  std::vector<std::string> env_axes;
  std::vector<std::string> config_axes;
  std::string isolation = "auto";
  std::string engine;
  int ranks = 0;  // 0: no at-scale estimate
  double busbw_gbps = 0;
  std::string reference_dir;
};

int run_plan(const PlanArgs& args) {
  std::string version_note;
  const PlanOptions options =
      sweep_plan_options(args.isolation, args.engine, args.env_axes, args.config_axes, version_note);
  const Sweep sweep = load_sweep_file(args.sweep_file, options.context);
  SweepPlan plan = plan_sweep(sweep, options);
  plan.notes.push_back(version_note);
  const double seconds = estimate_seconds(plan);
  ScaleModel model;
  if (args.ranks > 0) {
    model.ranks = args.ranks;
    if (args.busbw_gbps > 0) model.busbw_bytes_per_s = args.busbw_gbps * 1e9;
    if (!args.reference_dir.empty()) model.reference = read_run_document(args.reference_dir).records;
  }
  const ScaleEstimate at_scale = estimate_at_scale(plan, model);
  if (args.format == "json") {
    nlohmann::json j = sweep_plan_json(plan, seconds);
    if (args.ranks > 0) j["at_scale"] = scale_estimate_json(at_scale, model);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s", sweep_plan_text(plan, seconds).c_str());
    const int sizes = static_cast<int>(plan.measurements.collectives.size() * plan.measurements.sizes.size());
    if (args.ranks > 0) std::printf("%s", scale_estimate_text(at_scale, model, sizes).c_str());
  }
  return kExitOk;
}

}  // namespace

void add_plan_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* plan = app.add_subcommand("plan", "Validate a sweep file and print its points, isolation groups and a rough run time (no MPI, no GPU)");
  plan->add_option("sweep", args->sweep_file, "Sweep file (docs/sweep-files.md)")->required();
  plan->add_option("--format", args->format, "table or json")->check(CLI::IsMember({"table", "json"}))->capture_default_str();
  plan->add_option("--env", args->env_axes, "VAR=v1,v2: add or replace an env axis (repeatable)")
      ->allow_extra_args(false);
  plan->add_option("--config", args->config_axes, "field=v1,v2: add or replace a config axis (repeatable)")
      ->allow_extra_args(false);
  plan->add_option("--isolation", args->isolation, "auto (fresh processes where needed) or reinit (in-process re-init only)")
      ->capture_default_str();
  plan->add_option("--engine", args->engine, "nccl or mpi (default: the sweep file's)");
  CLI::Option* ranks = plan->add_option("--ranks", args->ranks, "Also estimate the wall time at this many ranks (docs/scale.md)")
      ->check(CLI::Range(2, 1 << 20));
  plan->add_option("--busbw", args->busbw_gbps, "With --ranks: assumed bus bandwidth in GB/s (default 100)")
      ->check(CLI::PositiveNumber)
      ->needs(ranks);
  plan->add_option("--reference", args->reference_dir,
                   "With --ranks: a previous run's results directory; its busbw per collective and size is used")
      ->needs(ranks);
  plan->callback([args, &chosen] { chosen = [args](CommandContext&) { return run_plan(*args); }; });
}

}  // namespace ncclsweep
