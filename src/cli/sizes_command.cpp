// `ncclsweep sizes`: the collective sizes a training job sends, derived from a model
// and its layout or imported from a real job's NCCL logs, torch traces or Inspector
// output. Runs without MPI or a GPU.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/data_dir.hpp"
#include "importers/sizes_source.hpp"

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
    {"--gpus-per-node", "gpus_per_node", "GPUs (ranks) per node, filled in rank order: marks each call intra-node or inter-node"},
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
  SizesRequest request;
  std::string models_dir;
  std::vector<std::string> field_values = std::vector<std::string>(std::size(kFieldFlags));
};

}  // namespace

void add_sizes_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<SizesArgs>();
  CLI::App* sizes = add_command(app, chosen, args, "sizes", "List the collective sizes a training job sends (no GPU needed)",
                                [](SizesArgs& a, CommandContext&) {
                                  for (std::size_t i = 0; i < std::size(kFieldFlags); ++i) {
                                    if (!a.field_values[i].empty()) a.request.overrides[kFieldFlags[i].field] = a.field_values[i];
                                  }
                                  a.request.models_dir = models_directory(a.models_dir);
                                  return run_sizes_command(a.request, std::cout);
                                });
  sizes->add_option("--workload", args->request.workload, "workload file (configs/workloads/*.yaml); flags override its fields");
  for (std::size_t i = 0; i < std::size(kFieldFlags); ++i) {
    sizes->add_option(kFieldFlags[i].flag, args->field_values[i], kFieldFlags[i].help);
  }
  sizes->add_option("--models-dir", args->models_dir, "model catalog directory (default configs/models)");
  sizes->add_option("--from-nccl-log", args->request.nccl_log, "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL logs, a quoted glob");
  sizes->add_option("--from-torch-trace", args->request.torch_trace, "torch.profiler chrome trace(s), plain or .gz, a quoted glob");
  sizes->add_option("--from-inspector", args->request.inspector, "NCCL Inspector plugin output, a quoted glob");
  // As `iterations:` in a sweep file: 1 to 1000000 when given (0 would divide by nothing).
  sizes->add_option("--iterations", args->request.iterations, "iterations the imported files cover (divides the calls)")
      ->check(finite_range(1, 1000000));
  add_choice(*sizes, "--format", args->request.format, kSizesFormatNames, "table | yaml (a sizes: block for a sweep file) | json");
}

}  // namespace ncclsweep
