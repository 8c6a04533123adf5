// `ncclsweep run`: launched by mpirun or srun, one rank per GPU.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "core/errors.hpp"
#include "plan/measurement_plan.hpp"
#include "runtime/engine_registry.hpp"
#include "runtime/launch.hpp"
#include "runtime/mpi_session.hpp"

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

int run_launch_from_args(const RunArgs& args, CommandContext& context) {
  MpiSession session(&context.argc, &context.argv);
  LaunchRequest request;
  // The spec and plan are the same on every rank, so every rank fails alike and exits.
  try {
    request.spec = spec_from_args(args);
    request.plan = plan_measurements(request.spec, session.size());
  } catch (const UsageError& e) {
    if (session.rank() == 0) std::fprintf(stderr, "ncclsweep: error: %s\n", e.message().c_str());
    return kExitUsage;
  }
  request.groups = default_groups();
  request.output_dir = args.output;
  request.results_root = args.results_root;
  request.allow_shared_gpu = args.allow_shared_gpu;
  request.corrupt_rank = args.corrupt_rank;
  request.command_line = {context.argv, context.argv + context.argc};
  request.envp = context.envp;
  return run_launch(session, request);
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
  run->callback(
      [args, &chosen] { chosen = [args](CommandContext& context) { return run_launch_from_args(*args, context); }; });
}

}  // namespace ncclsweep
