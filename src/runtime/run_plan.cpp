#include "runtime/run_plan.hpp"

#include <algorithm>
#include <set>

#include "core/errors.hpp"
#include "core/list_text.hpp"
#include "core/run_options.hpp"
#include "core/suggest.hpp"
#include "plan/engine_support.hpp"
#include "plan/measurement_plan.hpp"
#include "plan/sweep_sizes.hpp"
#include "report/overlap_report.hpp"
#include "runtime/engine_registry.hpp"
#include "processes/message_channel.hpp"
#include "processes/worker_protocol.hpp"
#include "search/search_request.hpp"
#include "spec/sweep.hpp"

namespace ncclsweep {
namespace {

std::string listed(const std::vector<std::string>& labels) {
  std::string text;
  for (const auto& label : labels) text += (text.empty() ? "" : ", ") + label;
  return text;
}

// A fault aimed at a rank or point the run does not have would inject nothing and
// pass: refuse it, naming what the run has.
void check_fault_target(const FaultInjection& fault, int ranks, const std::vector<WorkerGroup>& groups) {
  if (fault.rank == FaultInjection::kEveryRank) return;  // slow=F@POINT names search candidates: check_search_fault
  if (fault.rank < 0 || fault.rank >= ranks) {
    throw UsageError("--inject-fault names rank " + std::to_string(fault.rank) + ", but the run has ranks 0.." +
                         std::to_string(ranks - 1),
                     "name a rank below " + std::to_string(ranks));
  }
  if (fault.point.empty()) return;
  std::vector<std::string> labels;
  for (const WorkerGroup& group : groups) {
    for (const PointSpec& point : group.points) labels.push_back(point.label);
  }
  if (labels.empty()) labels.push_back("default");
  if (std::find(labels.begin(), labels.end(), fault.point) != labels.end()) return;
  throw UsageError("--inject-fault names point '" + fault.point + "', which this run does not have" +
                       did_you_mean(fault.point, labels),
                   "name one of: " + listed(labels));
}

// slow=F@POINT;... (every rank) slows a search's candidates: each named one must exist.
void check_search_fault(const FaultInjection& fault, const std::optional<SearchRequest>& search) {
  if (fault.rank != FaultInjection::kEveryRank) return;
  if (!search) {
    throw UsageError("--inject-fault slow=F@POINT slows a search's candidates, and this run has no search",
                     "add --search racing (or coordinate), or name a rank: RANK:slow=F");
  }
  std::vector<std::string> labels;
  for (const auto& candidate : search->grid.space.candidates) labels.push_back(candidate.label);
  for (const auto& [point, factor] : fault.slowed) {
    if (std::find(labels.begin(), labels.end(), point) != labels.end()) continue;
    throw UsageError("--inject-fault names point '" + point + "', which this search does not have" +
                         did_you_mean(point, labels),
                     "name one of: " + listed(labels));
  }
}

// The testing aid's refusals: what it needs (--probe, an engine) and whom it aims at.
FaultInjection planned_fault(const RunFlags& flags, EngineKind engine, int ranks, const std::vector<WorkerGroup>& groups) {
  if (flags.fault.empty()) return {};
  FaultInjection fault = parse_fault_injection(flags.fault);
  if (fault.action == FaultAction::cpu_hog && !flags.probe) {
    throw UsageError("--inject-fault cpu-hog disturbs the probes, not the measurements", "add --probe");
  }
  if (engine == EngineKind::mpi && fault.action == FaultAction::skip) {
    throw UsageError("--inject-fault skip needs the nccl engine (its workers have deadlines; the mpi engine "
                     "would wait forever)",
                     "use sleep=SECONDS, exit or kill with --engine mpi");
  }
  check_fault_target(fault, ranks, groups);
  if (engine != EngineKind::mpi && fault.action == FaultAction::slow) {
    throw UsageError("--inject-fault slow=FACTOR needs the mpi engine (it repeats each call on the CPU fabric)",
                     "add --engine mpi, or use locate's --inject-fault on the GPU machine");
  }
  return fault;
}

// Workers get the plan in their start message (processes/worker_protocol.hpp): refuse a plan
// that would not fit, before anything is measured, keeping half the message for the rest.
void check_worker_plan_size(const MeasurementPlan& plan) {
  const std::size_t bytes = nlohmann::json(plan).dump().size();
  if (bytes <= kMaxMessageBytes / 2) return;
  throw UsageError("the plan's " + std::to_string(plan.calls.size()) + " calls take " + format_bytes(bytes) +
                       " in a worker's start message, more than the " + format_bytes(kMaxMessageBytes / 2) + " it may",
                   "measure fewer sizes (a larger step in --sizes) or split the sweep into several runs");
}

// Two calls that differ no more after an override are one measurement.
void keep_distinct(std::vector<SizedCall>& calls) {
  std::vector<SizedCall> distinct;
  for (const SizedCall& c : calls) {
    const bool seen = std::any_of(distinct.begin(), distinct.end(), [&](const SizedCall& d) {
      return d.kind == c.kind && d.dtype == c.dtype && d.op == c.op && d.bytes == c.bytes && d.split.kind == c.split.kind &&
             d.split.size == c.split.size && d.split.stride == c.split.stride;
    });
    if (!seen) distinct.push_back(c);
  }
  calls = std::move(distinct);
}

// --op over sizes from a workload, logs or listed calls: every reducing call in that one
// op (the mpi engine has no average), and a note for run.json.
void override_op(WorkloadCalls& calls, const std::vector<ReduceOp>& ops, const SizesSource& source,
                 std::vector<std::string>& notes) {
  if (ops.size() != 1) {
    throw UsageError("--op with sizes from " + std::string(name_of(source.kind)) +
                         " takes one op (it replaces every reducing call's own)",
                     "give one, e.g. --op sum, or leave --op out to measure each call in its own op", source.where);
  }
  const ReduceOp op = ops.front();
  std::set<std::string> replaced;
  for (SizedCall& c : calls.calls) {
    if (!c.kind->reduces || c.op == op) continue;
    replaced.insert(std::string(name_of(c.op)));
    c.op = op;
  }
  keep_distinct(calls.calls);
  if (replaced.empty()) return;
  const std::string names = join_text(replaced);
  notes.push_back("--op " + std::string(name_of(op)) + " replaces the reducing calls' own op (" + names + ")");
}

// --dtype over sizes from a workload, logs or listed calls: every call in that one dtype,
// its total bytes kept (the elements follow), and a note for run.json.
void override_dtype(WorkloadCalls& calls, const std::vector<const DataType*>& dtypes, const SizesSource& source,
                    std::vector<std::string>& notes) {
  if (dtypes.size() != 1) {
    throw UsageError("--dtype with sizes from " + std::string(name_of(source.kind)) +
                         " takes one dtype (it replaces every call's own)",
                     "give one, e.g. --dtype float32, or leave --dtype out to measure each call in its own dtype",
                     source.where);
  }
  const DataType* dtype = dtypes.front();
  std::set<std::string> replaced;
  for (SizedCall& c : calls.calls) {
    if (c.dtype != dtype) replaced.insert(std::string(c.dtype->name));
    c.dtype = dtype;
  }
  keep_distinct(calls.calls);
  for (WorkloadCall& c : calls.weights.calls) c.dtype = dtype;
  if (replaced.empty()) return;
  const std::string names = join_text(replaced);
  notes.push_back("--dtype " + std::string(dtype->name) + " replaces the calls' own dtype (" + names +
                  "): each call keeps its bytes, in " + std::string(dtype->name) + " elements");
}

// Groups and workload-derived sizes: what they make of the spec on this many ranks.
void plan_groups(const RunFlags& flags, const Sweep* sweep, const RankLayout& layout, LaunchRequest& request,
                 std::vector<std::string>& notes) {
  const std::optional<CommSplitRequest> groups = requested_groups(sweep, flags.groups);
  if (sweep && sweep->sizes_from && !flags.measurements.sizes) {
    const SizesInput input = load_sizes_source(*sweep->sizes_from, flags.sweep_file, flags.models_dir);
    WorkloadCalls calls = plan_workload_calls(input, groups, request.spec.dtypes, layout.ranks, layout.per_node);
    if (flags.measurements.dtypes) override_dtype(calls, request.spec.dtypes, *sweep->sizes_from, notes);
    if (flags.measurements.ops) override_op(calls, request.spec.ops, *sweep->sizes_from, notes);
    request.spec.calls = std::move(calls.calls);
    request.workload = std::move(calls.weights);
    notes.insert(notes.end(), calls.notes.begin(), calls.notes.end());
    return;
  }
  request.spec.split = grid_split(groups, layout.ranks, layout.per_node);
}

// --search / the sweep's search: the candidates, their bands and the decision rules.
// The budget check runs here, on every rank alike, so a budget too small is a usage
// error before anything is measured.
std::optional<SearchRequest> plan_search(const RunFlags& flags, SearchSpec search, const std::vector<SweepPoint>& points,
                                         int baseline, const LaunchRequest& request) {
  // --search grid measures the full grid in the search's rounds (interleaved, with the
  // search's statistics and testing aid), for a side-by-side; no search key: the plain run.
  if (!flags.search_method && search.method == SearchMethod::grid) return std::nullopt;
  if (flags.search_method) search.method = *flags.search_method;
  if (!flags.budget.empty()) search.budget = parse_search_budget(flags.budget, "--budget");
  if (!request.resume_dir.empty()) {
    throw UsageError("--resume cannot go on with a search: its rounds depend on every figure before",
                     "run the search again");
  }
  return plan_search_request(search, points, baseline, request.spec, request.plan);
}

}  // namespace

RunPlan plan_run(const RunFlags& flags, const RunInputs& inputs, const RankLayout& layout) {
  RunPlan planned;
  LaunchRequest& request = planned.request;
  request.output_dir = flags.output;
  request.results_root = flags.results_root;
  request.resume_dir = flags.resume_dir;
  request.force = flags.force;
  request.allow_shared_gpu = flags.allow_shared_gpu;
  request.corrupt_rank = flags.corrupt_rank;
  if (flags.corrupt_rank != -1 && (flags.corrupt_rank < 0 || flags.corrupt_rank >= layout.ranks)) {
    // Like --inject-fault: a corruption aimed at no rank would corrupt nothing and pass.
    throw UsageError("--inject-corrupt-rank names rank " + std::to_string(flags.corrupt_rank) +
                         ", but the run has ranks 0.." + std::to_string(layout.ranks - 1),
                     "name a rank below " + std::to_string(layout.ranks));
  }
  request.progress = flags.progress;

  const RunOverrides& given = flags.measurements;
  const RecommendedSettings* verify = inputs.verify;
  std::vector<std::string> notes;
  EngineCheckPlaces places;  // the sweep file's dtypes:/ops: lines, where it has them
  SearchSpec search;
  std::vector<ListedCall> listed;  // a sweep's sizes: {calls: [...]}, for refusals at their lines
  std::vector<SweepPoint> points{SweepPoint{0, "default", {}, 0, false}};
  int baseline = 0;
  // --env and --config make a sweep of their own when no file is given.
  const bool flag_axes = !flags.plan_options.env_axes.empty() || !flags.plan_options.config_axes.empty();
  const bool from_file = !flags.sweep_file.empty();
  if (!from_file && !flag_axes && !verify) {
    request.spec = spec_from_overrides(given);
    plan_groups(flags, nullptr, layout, request, notes);
  } else {
    const bool sizes_only = from_file && inputs.sweep_text.empty() && inputs.sizes;
    Sweep sweep = verify ? verification_sweep(*verify, flags.plan_options.context)
                         : load_sweep_text(from_file && !sizes_only ? inputs.sweep_text : std::string("{}"),
                                           from_file ? flags.sweep_file : std::string("(command line)"),
                                           flags.plan_options.context);
    if (inputs.sizes) sweep.sizes_from = inputs.sizes;
    if (from_file) {
      places = places_of(sweep, given.dtypes.has_value(), given.ops.has_value(), given.engine.has_value(),
                         given.root.has_value(), given.footprint.has_value());
    }
    if (from_file || (verify && verify->kind != RecommendedSettings::Kind::env)) {
      apply_overrides(given, sweep.measurements);
    } else {
      sweep.measurements = spec_from_overrides(given);  // every measurement flag, defaults included
    }
    // The engine known before the plan, so the sweep's own checks refuse env or config
    // axes on the mpi engine, at their line or flag.
    if (!given.engine && !sweep.measurements.engine) sweep.measurements.engine = default_engine();
    PlanOptions options = flags.plan_options;
    options.engine = given.engine;  // --engine over the sweep file's engine
    SweepPlan sweep_plan = plan_sweep(sweep, options);
    // Env and tuner recommendations are measured against NCCL's defaults, in fresh processes.
    if (verify && verify->kind != RecommendedSettings::Kind::sweep) sweep_plan = with_default_point(std::move(sweep_plan));
    request.spec = sweep_plan.measurements;
    // The sweep file's repeats, order and seed sit beside its measurements; a flag beats them.
    request.spec.repeats = given.repeats.value_or(sweep_plan.repeats);
    request.spec.order = given.order.value_or(sweep_plan.order);
    request.spec.seed = given.seed.value_or(sweep_plan.seed);
    plan_groups(flags, &sweep, layout, request, notes);
    request.groups = worker_groups(sweep_plan);
    request.baseline_point = sweep_plan.points[static_cast<std::size_t>(sweep_plan.baseline)].label;
    search = sweep.search;
    points = sweep_plan.points;
    baseline = sweep_plan.baseline;
    if (sweep.sizes_from && sweep.sizes_from->kind == SizesSourceKind::calls) listed = sweep.sizes_from->calls;
    planned.sweep = std::move(sweep_plan);
  }
  if (!request.spec.engine) request.spec.engine = default_engine();  // no sweep: the flags' engine or the build's
  const EngineKind engine = *request.spec.engine;
  check_engine_runs(request.spec, listed, engine, places);
  request.fault = planned_fault(flags, engine, layout.ranks, request.groups);
  const bool in_workers = engine != EngineKind::mpi || sets_variables(request.groups);
  request.plan = plan_measurements(request.spec, layout.ranks, places.sizes, places.root);
  if (in_workers) check_worker_plan_size(request.plan);
  if (engine == EngineKind::mpi) {
    check_rank_memory(request.plan, layout.ranks, layout.host_memory / static_cast<Bytes>(std::max(layout.most_on_a_host, 1)),
                      (layout.host_memory_what.empty() ? "this host's " + format_bytes(layout.host_memory) + " of memory"
                                                       : layout.host_memory_what) +
                          " shared by its " + std::to_string(layout.most_on_a_host) + " rank(s)",
                      places);
  }
  request.plan.notes.insert(request.plan.notes.end(), notes.begin(), notes.end());
  request.search = plan_search(flags, search, points, baseline, request);
  check_search_fault(request.fault, request.search);
  if (request.spec.compute) {
    const ComputeSite site = engine == EngineKind::mpi ? ComputeSite::cpu_analogue : ComputeSite::gpu;
    for (const std::string& note : under_compute_notes(site, layout.ranks)) request.plan.notes.push_back(note);
  }
  if (request.groups.empty()) request.groups = default_groups();
  return planned;
}

LaunchRequest build_run_plan(const RunFlags& flags, const RunInputs& inputs, const RankLayout& layout) {
  RunPlan planned = plan_run(flags, inputs, layout);
  check_engine(*planned.request.spec.engine);  // this build has it
  return std::move(planned.request);
}

}  // namespace ncclsweep
