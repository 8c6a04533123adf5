#include "runtime/plan_entry.hpp"

#include <optional>
#include <ostream>
#include <vector>

#include "core/memory_limit.hpp"
#include "plan/engine_support.hpp"
#include "plan/scale_estimate.hpp"
#include "plan/sweep_estimate.hpp"
#include "plan/sweep_sizes.hpp"
#include "report/scale_estimate_report.hpp"
#include "report/sweep_plan_report.hpp"
#include "results/results_directory.hpp"
#include "runtime/engine_registry.hpp"
#include "search/search_plan_cost.hpp"
#include "spec/sweep.hpp"

namespace ncclsweep {
namespace {

// What run would refuse on this engine is refused here, at the file's line, for `ranks`
// ranks. A workload's or a calls block's calls only when the sweep or --engine names the
// engine: a sizes file is often planned on a machine without the GPU its run will have.
void check_engine(const Sweep& sweep, const SweepPlan& plan, const PlanFlags& flags, EngineKind engine, int ranks) {
  const EngineCheckPlaces places = places_of(sweep, false, false, flags.plan_options.engine.has_value());
  const bool listed = sweep.sizes_from && sweep.sizes_from->kind == SizesSourceKind::calls;
  if (plan.measurements.calls.empty() || plan.measurements.engine) {
    check_engine_runs(plan.measurements, listed ? sweep.sizes_from->calls : std::vector<ListedCall>{}, engine, places);
  }
  check_plan_size(plan.measurements, places.sizes);  // before the estimate plans a single call
  if (engine == EngineKind::mpi) {
    // Host buffers: refused when one rank alone could not hold them on this host (the
    // ranks sharing a host are known only at run time, where run checks again).
    const MemoryLimit memory = process_memory_limit();  // the job's cgroup limit where it has one
    check_rank_memory(plan_measurements(plan.measurements, ranks, places.sizes, places.root), ranks, memory.bytes, memory.what,
                      places);
  }
}

}  // namespace

int run_plan_command(const PlanFlags& flags, std::ostream& out) {
  const Sweep sweep = load_sweep_file(flags.sweep_file, flags.plan_options.context);
  SweepPlan plan = plan_sweep(sweep, flags.plan_options);
  plan.notes.push_back(flags.version_note);
  const EngineKind engine = plan.measurements.engine.value_or(default_engine());
  const std::optional<PlannedWorkload> workload = plan_workload_preview(
      sweep, requested_groups(&sweep, flags.groups), flags.sweep_file, flags.models_dir, flags.ranks);
  int ranks = flags.ranks > 0 ? flags.ranks : 2;
  if (workload) {
    // run measures the workload's calls, not the sweep's grid: so are they planned, counted
    // and estimated here, on the workload's own rank count unless --ranks gives one.
    plan.measurements.calls = workload->calls.calls;
    if (workload->ranks > 0) ranks = workload->ranks;  // a calls block may leave its ranks out
  }
  check_engine(sweep, plan, flags, engine, ranks);
  if (!plan.measurements.engine) plan.measurements.engine = engine;

  std::vector<MeasurementRecord> reference;
  if (!flags.reference_dir.empty()) reference = read_run_document(flags.reference_dir).records;
  const SweepEstimate seconds = estimate_sweep(plan, ranks, reference);
  ScaleModel model;
  if (flags.ranks > 0) {
    model.ranks = flags.ranks;
    if (flags.busbw_gbps > 0) model.busbw_bytes_per_s = flags.busbw_gbps * 1e9;
    model.reference = reference;
  }
  const ScaleEstimate at_scale = estimate_at_scale(plan, model);
  const std::optional<SearchPlanCost> search = search_plan_cost(sweep, plan, seconds.typical_s);

  if (flags.json) {
    nlohmann::json j = sweep_plan_json(plan, seconds);
    if (search) j["search"] = search_plan_cost_json(*search);
    if (workload) {
      j["workload_calls"] = planned_workload_json(*workload);
      j["workload_ranks"] = workload->ranks;
    }
    if (flags.ranks > 0) j["at_scale"] = scale_estimate_json(at_scale, model);
    out << j.dump(2) << "\n";
    return kExitOk;
  }
  out << sweep_plan_text(plan, seconds);
  if (workload) out << planned_workload_text(*workload);
  if (search) out << search_plan_cost_text(*search);
  if (flags.ranks > 0) out << scale_estimate_text(at_scale, model);
  return kExitOk;
}

}  // namespace ncclsweep
