// `ncclsweep plan SWEEP.yaml`: validate, expand and group a sweep without MPI or a GPU.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/data_dir.hpp"
#include "cli/sweep_context.hpp"
#include "plan/engine_support.hpp"
#include "plan/scale_estimate.hpp"
#include "plan/sweep_estimate.hpp"
#include "search/search_grid.hpp"
#include "plan/sweep_plan.hpp"
#include "report/scale_estimate_report.hpp"
#include "report/sweep_plan_report.hpp"
#include "results/results_directory.hpp"
#include "runtime/engine_registry.hpp"
#include "spec/sweep.hpp"
#include "plan/sweep_sizes.hpp"

namespace ncclsweep {
namespace {

struct PlanArgs {
  std::string sweep_file;
  std::string format = "table";
  std::vector<std::string> env_axes;
  std::vector<std::string> config_axes;
  bool allow_unknown_values = false;  // values the NCCL tables do not know pass (a newer NCCL)
  Isolation isolation = Isolation::automatic;
  std::string engine;
  std::string groups;
  std::string models_dir;
  int ranks = 0;  // 0: no at-scale estimate
  double busbw_gbps = 0;
  std::string reference_dir;
};

// Sizes from a workload: the calls a run would measure, on the layout's rank count
// (imports: their largest communicator), and the groups they run on.
struct PlannedWorkload {
  int ranks = 0;
  WorkloadCalls calls;
};

std::optional<PlannedWorkload> plan_workload(const PlanArgs& args, const Sweep& sweep) {
  std::optional<CommSplitRequest> groups = sweep.communicators;
  if (!args.groups.empty()) groups = parse_comm_split_request(args.groups, {"--groups", 0, 0});
  if (!sweep.sizes_from) {
    if (groups && needs_workload(*groups)) {
      throw UsageError("groups " + groups->text() + " needs a workload's layout",
                       "take sizes from a workload (sizes: {workload: FILE}), or use plain groups", groups->where);
    }
    return std::nullopt;
  }
  const SizesInput input = load_sizes_source(*sweep.sizes_from, args.sweep_file, models_directory(args.models_dir));
  PlannedWorkload planned;
  if (input.layout) {
    planned.ranks = input.layout->world();
  } else if (input.profile.layout_ranks > 0) {
    planned.ranks = input.profile.layout_ranks;  // sizes: {calls: [...], ranks: N}
  } else {
    for (const auto& use : input.profile.uses) planned.ranks = std::max(planned.ranks, use.group.size);
  }
  // Plain groups depend on the launch (ranks per node): plan as one node.
  planned.calls = plan_workload_calls(input, groups, sweep.measurements.dtypes, planned.ranks, planned.ranks);
  return planned;
}

std::string workload_text(const PlannedWorkload& w) {
  std::string out = "\nsizes from " + w.calls.weights.source + " (" + w.calls.weights.basis + "), as measured on " +
                    std::to_string(w.ranks) + " ranks:\n";
  for (const auto& c : w.calls.calls) {
    out += "  " + std::string(c.kind->name) + " " + std::to_string(c.bytes) + " B (" + format_bytes(c.bytes) + ") " +
           std::string(c.dtype->name) + " on " + c.split.label() + "\n";
  }
  for (const auto& note : w.calls.notes) out += "  note: " + note + "\n";
  return out;
}

// The search's cost beside the full grid's (docs/search.md, "The cost model"): size
// measurements at the grid's mean estimated time each (a search starts no workers).
struct SearchPlanCost {
  SearchCost measurements;
  double grid_s = 0, worst_s = 0, expected_s = 0;
  std::size_t bands = 0;
};

std::optional<SearchPlanCost> search_cost(const Sweep& sweep, const SweepPlan& plan, double grid_seconds) {
  if (sweep.search.method == SearchMethod::grid) return std::nullopt;
  const MeasurementPlan measured = plan_measurements(plan.measurements, 2);
  const SearchGrid grid = make_search_grid(plan.points, plan.baseline, plan.measurements);
  const std::vector<SizeBand> bands = search_bands(measured, sweep.search.band_edges);
  SearchOptions o;
  o.method = sweep.search.method;
  o.grid_repeats = o.max_occasions = std::max(plan.repeats, 1);
  o.budget_share = sweep.search.budget.seconds > 0 ? std::min(1.0, sweep.search.budget.seconds / grid_seconds)
                                                   : sweep.search.budget.grid_fraction;
  SearchPlanCost cost;
  cost.measurements = estimate_search_cost(grid.space, bands, o);
  cost.bands = bands.size();
  const double per_measurement = grid_seconds / static_cast<double>(std::max(cost.measurements.grid, 1L));
  cost.grid_s = grid_seconds;
  cost.worst_s = static_cast<double>(cost.measurements.worst) * per_measurement;
  cost.expected_s = static_cast<double>(cost.measurements.expected) * per_measurement;
  return cost;
}

std::string search_cost_text(const Sweep& sweep, const SearchPlanCost& c) {
  char text[640];
  std::snprintf(text, sizeof text,
                "\nsearch: %s, budget %.0f%% of the grid, confidence %.2f, %zu size bands (docs/search.md)\n"
                "  full grid: %ld size measurements, about %.0f s\n"
                "  search:    at most %ld (the budget), about %.0f s; expected %ld, about %.0f s\n",
                std::string(name_of(sweep.search.method)).c_str(),
                c.measurements.grid > 0 ? 100.0 * static_cast<double>(c.measurements.worst) / static_cast<double>(c.measurements.grid) : 0,
                sweep.search.confidence, c.bands, c.measurements.grid, c.grid_s, c.measurements.worst, c.worst_s,
                c.measurements.expected, c.expected_s);
  return text;
}

int run_plan(const PlanArgs& args) {
  std::string version_note;
  const PlanOptions options =
      sweep_plan_options(args.isolation, args.engine.empty() ? std::nullopt : std::optional(parse_engine(args.engine)),
                         args.env_axes, args.config_axes,
                         args.allow_unknown_values, version_note);
  const Sweep sweep = load_sweep_file(args.sweep_file, options.context);
  SweepPlan plan = plan_sweep(sweep, options);
  plan.notes.push_back(version_note);
  // What run would refuse on this engine is refused here, at the file's line.
  const EngineKind engine = plan.measurements.engine.value_or(default_engine());
  const EngineCheckPlaces places = places_of(sweep, false, false, !args.engine.empty());
  check_engine_support(plan.measurements, engine, places);
  if (engine == EngineKind::mpi) {
    // Host buffers: refused when one rank alone could not hold them on this host (the
    // ranks sharing a host are known only at run time, where run checks again).
    const Bytes memory = host_memory_bytes();
    const int ranks = args.ranks > 0 ? args.ranks : 2;
    check_rank_memory(plan_measurements(plan.measurements, ranks), ranks, memory,
                      "this host's " + format_bytes(memory) + " of memory", places);
  }
  const std::optional<PlannedWorkload> workload = plan_workload(args, sweep);
  if (!plan.measurements.engine) plan.measurements.engine = engine;
  std::vector<MeasurementRecord> reference;
  if (!args.reference_dir.empty()) reference = read_run_document(args.reference_dir).records;
  const SweepEstimate seconds = estimate_sweep(plan, args.ranks > 0 ? args.ranks : 2, reference);
  ScaleModel model;
  if (args.ranks > 0) {
    model.ranks = args.ranks;
    if (args.busbw_gbps > 0) model.busbw_bytes_per_s = args.busbw_gbps * 1e9;
    model.reference = reference;
  }
  const ScaleEstimate at_scale = estimate_at_scale(plan, model);
  const std::optional<SearchPlanCost> search = search_cost(sweep, plan, seconds.typical_s);
  if (args.format == "json") {
    nlohmann::json j = sweep_plan_json(plan, seconds);
    if (search) {
      j["search"] = {{"method", std::string(name_of(sweep.search.method))},
                     {"grid_measurements", search->measurements.grid},
                     {"worst_measurements", search->measurements.worst},
                     {"expected_measurements", search->measurements.expected},
                     {"grid_seconds", search->grid_s},
                     {"worst_seconds", search->worst_s},
                     {"expected_seconds", search->expected_s}};
    }
    if (workload) {
      auto& calls = j["workload_calls"] = nlohmann::json::array();
      for (const auto& c : workload->calls.calls) {
        calls.push_back({{"collective", std::string(c.kind->name)}, {"bytes", c.bytes},
                         {"dtype", std::string(c.dtype->name)}, {"communicator", c.split.label()}});
      }
      j["workload_ranks"] = workload->ranks;
    }
    if (args.ranks > 0) j["at_scale"] = scale_estimate_json(at_scale, model);
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s%s", sweep_plan_text(plan, seconds).c_str(), workload ? workload_text(*workload).c_str() : "");
    if (search) std::printf("%s", search_cost_text(sweep, *search).c_str());
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
  plan->add_option("--format", args->format, "table or json")->check(one_of({"table", "json"}))->capture_default_str();
  plan->add_option("--env", args->env_axes, "VAR=v1,v2: add or replace an env axis (repeatable)")
      ->allow_extra_args(false);
  plan->add_option("--config", args->config_axes, "field=v1,v2: add or replace a config axis (repeatable)")
      ->allow_extra_args(false);
  plan->add_flag("--allow-unknown-values", args->allow_unknown_values,
                  "Pass env and config values the NCCL tables do not know (a newer NCCL); as the sweep file's "
                  "allow_unknown_values: true");
  add_choice(*plan, "--isolation", args->isolation, kIsolationNames,
             "auto (fresh processes where needed) or reinit (in-process re-init only)");
  plan->add_option("--engine", args->engine, "nccl or mpi (default: the sweep file's)");
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
  plan->callback([args, &chosen] { chosen = [args](CommandContext&) { return run_plan(*args); }; });
}

}  // namespace ncclsweep
