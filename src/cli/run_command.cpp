// `ncclsweep run`: launched by mpirun or srun, one rank per GPU.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <fstream>
#include <set>
#include <sstream>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/data_dir.hpp"
#include "cli/probe_launch.hpp"
#include "cli/sweep_context.hpp"
#include "core/call_modes.hpp"
#include "core/errors.hpp"
#include "core/failure_report.hpp"
#include "core/input_file.hpp"
#include "core/repeat_order.hpp"
#include "core/run_options.hpp"
#include "core/utc_time.hpp"
#include "plan/engine_support.hpp"
#include "plan/measurement_plan.hpp"
#include "plan/sweep_estimate.hpp"
#include "plan/sweep_plan.hpp"
#include "search/search_grid.hpp"
#include "recommend/verification.hpp"
#include "report/overlap_report.hpp"
#include "results/results_directory.hpp"
#include "runtime/engine_registry.hpp"
#include "runtime/launch.hpp"
#include "runtime/mpi_session.hpp"
#include "plan/sweep_sizes.hpp"

namespace ncclsweep {
namespace {

struct RunArgs {
  bool probe = false;  // --probe: the platform probes before measuring (docs/probe.md)
  std::string collectives = "all_gather,reduce_scatter,all_reduce";
  std::string sizes = "1M:1G:x4";
  std::string dtypes = "float32";
  std::string ops = "sum";
  std::string buffers{name_of(BufferMode::cuda_malloc)};
  std::string launch{name_of(LaunchMode::stream)};
  std::string footprint{label_of(BufferFootprint{})};
  std::string cache{name_of(CacheState::warm)};
  int root = 0;
  int warmup = 5;
  int iters = 0;  // 0: noise-based stop
  StoppingRule stopping;
  int repeats = 1;
  RepeatOrder order = RepeatOrder::sequential;
  std::uint64_t seed = 0;
  int check = 1;
  std::string engine;
  std::string output;
  std::string name = "run";
  std::string results_root = "results";
  bool allow_shared_gpu = false;
  ProgressSetting progress = ProgressSetting::automatic;
  bool quiet = false;
  std::string resume_dir;
  bool force = false;
  std::string fault;
  int timeout_s = 0;
  int corrupt_rank = -1;
  std::string sweep_file;
  std::string with_compute;  // --with-compute gemm:MxNxK:dtype (docs/overlap.md)
  std::vector<std::string> env_axes;
  std::vector<std::string> config_axes;
  bool allow_unknown_values = false;  // values the NCCL tables do not know pass (a newer NCCL)
  Isolation isolation = Isolation::automatic;
  std::string groups;      // --groups: overrides the sweep file's groups
  std::string models_dir;  // for sizes from a workload
  std::string verify_file;   // --verify-recommendation: default against recommended
  std::string tuner_plugin;  // the libncclsweep-tuner.so a tuner CSV is verified with
  std::optional<SearchMethod> search_method;  // --search: overrides the sweep file's search.method
  std::string budget;         // --budget: overrides search.budget
  std::set<std::string> given;  // measurement flags given on the command line: they override the sweep file's
};

// Rank 0 reads the sweep file; every rank gets its text (only rank 0 needs the path).
std::string read_sweep_text(MpiSession& session, const std::string& path) {
  std::string text, error, fix = "check the path";
  if (session.rank() == 0) {
    try {
      text = read_input_file(path, kSettingsFileInput);
    } catch (const UsageError& e) {
      error = e.what();
      fix = e.fix();
    }
  }
  if (session.max_across_ranks(error.empty() ? 0 : 1) != 0) {
    throw UsageError(error.empty() ? "rank 0 cannot read the sweep file" : error, fix);
  }
  return session.broadcast_string(text);
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
  std::string listed;
  for (const auto& label : labels) listed += (listed.empty() ? "" : ", ") + label;
  throw UsageError("--inject-fault names point '" + fault.point + "', which this run does not have" +
                       did_you_mean(fault.point, labels),
                   "name one of: " + listed);
}

// The stopping and repeat flags: the sweep file has repeats/order/seed only.
void apply_measurement_flags(const RunArgs& args, RunSpec& spec) {
  spec.stopping = args.stopping;
  if (args.given.count("--repeats")) spec.repeats = args.repeats;
  if (args.given.count("--order")) spec.order = args.order;
  if (args.given.count("--seed")) spec.seed = args.seed;
  if (spec.stopping.min_iters > spec.stopping.max_iters) {
    throw UsageError("--min-iters " + std::to_string(spec.stopping.min_iters) + " is above --max-iters " +
                         std::to_string(spec.stopping.max_iters),
                     "make --min-iters at most --max-iters");
  }
}

// The sweep file's measurements, with the flags given on the command line on top.
void apply_flags(const RunArgs& args, RunSpec& spec) {
  if (args.given.count("--collectives")) spec.collectives = parse_collective_list(args.collectives);
  if (args.given.count("--sizes")) spec.sizes = parse_size_list(args.sizes);
  if (args.given.count("--dtype")) spec.dtypes = parse_dtype_list(args.dtypes);
  if (args.given.count("--op")) spec.ops = parse_op_list(args.ops);
  if (args.given.count("--buffers")) spec.buffer_modes = parse_buffer_mode_list(args.buffers);
  if (args.given.count("--launch")) spec.launch_modes = parse_launch_mode_list(args.launch);
  if (args.given.count("--buffer-footprint")) spec.footprints = parse_footprint_list(args.footprint);
  if (args.given.count("--cache")) spec.cache_states = parse_cache_state_list(args.cache);
  if (args.given.count("--root")) spec.root = args.root;
  if (args.given.count("--warmup")) spec.warmup = args.warmup;
  if (args.given.count("--iters")) spec.iters = args.iters;
  if (args.given.count("--check")) spec.check = args.check != 0;
  if (args.given.count("--name")) spec.name = args.name;
  apply_measurement_flags(args, spec);
  if (args.given.count("--timeout")) spec.timeout_s = args.timeout_s;
  if (!args.with_compute.empty()) spec.compute = parse_compute_load(args.with_compute);
}

RunSpec spec_from_args(const RunArgs& args) {
  RunSpec spec;
  spec.name = args.name;
  spec.collectives = parse_collective_list(args.collectives);
  spec.sizes = parse_size_list(args.sizes);
  spec.dtypes = parse_dtype_list(args.dtypes);
  spec.ops = parse_op_list(args.ops);
  spec.buffer_modes = parse_buffer_mode_list(args.buffers);
  spec.launch_modes = parse_launch_mode_list(args.launch);
  spec.footprints = parse_footprint_list(args.footprint);
  spec.cache_states = parse_cache_state_list(args.cache);
  spec.root = args.root;
  spec.warmup = args.warmup;
  spec.iters = args.iters;
  spec.check = args.check != 0;
  apply_measurement_flags(args, spec);
  spec.engine = args.engine.empty() ? std::string(available_engines().front()) : args.engine;
  spec.timeout_s = args.timeout_s;
  if (!args.with_compute.empty()) spec.compute = parse_compute_load(args.with_compute);
  return spec;
}

// Ranks per node when ranks sit in equal blocks per node (rank r on local rank
// r % n), else 0: intra-node and inter-node groups need that placement.
// `per_node`: the most ranks on any host (the highest local rank + 1).
int ranks_per_node(MpiSession& session, int per_node) {
  const bool block = session.max_across_ranks(session.local_rank() != session.rank() % per_node ? 1 : 0) == 0;
  return block && session.size() % per_node == 0 ? per_node : 0;
}

// Groups and workload-derived sizes: what they make of the spec on this many ranks.
void apply_groups(const RunArgs& args, const Sweep* sweep, int ranks, int per_node, LaunchRequest& request,
                  std::vector<std::string>& notes) {
  std::optional<CommSplitRequest> groups;
  if (sweep) groups = sweep->communicators;
  if (!args.groups.empty()) groups = parse_comm_split_request(args.groups, {"--groups", 0, 0});
  if (sweep && sweep->sizes_from && !args.given.count("--sizes")) {
    const SizesInput input = load_sizes_source(*sweep->sizes_from, args.sweep_file, models_directory(args.models_dir));
    WorkloadCalls calls = plan_workload_calls(input, groups, request.spec.dtypes, ranks, per_node);
    request.spec.calls = std::move(calls.calls);
    request.workload = std::move(calls.weights);
    notes.insert(notes.end(), calls.notes.begin(), calls.notes.end());
    return;
  }
  request.spec.split = grid_split(groups, ranks, per_node);
}

// --search / the sweep's search: the candidates, their bands and the decision rules.
// The budget check runs here, on every rank alike, so a budget too small is a usage
// error before anything is measured.
std::optional<SearchRequest> plan_search(const RunArgs& args, SearchSpec search, const std::vector<SweepPoint>& points,
                                         int baseline, const LaunchRequest& request) {
  // --search grid measures the full grid in the search's rounds (interleaved, with the
  // search's statistics and testing aid), for a side-by-side; no search key: the plain run.
  if (!args.search_method && search.method == SearchMethod::grid) return std::nullopt;
  if (args.search_method) search.method = *args.search_method;
  if (!args.budget.empty()) search.budget = parse_search_budget(args.budget, "--budget");
  if (!request.resume_dir.empty() || !args.resume_dir.empty()) {
    throw UsageError("--resume cannot go on with a search: its rounds depend on every figure before",
                     "run the search again");
  }
  return plan_search_request(search, points, baseline, request.spec, request.plan);
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
    std::string listed;
    for (const auto& label : labels) listed += (listed.empty() ? "" : ", ") + label;
    throw UsageError("--inject-fault names point '" + point + "', which this search does not have" +
                         did_you_mean(point, labels),
                     "name one of: " + listed);
  }
}

// libncclsweep-tuner.so next to this binary, where the build puts it.
std::string tuner_plugin_beside_binary() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : (self.parent_path() / "libncclsweep-tuner.so").string();
}

