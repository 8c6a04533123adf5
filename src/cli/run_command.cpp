// `ncclsweep run`: launched by mpirun or srun, one rank per GPU. This file parses flags
// into a RunFlags, runtime/run_entry.cpp plans and runs the launch (its tables stream as
// it measures), and rank 0 shows here what the launch leaves: --probe's figures and
// --verify-recommendation's verdict.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/data_dir.hpp"
#include "cli/sweep_context.hpp"
#include "core/buffer_footprint.hpp"
#include "core/call_modes.hpp"
#include "core/repeat_order.hpp"
#include "transport/mpi_session.hpp"
#include "report/probe_results.hpp"
#include "runtime/probe_launch.hpp"
#include "runtime/run_entry.hpp"

namespace ncclsweep {
namespace {

// What CLI11 binds to; turned into a RunFlags once parsing is done.
struct RunArgs {
  RunFlags flags;
  std::vector<std::string> env_axes, config_axes;
  bool allow_unknown_values = false;
  Isolation isolation = Isolation::automatic;
  bool quiet = false;
  std::optional<int> check;  // --check 0|1
};

int run_from_args(const RunArgs& args, CommandContext& context) {
  MpiSession session(&context.argc, &context.argv);
  RunFlags flags = args.flags;
  std::string version_note;  // `plan` prints it; a run's records carry the NCCL it ran with
  flags.plan_options = sweep_plan_options(args.isolation, flags.measurements.engine, args.env_axes, args.config_axes,
                                          args.allow_unknown_values, version_note);
  if (args.check) flags.measurements.check = *args.check != 0;
  if (args.quiet) flags.progress = ProgressSetting::off;
  flags.models_dir = models_directory(flags.models_dir);
  const RunOutcome outcome = run_run_launch(session, flags, {context.argv, context.argv + context.argc}, context.envp);
  print_launch_error(outcome);
  if (outcome.result) {
    const RunAfterwards& afterwards = *outcome.result;
    if (afterwards.probe) print_probe_results(*afterwards.probe, afterwards.probe_directory, std::cout);
    if (afterwards.verification) std::cout << afterwards.verification->text() << std::flush;
  }
  return outcome.status;
}

}  // namespace

void add_run_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run = add_command(app, chosen, args, "run", "Measure collectives (launch with mpirun or srun, one rank per GPU)",
                               run_from_args);
  run->add_option("sweep", args->flags.sweep_file, "Sweep file (docs/sweep-files.md); the flags below override its keys");
  run->add_option("--env", args->env_axes, "VAR=v1,v2: add or replace an env axis (repeatable)")->allow_extra_args(false);
  run->add_option("--config", args->config_axes, "field=v1,v2: add or replace an ncclConfig_t axis (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--verify-recommendation", args->flags.verify_file,
                  "Measure NCCL's defaults against FILE from `recommend` (env, nccl-tuner or yaml) in one launch; "
                  "exit 1 when a recommended band is slower beyond noise (docs/recommend.md)");
  run->add_option("--tuner-plugin", args->flags.tuner_plugin,
                  "libncclsweep-tuner.so that verifies a tuner CSV (default: the one beside this binary)");
  run->add_flag("--allow-unknown-values", args->allow_unknown_values,
                  "Pass env and config values the NCCL tables do not know (a newer NCCL); as the sweep file's "
                  "allow_unknown_values: true");
  add_choice(*run, "--isolation", args->isolation, kIsolationNames,
             "auto: a fresh worker per group where settings need one; reinit: re-initialise in one process "
             "(process-cached settings are then reported as mismatch)");
  run->add_option("--collectives,-c", args->flags.measurements.collectives,
                  "Comma list: all_gather, reduce_scatter, all_reduce, broadcast, reduce, alltoall, sendrecv, or all")
      ->default_str(kDefaultCollectives);
  run->add_option("--sizes,-s", args->flags.measurements.sizes,
                  "Total sizes (nccl-tests convention): 1M,64M  1M:4G:x4  1K:8K:+1K; K M G T = 1024^n, KB MB GB = 1000^n")
      ->default_str(kDefaultSizes);
  run->add_option("--dtype,--dtypes,-d", args->flags.measurements.dtypes,
                  "Comma list: int8 uint8 int32 uint32 int64 uint64 float16 float32 float64 bfloat16 fp8_e4m3 fp8_e5m2")
      ->default_str(kDefaultDtypes);
  run->add_option("--op,--ops", args->flags.measurements.ops, "Comma list of reduction ops: sum prod max min avg")->default_str(kDefaultOps);
  run->add_option("--buffers", args->flags.measurements.buffers,
                  "Comma list of buffer modes (nccl engine): cuda-malloc, nccl-register (ncclMemAlloc + "
                  "ncclCommRegister), nccl-window (symmetric window, NCCL 2.27+)")
      ->default_str(std::string(name_of(BufferMode::cuda_malloc)));
  run->add_option("--launch", args->flags.measurements.launch,
                  "Comma list of launch modes (nccl engine): stream, graph (CUDA graph replay, like nccl-tests -G), "
                  "blocking (wait for each call, like nccl-tests -z 1)")
      ->default_str(std::string(name_of(LaunchMode::stream)));
  run->add_option("--buffer-footprint", args->flags.measurements.footprint,
                  "Comma list: largest (one allocation at the run's largest size, calls rotated through it, as "
                  "nccl-tests), exact (buffers of each size, offset 0), or a size such as 8G (that allocation)")
      ->default_str(label_of(BufferFootprint{}));
  run->add_option("--cache", args->flags.measurements.cache,
                  "Comma list: warm (calls back to back), flush (the L2 cache evicted before every timed sample, "
                  "outside the timing)")
      ->default_str(std::string(name_of(CacheState::warm)));
  run->add_option("--root", args->flags.measurements.root, "Root rank of broadcast and reduce")->default_str(std::to_string(RunSpec{}.root));
  run->add_option("--warmup,-w", args->flags.measurements.warmup, "Untimed iterations per size")
      ->check(finite_range(0, 1000000))
      ->default_str(std::to_string(RunSpec{}.warmup));
  run->add_option("--iters,-n", args->flags.measurements.iters,
                  "Timed iterations per size, a fixed count; default: until the noise target below is met")
      ->check(finite_range(1, 1000000));
  run->add_option("--target-spread", args->flags.measurements.stopping.target_spread,
                  "Noise-based stop: relative standard error of the mean iteration time to reach")
      ->check(finite_range(0.0, 1.0))
      ->capture_default_str();
  run->add_option("--min-iters", args->flags.measurements.stopping.min_iters, "Noise-based stop: at least this many timed iterations")
      ->check(finite_range(2, 1000000))
      ->capture_default_str();
  run->add_option("--max-iters", args->flags.measurements.stopping.max_iters, "Noise-based stop: at most this many timed iterations")
      ->check(finite_range(2, 1000000))
      ->capture_default_str();
  run->add_option("--min-time", args->flags.measurements.stopping.min_seconds, "Noise-based stop: at least this many seconds timed per size")
      ->check(finite_range(0.0, 3600.0))
      ->capture_default_str();
  run->add_option("--max-time", args->flags.measurements.stopping.max_seconds, "Noise-based stop: at most this many seconds timed per size")
      ->check(finite_range(0.0, 3600.0))
      ->capture_default_str();
  run->add_option("--repeats", args->flags.measurements.repeats, "Measure everything this many times, each repeat recorded separately")
      ->check(finite_range(1, 10000))
      ->default_str(std::to_string(RunSpec{}.repeats));
  add_choice(*run, "--order", args->flags.measurements.order, kRepeatOrderNames,
             "Order of the repeats over points (sizes for one point): sequential, interleaved or shuffled")
      ->default_str(std::string(kRepeatOrderNames.name(RunSpec{}.order)));
  run->add_option("--seed", args->flags.measurements.seed, "Seed of --order shuffled")->default_str(std::to_string(RunSpec{}.seed));
  run->add_option("--check", args->check, "1: verify every output element once per size; 0: do not")
      ->check(CLI::IsMember({0, 1}))
      ->default_str(RunSpec{}.check ? "1" : "0");
  add_choice(*run, "--engine", args->flags.measurements.engine, kEngineNames,
             "nccl (GPU; the default when built) or mpi (host buffers)");
  CLI::Option* output = run->add_option("--output,-o", args->flags.output, "Results directory (default results/<name>/<UTC time>/)");
  run->add_option("--name", args->flags.measurements.name, "Run name, used in the default results directory")->default_str(kDefaultRunName);
  run->add_option("--results-root", args->flags.results_root, "Where default results directories go")
      ->capture_default_str();
  run->add_option("--groups", args->flags.groups,
                  "Sub-communicators, all at once: intra-node, inter-node, stride:K, size:N, world, workload, or a "
                  "workload group dp|tp|cp|ep|pp (docs/groups.md)");
  run->add_option("--models-dir", args->flags.models_dir, "Model catalog for sizes from a workload (default configs/models)");
  run->add_option("--resume", args->flags.resume_dir,
                  "Go on with the run in DIR (stopped or killed): skip the measurements its records.jsonl holds; "
                  "give the same sweep and flags")
      ->excludes(output);
  run->add_flag("--force", args->flags.force, "With --resume: go on even though the sweep or rank layout changed");
  run->add_option("--timeout", args->flags.measurements.timeout_s,
                  "Seconds each communicator init and each size may take, and so how long one call may wait for the other ranks; default scales with size")
      ->check(finite_range(1, 604800));
  run->add_option("--with-compute", args->flags.measurements.with_compute,
                  "Also measure each collective beside a GEMM kept running: gemm:MxNxK:DTYPE, e.g. "
                  "gemm:8192x8192x8192:bf16 (cuBLAS; the mpi engine runs a CPU analogue) (docs/overlap.md)");
  run->add_option("--inject-fault", args->flags.fault,
                  "Testing aid: RANK:sleep=SECONDS|exit|kill|skip|slow=FACTOR[@POINT] (docs/reliability.md), or slow=F@POINT: "
                  "every rank repeats POINT's timed calls F times (docs/search.md); RANK:cpu-hog with --probe (docs/probe.md)");
  run->add_flag("--probe", args->flags.probe,
                "Run ncclsweep probe's probes (--quick) on every rank before measuring; kept in the run's probe/ folder");
  add_choice(*run, "--search", args->flags.search_method, kSearchMethodNames,
             "Search instead of the full grid: racing (successive elimination per size band) or coordinate "
             "(one axis at a time); grid measures every point (docs/search.md)");
  run->add_option("--budget", args->flags.budget,
                  "With --search: a share of the full grid's measurements (0.33) or a duration (20m)");
  run->add_flag("--allow-shared-gpu", args->flags.allow_shared_gpu, "Allow two ranks on one GPU (results are then shared)");
  add_choice(*run, "--progress", args->flags.progress, kProgressSettingNames,
             "Progress on rank 0: live (one line redrawn on a terminal), lines (a plain line per point), "
             "off, or auto (live on a terminal, else lines)");
  run->add_flag("--quiet,-q", args->quiet, "No progress output (--progress off); the table and summary still print");
  run->add_option("--inject-corrupt-rank", args->flags.corrupt_rank,
                  "Testing aid: this rank corrupts one output element before each check");
}

}  // namespace ncclsweep
