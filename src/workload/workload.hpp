#pragma once
// A workload: a model, its parallel layout and every modelling assumption the size
// derivation makes, each a field with a documented default (docs/workloads.md).
#include <cstdint>
#include <map>
#include <string>

#include "core/dtype.hpp"
#include "core/name_table.hpp"
#include "workload/layout.hpp"
#include "workload/model.hpp"

namespace ncclsweep {

// How data parallelism moves gradients and parameters: megatron (the distributed
// optimizer), ddp, fsdp, hsdp (fsdp within a shard group, replicated across).
enum class DpStyle { megatron, ddp, fsdp, hsdp };
inline constexpr NameTable<DpStyle, 4> kDpStyleNames{
    "dp_style", {{{DpStyle::megatron, "megatron"}, {DpStyle::ddp, "ddp"}, {DpStyle::fsdp, "fsdp"}, {DpStyle::hsdp, "hsdp"}}}};

// What carries the MoE token exchange: NCCL's alltoall, or DeepEP / HybridEP (not NCCL).
enum class MoeDispatcher { alltoall, deepep, hybridep };
inline constexpr NameTable<MoeDispatcher, 3> kMoeDispatcherNames{
    "moe_dispatcher",
    {{{MoeDispatcher::alltoall, "alltoall"}, {MoeDispatcher::deepep, "deepep"}, {MoeDispatcher::hybridep, "hybridep"}}}};

struct Workload {
  std::string name;
  std::string file;  // the workload file, or "command line"
  ModelSpec model;
  Layout layout;
  int gpus = 0;               // 0: not stated (then tp*cp*dp*pp)
  int gpus_per_node = 0;      // 0: not stated (then which calls cross nodes is not known)
  int pipeline_rank = 0;      // whose view the derivation takes (stages differ)
  std::int64_t seq = 4096;
  std::int64_t micro_batch = 1;
  std::int64_t global_batch = 0;      // 0: dp * micro_batch (one micro-batch per iteration)
  DpStyle dp_style = DpStyle::megatron;
  std::int64_t bucket_size = 0;       // elements; 0: Megatron's max(40M, 1M * dp*cp)
  bool overlap_grad_reduce = true;    // false: one bucket per buffer
  // Entries of the dtype table (core/dtype.hpp), never null.
  const DataType* param_dtype = &data_type("bfloat16");       // parameter all-gather
  const DataType* grad_dtype = &data_type("bfloat16");        // gradient reduce
  const DataType* activation_dtype = &data_type("bfloat16");  // tp, cp, pp, ep activations
  bool sequence_parallel = true;      // with tp > 1
  bool tp_comm_overlap = false;       // TP collectives run in TE userbuffers, not NCCL
  MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;
  bool moe_fp8_dispatch = false;
  int hsdp_shard_size = 0;            // hsdp: ranks one parameter is sharded over
  bool fsdp_reshard_after_forward = true;

  std::int64_t micro_batches() const { return global_batch / (micro_batch * layout.dp); }
};

// Field name -> value text, as given on the command line; they override the file.
using WorkloadOverrides = std::map<std::string, std::string>;

// Reads `path` (may be empty: then the overrides alone, which must name a model),
// applies the overrides, loads the model from `models_dir` and checks the whole.
// Throws UsageError naming the file (or "command line"), the key and the fix.
Workload load_workload(const std::string& path, const WorkloadOverrides& overrides, const std::string& models_dir);

}  // namespace ncclsweep
