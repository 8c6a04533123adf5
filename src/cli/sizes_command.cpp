// `ncclsweep sizes`: the collective sizes a training job sends, derived from a model
// and its layout or imported from a real job's NCCL logs, torch traces or Inspector
// output. Runs without MPI or a GPU.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/data_dir.hpp"
#include "core/errors.hpp"
#include "importers/importers.hpp"
#include "workload/derivation.hpp"
#include "workload/sizes_output.hpp"
#include "workload/workload.hpp"

namespace ncclsweep {
namespace {

// Command-line flags that override a workload file's field of the same name.
struct FieldFlag {
  const char* flag;
  const char* field;
  const char* help;
};
const FieldFlag kFieldFlags[] = {
    {"--model", "model", "model name (configs/models/NAME.yaml) or a model .yaml path"},
    {"--gpus", "gpus", "rank count the layout must multiply to"},
    {"--tp", "tp", "tensor-parallel size"},
    {"--pp", "pp", "pipeline-parallel size"},
    {"--cp", "cp", "context-parallel size"},
    {"--ep", "ep", "expert-parallel size (divides cp*dp)"},
    {"--dp", "dp", "data-parallel size"},
    {"--vp", "vp", "virtual pipeline chunks per pipeline rank"},
    {"--order", "order", "rank order, innermost first (default tp-cp-ep-dp-pp)"},
    {"--pipeline-rank", "pipeline_rank", "pipeline stage whose calls are listed (default 0)"},
    {"--seq", "seq", "sequence length (default 4096)"},
    {"--micro-batch", "micro_batch", "micro-batch size (default 1)"},
    {"--global-batch", "global_batch", "global batch size (default dp x micro-batch)"},
    {"--dp-style", "dp_style", "megatron (distributed optimizer) | ddp | fsdp | hsdp"},
    {"--bucket-size", "bucket_size", "Megatron gradient bucket size in elements (default max(40M, 1M x dp*cp))"},
    {"--overlap-grad-reduce", "overlap_grad_reduce", "true | false (false: one bucket per buffer)"},
    {"--param-dtype", "param_dtype", "parameter all-gather dtype (default bfloat16)"},
    {"--grad-dtype", "grad_dtype", "gradient reduce dtype (default bfloat16)"},
    {"--activation-dtype", "activation_dtype", "activation dtype (default bfloat16)"},
    {"--sequence-parallel", "sequence_parallel", "true | false (default true)"},
    {"--tp-comm-overlap", "tp_comm_overlap", "true | false: TP collectives in TE userbuffers, not NCCL"},
    {"--moe-dispatcher", "moe_dispatcher", "alltoall | deepep | hybridep"},
    {"--moe-fp8-dispatch", "moe_fp8_dispatch", "true | false"},
    {"--hsdp-shard-size", "hsdp_shard_size", "hsdp: ranks a parameter is sharded over"},
    {"--fsdp-reshard-after-forward", "fsdp_reshard_after_forward", "true | false (default true)"},
};

struct SizesArgs {
  std::string workload, nccl_log, torch_trace, inspector, models_dir;
  std::string format = "table";
  int iterations = 0;
  std::vector<std::string> field_values = std::vector<std::string>(std::size(kFieldFlags));
};

CommProfile profile_of(const SizesArgs& args) {
  WorkloadOverrides overrides;
  for (std::size_t i = 0; i < std::size(kFieldFlags); ++i) {
    if (!args.field_values[i].empty()) overrides[kFieldFlags[i].field] = args.field_values[i];
  }
  const int imports = !args.nccl_log.empty() + !args.torch_trace.empty() + !args.inspector.empty();
  const bool derive = !args.workload.empty() || !overrides.empty();
  if (imports + (derive ? 1 : 0) != 1) {
    throw UsageError("give exactly one source of sizes",
                     "--workload FILE and/or --model NAME with layout flags, or one of --from-nccl-log, "
                     "--from-torch-trace, --from-inspector");
  }
  if (!args.nccl_log.empty()) return import_nccl_log(args.nccl_log, args.iterations);
  if (!args.torch_trace.empty()) return import_torch_trace(args.torch_trace, args.iterations);
  if (!args.inspector.empty()) return import_inspector(args.inspector, args.iterations);
  return derive_collectives(load_workload(args.workload, overrides, models_directory(args.models_dir)));
}

}  // namespace

void add_sizes_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<SizesArgs>();
  auto* sizes = app.add_subcommand("sizes", "List the collective sizes a training job sends (no GPU needed)");
  sizes->add_option("--workload", args->workload, "workload file (configs/workloads/*.yaml); flags override its fields");
  for (std::size_t i = 0; i < std::size(kFieldFlags); ++i) {
    sizes->add_option(kFieldFlags[i].flag, args->field_values[i], kFieldFlags[i].help);
  }
  sizes->add_option("--models-dir", args->models_dir, "model catalog directory (default configs/models)");
  sizes->add_option("--from-nccl-log", args->nccl_log, "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL logs, a quoted glob");
  sizes->add_option("--from-torch-trace", args->torch_trace, "torch.profiler chrome trace(s), plain or .gz, a quoted glob");
  sizes->add_option("--from-inspector", args->inspector, "NCCL Inspector plugin output, a quoted glob");
  // As `iterations:` in a sweep file: 1 to 1000000 when given (0 would divide by nothing).
  sizes->add_option("--iterations", args->iterations, "iterations the imported files cover (divides the calls)")
      ->check(CLI::Range(1, 1000000));
  sizes->add_option("--format", args->format, "table | yaml (a sizes: block for a sweep file) | json");
  sizes->callback([args, &chosen] {
    chosen = [args](CommandContext&) {
      const auto format = parse_sizes_format(args->format);
      std::fputs(format_sizes(profile_of(*args), format).c_str(), stdout);
      return static_cast<int>(kExitOk);
    };
  });
}

}  // namespace ncclsweep