// --verify-recommendation: rank 0 judges the finished run; exit 1 when a band is slower.
int verify_after_run(MpiSession& session, const std::string& results_dir, const RecommendedSettings& verify) {
  int status = kExitOk;
  if (session.rank() == 0) {
    try {
      const VerificationReport report = check_verification(read_run_document(results_dir), verify.rules);
      std::fputs(report.text().c_str(), stdout);
      std::fflush(stdout);
      status = report.failed() ? kExitRegression : kExitOk;
    } catch (const UsageError& e) {
      print_error(e.message());
      status = kExitUsage;
    }
  }
  return session.max_across_ranks(status);
}

int run_launch_from_args(const RunArgs& args, CommandContext& context) {
  MpiSession session(&context.argc, &context.argv);
  const int most_on_a_host = session.max_across_ranks(session.local_rank()) + 1;
  const int per_node = ranks_per_node(session, most_on_a_host);
  LaunchRequest request;
  std::optional<RecommendedSettings> verify;
  std::vector<std::string> group_notes;
  // The spec and plan are the same on every rank, so every rank fails alike and exits.
  std::string error;
  EngineCheckPlaces engine_places;  // the sweep file's dtypes:/ops: lines, where it has them
  try {
    // --env and --config make a sweep of their own when no file is given.
    const bool flag_axes = !args.env_axes.empty() || !args.config_axes.empty();
    if (!args.verify_file.empty()) {
      verify = read_recommendation(args.verify_file, args.tuner_plugin.empty() ? tuner_plugin_beside_binary() : args.tuner_plugin);
    }
    SearchSpec search;
    std::vector<SweepPoint> search_points{SweepPoint{0, "default", {}, 0, false}};
    int search_baseline = 0;
    if (args.sweep_file.empty() && !flag_axes && !verify) {
      request.spec = spec_from_args(args);
      apply_groups(args, nullptr, session.size(), per_node, request, group_notes);
    } else {
      std::string version_note;
      const PlanOptions options =
          sweep_plan_options(args.isolation, args.engine, args.env_axes, args.config_axes,
                         args.allow_unknown_values, version_note);
      const bool from_file = !args.sweep_file.empty();
      Sweep sweep = load_sweep_text(verify      ? verification_sweep_text(*verify)
                                    : from_file ? read_sweep_text(session, args.sweep_file)
                                                : std::string("{}"),
                                    verify ? args.verify_file : from_file ? args.sweep_file : std::string("(command line)"),
                                    options.context);
      if (from_file) {
        engine_places = places_of(sweep, args.given.count("--dtype") > 0, args.given.count("--op") > 0, !args.engine.empty());
      }
      if (from_file || (verify && verify->kind != RecommendedSettings::Kind::env)) {
        apply_flags(args, sweep.measurements);
      } else {
        sweep.measurements = spec_from_args(args);  // every measurement flag, defaults included
      }
      SweepPlan sweep_plan = plan_sweep(sweep, options);
      // Env and tuner recommendations are measured against NCCL's defaults, in fresh processes.
      if (verify && verify->kind != RecommendedSettings::Kind::sweep) sweep_plan = with_default_point(std::move(sweep_plan));
      request.spec = sweep_plan.measurements;
      if (!args.given.count("--repeats")) request.spec.repeats = sweep_plan.repeats;
      if (!args.given.count("--order")) request.spec.order = sweep_plan.order;
      if (!args.given.count("--seed")) request.spec.seed = sweep_plan.seed;
      if (request.spec.engine.empty()) request.spec.engine = std::string(available_engines().front());
      const bool has_settings = std::any_of(sweep_plan.points.begin(), sweep_plan.points.end(),
                                            [](const SweepPoint& p) { return !p.settings.empty(); });
      if (parse_engine(request.spec.engine) == EngineKind::mpi && has_settings) {
        throw UsageError("the mpi engine cannot apply NCCL settings or communicator config",
                         "drop the env/config axes, or use --engine nccl");
      }
      apply_groups(args, &sweep, session.size(), per_node, request, group_notes);
      request.groups = worker_groups(sweep_plan);
      request.baseline_point = sweep_plan.points[static_cast<std::size_t>(sweep_plan.baseline)].label;
      search = sweep.search;
      search_points = sweep_plan.points;
      search_baseline = sweep_plan.baseline;
    }
    check_engine(request.spec.engine);
    check_engine_support(request.spec, parse_engine(request.spec.engine), engine_places);
    if (!args.fault.empty()) {
      request.fault = parse_fault_injection(args.fault);
      if (request.fault.action == FaultAction::cpu_hog && !args.probe) {
        throw UsageError("--inject-fault cpu-hog disturbs the probes, not the measurements", "add --probe");
      }
      if (parse_engine(request.spec.engine) == EngineKind::mpi && request.fault.action == FaultAction::skip) {
        throw UsageError("--inject-fault skip needs the nccl engine (its workers have deadlines; the mpi engine "
                         "would wait forever)",
                         "use sleep=SECONDS, exit or kill with --engine mpi");
      }
      check_fault_target(request.fault, session.size(), request.groups);
      if (parse_engine(request.spec.engine) != EngineKind::mpi && request.fault.action == FaultAction::slow) {
        throw UsageError("--inject-fault slow=FACTOR needs the mpi engine (it repeats each call on the CPU fabric)",
                         "add --engine mpi, or use locate's --inject-fault on the GPU machine");
      }
    }
    if (parse_engine(request.spec.engine) == EngineKind::mpi && args.given.count("--timeout")) {
      group_notes.push_back("--timeout bounds nothing under --engine mpi (the ranks measure in-process, with no "
                            "watchdog): bound the whole run with the scheduler's time limit instead");
    }
    request.plan = plan_measurements(request.spec, session.size());
    if (parse_engine(request.spec.engine) == EngineKind::mpi) {
      const Bytes memory = host_memory_bytes();
      check_rank_memory(request.plan, session.size(), memory / static_cast<Bytes>(most_on_a_host),
                        "this host's " + format_bytes(memory) + " of memory shared by its " +
                            std::to_string(most_on_a_host) + " rank(s)",
                        engine_places);
    }
    request.plan.notes.insert(request.plan.notes.end(), group_notes.begin(), group_notes.end());
    request.search = plan_search(args, search, search_points, search_baseline, request);
    check_search_fault(request.fault, request.search);
    if (request.spec.compute) {
      const ComputeSite site = parse_engine(request.spec.engine) == EngineKind::mpi ? ComputeSite::cpu_analogue : ComputeSite::gpu;
      for (const std::string& note : under_compute_notes(site, session.size())) request.plan.notes.push_back(note);
    }
  } catch (const UsageError& e) {
    error = e.message();
  }
  // Files a workload names are read on every rank: all stop together if any cannot.
  if (session.max_across_ranks(error.empty() ? 0 : 1) != 0) {
    if (session.rank() == 0) {
      print_error(error.empty() ? std::string("another rank could not plan the run") : error);
    }
    return kExitUsage;
  }
  if (request.groups.empty()) request.groups = default_groups();
  request.output_dir = args.output;
  if ((verify || args.probe) && request.output_dir.empty()) {
    // The check afterwards reads the run's directory: fix its name now, on every rank alike.
    request.output_dir = session.broadcast_string(
        session.rank() == 0
            ? default_results_dir(args.results_root, request.spec.name, compact_utc(std::chrono::system_clock::now())).string()
            : std::string());
  }
  request.results_root = args.results_root;
  request.allow_shared_gpu = args.allow_shared_gpu;
  request.resume_dir = args.resume_dir;
  request.force = args.force;
  request.corrupt_rank = args.corrupt_rank;
  request.progress = args.quiet ? ProgressSetting::off : args.progress;
  request.command_line = {context.argv, context.argv + context.argc};
  request.envp = context.envp;
  std::optional<probe::ProbeDocument> probed;
  if (args.probe) {
    probe::ProbeOptions options = probe::ProbeOptions::quick();
    options.gpu = parse_engine(request.spec.engine) != EngineKind::mpi;
    probed = probe_every_rank(session, options, request.fault, context.argc, context.argv);
    request.fault = FaultInjection{};  // cpu-hog is over with the probes
  }
  const int status = run_launch(session, request);
  if (probed) write_and_print_probe(*probed, (std::filesystem::path(request.output_dir) / "probe").string());
  if (!verify || status != kExitOk) return status;
  return verify_after_run(session, request.output_dir, *verify);
}

}  // namespace

