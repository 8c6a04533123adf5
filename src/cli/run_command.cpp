// `ncclsweep run`: launched by mpirun or srun, one rank per GPU.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "core/errors.hpp"
#include "core/utc_time.hpp"
#include "ncclsweep_version.hpp"
#include "plan/measurement_plan.hpp"
#include "report/summary_file.hpp"
#include "report/terminal_table.hpp"
#include "results/results_directory.hpp"
#include "runtime/engine_registry.hpp"
#include "runtime/measurement_loop.hpp"
#include "runtime/mpi_session.hpp"
#include "runtime/rank_environment.hpp"

namespace ncclsweep {
namespace {

struct RunArgs {
  std::string collectives = "all_gather,reduce_scatter,all_reduce";
  std::string sizes = "1M:1G:x4";
  std::string dtypes = "float32";
  std::string ops = "sum";
  int root = 0;
  int warmup = 5;
  int iters = 20;
  int check = 1;
  std::string engine;
  std::string output;
  std::string name = "run";
  std::string results_root = "results";
  bool allow_shared_gpu = false;
  int corrupt_rank = -1;
};

RunSpec spec_from_args(const RunArgs& args) {
  RunSpec spec;
  spec.name = args.name;
  spec.collectives = parse_collective_list(args.collectives);
  spec.sizes = parse_size_list(args.sizes);
  spec.dtypes = parse_dtype_list(args.dtypes);
  spec.ops = parse_op_list(args.ops);
  spec.root = args.root;
  spec.warmup = args.warmup;
  spec.iters = args.iters;
  spec.check = args.check != 0;
  spec.engine = args.engine.empty() ? std::string(available_engines().front()) : args.engine;
  return spec;
}

std::vector<std::string> command_line(const CommandContext& context) {
  return {context.argv, context.argv + context.argc};
}

// Prints a failure once: rank 0 speaks for errors every rank shares; any other rank
// only for its own.
void report_failure(const MpiSession& session, const std::string& message, bool every_rank_has_it) {
  if (every_rank_has_it && session.rank() != 0) return;
  if (session.rank() == 0 && every_rank_has_it) {
    std::fprintf(stderr, "ncclsweep: error: %s\n", message.c_str());
  } else {
    std::fprintf(stderr, "ncclsweep: error on rank %d (%s): %s\n", session.rank(), session.host().c_str(),
                 message.c_str());
  }
}

int run_launch(const RunArgs& args, CommandContext& context) {
  const auto start = std::chrono::system_clock::now();
  MpiSession session(&context.argc, &context.argv);
  const bool leader = session.rank() == 0;

  // Spec and plan are the same on every rank, so every rank fails alike and exits.
  RunSpec spec;
  MeasurementPlan plan;
  try {
    spec = spec_from_args(args);
    plan = plan_measurements(spec, session.size());
  } catch (const UsageError& e) {
    report_failure(session, e.message(), true);
    return kExitUsage;
  }

  // Set-up can fail on one rank alone (no GPU, an unwritable directory); the ranks
  // agree on the outcome before anyone waits in a collective.
  std::unique_ptr<Engine> engine;
  SinkFanout sinks;
  std::string results_dir;
  int local_status = kExitOk;
  std::string local_error;
  try {
    engine = make_engine(spec.engine, session);
    for (const auto& planned : plan.calls) {
      const std::string reason = engine->unsupported_reason(planned.call);
      if (!reason.empty()) throw UsageError(reason);
    }
    if (leader) {
      sinks.add(make_terminal_table(stdout));
      results_dir = !args.output.empty() ? args.output
                                                    : default_results_dir(args.results_root, spec.name,
                                                                          compact_utc(start))
                                                          .string();
      sinks.add(make_results_directory(results_dir));
      sinks.add(make_summary_file(results_dir));
    }
  } catch (const UsageError& e) {
    local_status = kExitUsage;
    local_error = e.message();
  } catch (const RuntimeFailure& e) {
    local_status = kExitRuntime;
    local_error = e.call() + " failed: " + e.what();
  }
  const int setup_status = session.max_across_ranks(local_status);
  if (setup_status != kExitOk) {
    if (local_status != kExitOk) report_failure(session, local_error, false);
    return setup_status;
  }

  const std::vector<RankEntry> ranks = gather_rank_entries(session, engine->device(), context.envp);
  std::vector<std::string> conflicts = leader ? shared_gpu_conflicts(ranks) : std::vector<std::string>{};
  if (session.max_across_ranks(!conflicts.empty() && !args.allow_shared_gpu ? 1 : 0) != 0) {
    if (leader) {
      report_failure(session,
                     conflicts.front() + " (" + std::to_string(conflicts.size()) + " conflict(s))" +
                         "\n  fix: give each rank its own GPU (one rank per GPU), or pass --allow-shared-gpu",
                     true);
    }
    return kExitUsage;
  }

  RunDocument run;
  if (leader) {
    run.name = spec.name;
    run.status = "incomplete";
    run.command_line = command_line(context);
    run.start_time = iso_utc(start);
    const DeviceDescription device = engine->device();
    run.versions = {NCCLSWEEP_VERSION,           NCCLSWEEP_GIT_SHA,          device.driver_version,
                    device.cuda_runtime_version, device.nccl_header_version, device.nccl_library_version,
                    session.library_version()};
    run.settings = {spec.engine, spec.warmup, spec.iters, spec.check};
    run.hosts = distinct_hosts(ranks);
    run.ranks = ranks;
    run.notes = plan.notes;
    if (!conflicts.empty()) run.notes.push_back("--allow-shared-gpu: " + conflicts.front());
    sinks.begin(run);
  }

  const LoopOptions options{spec.warmup, spec.iters, spec.check, args.corrupt_rank};
  std::vector<MeasurementRecord> records;
  try {
    records = measure_plan(plan, options, *engine, session, leader ? &sinks : nullptr);
  } catch (const UsageError& e) {
    report_failure(session, e.message(), false);
    session.abort(kExitUsage);
  } catch (const RuntimeFailure& e) {
    // Other ranks may be waiting inside a collective: end them all.
    std::fprintf(stderr, "ncclsweep: error: %s\n", e.message(session.rank(), session.host()).c_str());
    session.abort(kExitRuntime);
  }

  std::uint64_t wrong = 0;
  for (const auto& r : records) wrong += r.wrong.value_or(0);
  if (leader) {
    run.records = std::move(records);
    run.status = "complete";
    run.end_time = iso_utc(std::chrono::system_clock::now());
    sinks.finish(run);
    std::printf("# results: %s\n", results_dir.c_str());
    if (wrong > 0) {
      std::fprintf(stderr, "ncclsweep: error: %llu output elements held wrong values (see #wrong)\n",
                   static_cast<unsigned long long>(wrong));
    }
  }
  return wrong > 0 ? kExitRuntime : kExitOk;
}

}  // namespace

void add_run_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand("run", "Measure collectives (launch with mpirun or srun, one rank per GPU)");
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
  run->add_option("--root", args->root, "Root rank of broadcast and reduce")->capture_default_str();
  run->add_option("--warmup,-w", args->warmup, "Untimed iterations per size")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  run->add_option("--iters,-n", args->iters, "Timed iterations per size")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  run->add_option("--check", args->check, "1: verify every output element once per size; 0: do not")
      ->check(CLI::IsMember({0, 1}))
      ->capture_default_str();
  run->add_option("--engine", args->engine, "nccl (GPU; the default when built) or mpi (host buffers)");
  run->add_option("--output,-o", args->output, "Results directory (default results/<name>/<UTC time>/)");
  run->add_option("--name", args->name, "Run name, used in the default results directory")->capture_default_str();
  run->add_option("--results-root", args->results_root, "Where default results directories go")
      ->capture_default_str();
  run->add_flag("--allow-shared-gpu", args->allow_shared_gpu, "Allow two ranks on one GPU (results are then shared)");
  run->add_option("--inject-corrupt-rank", args->corrupt_rank,
                  "Testing aid: this rank corrupts one output element before each check");
  run->callback([args, &chosen] { chosen = [args](CommandContext& context) { return run_launch(*args, context); }; });
}

}  // namespace ncclsweep