void add_run_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand("run", "Measure collectives (launch with mpirun or srun, one rank per GPU)");
  run->add_option("sweep", args->sweep_file, "Sweep file (docs/sweep-files.md); the flags below override its keys");
  run->add_option("--env", args->env_axes, "VAR=v1,v2: add or replace an env axis (repeatable)")->allow_extra_args(false);
  run->add_option("--config", args->config_axes, "field=v1,v2: add or replace an ncclConfig_t axis (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--verify-recommendation", args->verify_file,
                  "Measure NCCL's defaults against FILE from `recommend` (env, nccl-tuner or yaml) in one launch; "
                  "exit 1 when a recommended band is slower beyond noise (docs/recommend.md)");
  run->add_option("--tuner-plugin", args->tuner_plugin,
                  "libncclsweep-tuner.so that verifies a tuner CSV (default: the one beside this binary)");
  run->add_flag("--allow-unknown-values", args->allow_unknown_values,
                  "Pass env and config values the NCCL tables do not know (a newer NCCL); as the sweep file's "
                  "allow_unknown_values: true");
  add_choice(*run, "--isolation", args->isolation, kIsolationNames,
             "auto: a fresh worker per group where settings need one; reinit: re-initialise in one process "
             "(process-cached settings are then reported as mismatch)");
  run->add_option("--collectives,-c", args->collectives,
                  "Comma list: all_gather, reduce_scatter, all_reduce, broadcast, reduce, alltoall, sendrecv, or all")
      ->capture_default_str();
  run->add_option("--sizes,-s", args->sizes,
                  "Total sizes (nccl-tests convention): 1M,64M  1M:4G:x4  1K:8K:+1K; K M G T = 1024^n, KB MB GB = 1000^n")
      ->capture_default_str();
  run->add_option("--dtype,--dtypes,-d", args->dtypes,
                  "Comma list: int8 uint8 int32 uint32 int64 uint64 float16 float32 float64 bfloat16 fp8_e4m3 fp8_e5m2")
      ->capture_default_str();
  run->add_option("--op,--ops", args->ops, "Comma list of reduction ops: sum prod max min avg")->capture_default_str();
  run->add_option("--buffers", args->buffers,
                  "Comma list of buffer modes (nccl engine): cuda-malloc, nccl-register (ncclMemAlloc + "
                  "ncclCommRegister), nccl-window (symmetric window, NCCL 2.27+)")
      ->capture_default_str();
  run->add_option("--launch", args->launch,
                  "Comma list of launch modes (nccl engine): stream, graph (CUDA graph replay, like nccl-tests -G), "
                  "blocking (wait for each call, like nccl-tests -z 1)")
      ->capture_default_str();
  run->add_option("--buffer-footprint", args->footprint,
                  "Comma list: largest (one allocation at the run's largest size, calls rotated through it, as "
                  "nccl-tests), exact (buffers of each size, offset 0), or a size such as 8G (that allocation)")
      ->capture_default_str();
  run->add_option("--cache", args->cache,
                  "Comma list: warm (calls back to back), flush (the L2 cache evicted before every timed sample, "
                  "outside the timing)")
      ->capture_default_str();
  run->add_option("--root", args->root, "Root rank of broadcast and reduce")->capture_default_str();
  run->add_option("--warmup,-w", args->warmup, "Untimed iterations per size")
      ->check(finite_range(0, 1000000))
      ->capture_default_str();
  run->add_option("--iters,-n", args->iters,
                  "Timed iterations per size, a fixed count; default: until the noise target below is met")
      ->check(finite_range(1, 1000000));
  run->add_option("--target-spread", args->stopping.target_spread,
                  "Noise-based stop: relative standard error of the mean iteration time to reach")
      ->check(finite_range(0.0, 1.0))
      ->capture_default_str();
  run->add_option("--min-iters", args->stopping.min_iters, "Noise-based stop: at least this many timed iterations")
      ->check(finite_range(2, 1000000))
      ->capture_default_str();
  run->add_option("--max-iters", args->stopping.max_iters, "Noise-based stop: at most this many timed iterations")
      ->check(finite_range(2, 1000000))
      ->capture_default_str();
  run->add_option("--min-time", args->stopping.min_seconds, "Noise-based stop: at least this many seconds timed per size")
      ->check(finite_range(0.0, 3600.0))
      ->capture_default_str();
  run->add_option("--max-time", args->stopping.max_seconds, "Noise-based stop: at most this many seconds timed per size")
      ->check(finite_range(0.0, 3600.0))
      ->capture_default_str();
  run->add_option("--repeats", args->repeats, "Measure everything this many times, each repeat recorded separately")
      ->check(finite_range(1, 10000))
      ->capture_default_str();
  add_choice(*run, "--order", args->order, kRepeatOrderNames,
             "Order of the repeats over points (sizes for one point): sequential, interleaved or shuffled");
  run->add_option("--seed", args->seed, "Seed of --order shuffled")->capture_default_str();
  run->add_option("--check", args->check, "1: verify every output element once per size; 0: do not")
      ->check(CLI::IsMember({0, 1}))
      ->capture_default_str();
  run->add_option("--engine", args->engine, "nccl (GPU; the default when built) or mpi (host buffers)");
  CLI::Option* output = run->add_option("--output,-o", args->output, "Results directory (default results/<name>/<UTC time>/)");
  run->add_option("--name", args->name, "Run name, used in the default results directory")->capture_default_str();
  run->add_option("--results-root", args->results_root, "Where default results directories go")
      ->capture_default_str();
  run->add_option("--groups", args->groups,
                  "Sub-communicators, all at once: intra-node, inter-node, stride:K, size:N, world, workload, or a "
                  "workload group dp|tp|cp|ep|pp (docs/groups.md)");
  run->add_option("--models-dir", args->models_dir, "Model catalog for sizes from a workload (default configs/models)");
  run->add_option("--resume", args->resume_dir,
                  "Go on with the run in DIR (stopped or killed): skip the measurements its records.jsonl holds; "
                  "give the same sweep and flags")
      ->excludes(output);
  run->add_flag("--force", args->force, "With --resume: go on even though the sweep or rank layout changed");
  run->add_option("--timeout", args->timeout_s,
                  "Seconds each communicator init and each size may take (nccl engine); default scales with size")
      ->check(finite_range(1, 604800));
  run->add_option("--with-compute", args->with_compute,
                  "Also measure each collective beside a GEMM kept running: gemm:MxNxK:DTYPE, e.g. "
                  "gemm:8192x8192x8192:bf16 (cuBLAS; the mpi engine runs a CPU analogue) (docs/overlap.md)");
  run->add_option("--inject-fault", args->fault,
                  "Testing aid: RANK:sleep=SECONDS|exit|kill|skip|slow=FACTOR[@POINT] (docs/reliability.md), or slow=F@POINT: "
                  "every rank repeats POINT's timed calls F times (docs/search.md); RANK:cpu-hog with --probe (docs/probe.md)");
  run->add_flag("--probe", args->probe,
                "Run ncclsweep probe's probes (--quick) on every rank before measuring; kept in the run's probe/ folder");
  add_choice(*run, "--search", args->search_method, kSearchMethodNames,
             "Search instead of the full grid: racing (successive elimination per size band) or coordinate "
             "(one axis at a time); grid measures every point (docs/search.md)");
  run->add_option("--budget", args->budget,
                  "With --search: a share of the full grid's measurements (0.33) or a duration (20m)");
  run->add_flag("--allow-shared-gpu", args->allow_shared_gpu, "Allow two ranks on one GPU (results are then shared)");
  add_choice(*run, "--progress", args->progress, kProgressSettingNames,
             "Progress on rank 0: live (one line redrawn on a terminal), lines (a plain line per point), "
             "off, or auto (live on a terminal, else lines)");
  run->add_flag("--quiet,-q", args->quiet, "No progress output (--progress off); the table and summary still print");
  run->add_option("--inject-corrupt-rank", args->corrupt_rank,
                  "Testing aid: this rank corrupts one output element before each check");
  run->callback(
      [args, run, &chosen] {
        for (const char* flag : {"--collectives", "--sizes", "--dtype", "--op", "--root", "--warmup", "--iters",
                                 "--check", "--name", "--repeats", "--order", "--seed", "--timeout", "--buffers",
                                 "--launch", "--buffer-footprint", "--cache"}) {
          if (run->count(flag) > 0) args->given.insert(flag);
        }
        chosen = [args](CommandContext& context) { return run_launch_from_args(*args, context); };
      });
}

}  // namespace ncclsweep
