#include "workload/derivation.hpp"

#include <map>

#include "core/dtype.hpp"
#include "workload/buckets.hpp"

namespace ncclsweep {
namespace {

std::int64_t bytes_of(const DataType* dtype) { return static_cast<std::int64_t>(dtype->bytes); }

// One use, its collective and op looked up once here ("" op: none).
CommUse use_of(std::string_view collective_name, std::int64_t bytes, const DataType* dtype, std::string_view op,
               const ParallelGroup& group, double calls, std::string origin, bool via_nccl) {
  return {&collective(collective_name), static_cast<Bytes>(bytes), dtype,
          op.empty() ? std::nullopt : std::optional(reduce_op(op)), group, calls, std::move(origin), via_nccl};
}

struct Context {
  const Workload& w;
  CommProfile& out;
  std::int64_t m;  // micro-batches per iteration
  void add(std::string_view collective_name, std::int64_t bytes, const DataType* dtype, std::string_view op,
           ParallelKind kind, double calls, std::string origin, bool via_nccl = true) {
    const auto group = group_of(kind, w.layout);
    if (group.size < 2 || calls <= 0 || bytes <= 0) return;
    out.uses.push_back(use_of(collective_name, bytes, dtype, op, group, calls, std::move(origin), via_nccl));
  }
};

std::vector<Param> chunk_params(const Workload& w, int chunk) {
  const int chunks = w.layout.pp * w.layout.vp;
  std::vector<Param> params;
  if (chunk == 0) params = embedding_params(w.model, w.layout.tp);
  const auto range = layers_of_chunk(static_cast<int>(w.model.layers), chunk, chunks);
  for (int layer = range.first; layer < range.first + range.count; ++layer) {
    const auto layer_list = layer_params(w.model, layer, w.layout.tp, w.layout.ep);
    params.insert(params.end(), layer_list.begin(), layer_list.end());
  }
  if (chunk == chunks - 1) {
    const auto head = head_params(w.model, w.layout.tp);
    params.insert(params.end(), head.begin(), head.end());
  }
  return params;
}

// Megatron DDP: per model chunk, dense and expert buffers, each split into buckets.
void megatron_data_parallel(Context& c) {
  const auto& w = c.w;
  const auto& l = w.layout;
  const bool distopt = w.dp_style == DpStyle::megatron;
  for (int v = 0; v < l.vp; ++v) {
    const auto params = chunk_params(w, v * l.pp + w.pipeline_rank);
    for (const bool expert : {false, true}) {
      std::vector<Param> buffer;
      for (const auto& p : params) if (p.expert == expert) buffer.push_back(p);
      if (buffer.empty()) continue;
      const ParallelKind kind = expert ? ParallelKind::edp : ParallelKind::dp_cp;
      const int group_size = group_of(kind, l).size;
      // Megatron buckets only each rank's first model chunk; the others are one bucket each.
      std::int64_t bucket_size = 0;
      if (w.overlap_grad_reduce && v == 0) bucket_size = w.bucket_size > 0 ? w.bucket_size : default_bucket_size(l.dp * l.cp);
      const auto buckets = form_buckets(buffer, bucket_size, group_size);
      for (std::size_t b = 0; b < buckets.size(); ++b) {
        const std::string where = std::string(expert ? "expert " : "") + "bucket " + std::to_string(b) + " of chunk " +
                                  std::to_string(v) + " (" + std::to_string(buckets[b].params) + " params, " +
                                  std::to_string(buckets[b].elements) + " elements)";
        if (distopt) {
          c.add("reduce_scatter", buckets[b].elements * bytes_of(w.grad_dtype), w.grad_dtype, "sum", kind, 1,
                "grad " + where);
          c.add("all_gather", buckets[b].elements * bytes_of(w.param_dtype), w.param_dtype, "", kind, 1,
                "param " + where);
        } else {
          c.add("all_reduce", buckets[b].elements * bytes_of(w.grad_dtype), w.grad_dtype, "sum", kind, 1,
                "grad " + where);
        }
      }
    }
  }
}

// FSDP2 fully_shard per transformer block plus the root (embedding, final norm, output).
void fsdp_data_parallel(Context& c) {
  const auto& w = c.w;
  const auto& l = w.layout;
  const int shard = w.dp_style == DpStyle::hsdp ? w.hsdp_shard_size : l.dp;
  const ParallelGroup shard_group{ParallelKind::dp, shard, l.tp};
  const ParallelGroup replicate_group{ParallelKind::dp, l.dp / shard, l.tp * shard};
  auto padded = [&](const std::vector<Param>& params) {
    std::int64_t elements = 0;
    for (const auto& p : params) elements += (p.dim0 + shard - 1) / shard * shard * (p.numel / p.dim0);
    return elements;
  };
  // Blocks of equal size are listed once, with their number.
  std::map<std::int64_t, int> blocks;
  for (int layer = 0; layer < w.model.layers; ++layer) ++blocks[padded(layer_params(w.model, layer, l.tp, 1))];
  auto root = embedding_params(w.model, l.tp);
  const auto head = head_params(w.model, l.tp);
  root.insert(root.end(), head.begin(), head.end());
  struct Unit { std::int64_t elements; int count; std::string name; int gathers; };
  std::vector<Unit> units;
  for (const auto& [elements, count] : blocks) {
    units.push_back({elements, count, "block (" + std::to_string(count) + " blocks)", w.fsdp_reshard_after_forward ? 2 : 1});
  }
  units.push_back({padded(root), 1, "root (embedding, final norm, output)", 1});  // root is not resharded after forward
  const auto m = static_cast<double>(c.m);
  for (const auto& u : units) {
    auto push = [&](std::string_view coll, std::int64_t bytes, const DataType* dtype, std::string_view op,
                    ParallelGroup g, double calls, std::string origin) {
      if (g.size < 2) return;
      c.out.uses.push_back(use_of(coll, bytes, dtype, op, g, calls, std::move(origin), true));
    };
    const std::string per = " per micro-batch";
    push("all_gather", u.elements * bytes_of(w.param_dtype), w.param_dtype, "", shard_group, u.gathers * u.count * m,
         "FSDP param all-gather, " + u.name + (u.gathers == 2 ? ", forward and backward" : ", forward") + per);
    push("reduce_scatter", u.elements * bytes_of(w.grad_dtype), w.grad_dtype, "avg", shard_group, u.count * m,
         "FSDP grad reduce-scatter, " + u.name + per);
    if (w.dp_style == DpStyle::hsdp) {
      push("all_reduce", u.elements / shard * bytes_of(w.grad_dtype), w.grad_dtype, "avg", replicate_group, u.count * m,
           "HSDP grad all-reduce over replicas, " + u.name + per);
    }
  }
}

// Layers and MoE layers this pipeline rank runs, over all its virtual chunks.
struct RankLayers { int layers = 0; int moe_layers = 0; std::int64_t norm_elements = 0; };
RankLayers rank_layers(const Workload& w) {
  RankLayers r;
  const int chunks = w.layout.pp * w.layout.vp;
  for (int v = 0; v < w.layout.vp; ++v) {
    const int chunk = v * w.layout.pp + w.pipeline_rank;
    const auto range = layers_of_chunk(static_cast<int>(w.model.layers), chunk, chunks);
    r.layers += range.count;
    for (int layer = range.first; layer < range.first + range.count; ++layer) {
      if (w.model.moe.experts > 0 && layer >= w.model.moe.first_dense_layers) ++r.moe_layers;
    }
    for (const auto& p : chunk_params(w, chunk)) if (p.norm) r.norm_elements += p.numel;
  }
  return r;
}

void activations(Context& c) {
  const auto& w = c.w;
  const auto& l = w.layout;
  const auto& model = w.model;
  const auto r = rank_layers(w);
  const auto m = static_cast<double>(c.m);
  const DataType* act = w.activation_dtype;
  const std::int64_t tokens = w.seq / l.cp * w.micro_batch;  // on this rank, before tp splits
  const std::int64_t tensor = tokens * model.hidden * bytes_of(act);
  // Tensor parallel: one communicating block for attention, one for a dense MLP or shared experts.
  const int dense_mlp_layers = r.layers - r.moe_layers + (model.moe.shared_experts > 0 ? r.moe_layers : 0);
  const int blocks = r.layers + dense_mlp_layers;
  const bool tp_nccl = !w.tp_comm_overlap;
  const std::string overlap = w.tp_comm_overlap ? " [tp_comm_overlap: TE userbuffers, not NCCL]" : "";
  const std::string each = " (" + std::to_string(blocks) + " attention/MLP blocks x " + std::to_string(c.m) + " micro-batches)";
  if (w.sequence_parallel) {
    c.add("all_gather", tensor, act, "", ParallelKind::tp, blocks * m, "TP all-gather, forward, per block" + each + overlap, tp_nccl);
    c.add("reduce_scatter", tensor, act, "sum", ParallelKind::tp, blocks * m, "TP reduce-scatter, forward, per block" + each + overlap, tp_nccl);
    c.add("all_gather", tensor, act, "", ParallelKind::tp, 2 * blocks * m, "TP all-gather, backward, 2 per block" + each + overlap, tp_nccl);
    c.add("reduce_scatter", tensor, act, "sum", ParallelKind::tp, blocks * m, "TP reduce-scatter, backward, per block" + each + overlap, tp_nccl);
    c.add("all_reduce", r.norm_elements * bytes_of(w.grad_dtype), w.grad_dtype, "sum", ParallelKind::tp, 1,
          "sequence-parallel norm grads, once per iteration");
  } else {
    c.add("all_reduce", tensor, act, "sum", ParallelKind::tp, blocks * m, "TP all-reduce, forward, per block" + each + overlap, tp_nccl);
    c.add("all_reduce", tensor, act, "sum", ParallelKind::tp, blocks * m, "TP all-reduce, backward, per block" + each + overlap, tp_nccl);
  }
  // Pipeline: activations forward out of every chunk but the last, gradients back out of every chunk but the first.
  const int chunks = l.pp * l.vp;
  int sends_forward = 0, sends_backward = 0;
  for (int v = 0; v < l.vp; ++v) {
    const int chunk = v * l.pp + w.pipeline_rank;
    sends_forward += chunk != chunks - 1;
    sends_backward += chunk != 0;
  }
  const std::int64_t stage_tensor = w.sequence_parallel ? tensor / l.tp : tensor;
  c.add("sendrecv", stage_tensor, act, "", ParallelKind::pp, sends_forward * m,
        "PP send of activations, forward (" + std::to_string(sends_forward) + " chunks x " + std::to_string(c.m) + " micro-batches)");
  c.add("sendrecv", stage_tensor, act, "", ParallelKind::pp, sends_backward * m,
        "PP send of activation grads, backward (" + std::to_string(sends_backward) + " chunks x " + std::to_string(c.m) + " micro-batches)");
  // Context parallel, p2p ring: K and V of this rank's heads.
  const std::int64_t kv_width = model.mla.kv_lora > 0
                                    ? model.heads / l.tp * (model.mla.qk_nope + model.mla.qk_rope + model.mla.v_head)
                                    : 2 * model.kv_heads / l.tp * model.head_dim;
  const std::int64_t kv = tokens * kv_width * bytes_of(act);
  c.add("sendrecv", kv, act, "", ParallelKind::cp, (l.cp - 1) * r.layers * m, "CP ring K/V exchange, forward, cp-1 steps per layer");
  c.add("sendrecv", kv, act, "", ParallelKind::cp, 2 * (l.cp - 1) * r.layers * m,
        "CP ring K/V and dK/dV exchange, backward, 2(cp-1) steps per layer [assumed: not verified in code]");
  // Expert parallel, all-to-all dispatcher, dropless and balanced.
  if (r.moe_layers > 0) {
    const std::int64_t routed = tokens / l.tp * model.moe.topk;  // token copies leaving this rank
    const std::int64_t dispatch_token = w.moe_fp8_dispatch ? model.hidden + model.hidden / 128 * 4 : model.hidden * bytes_of(act);
    const bool ep_nccl = w.moe_dispatcher == MoeDispatcher::alltoall;
    const std::string via = ep_nccl ? "" : " [" + std::string(kMoeDispatcherNames.name(w.moe_dispatcher)) + " dispatcher, not NCCL]";
    const std::string per = " per MoE layer (" + std::to_string(r.moe_layers) + " x " + std::to_string(c.m) + " micro-batches)";
    c.add("alltoall", routed * dispatch_token, w.moe_fp8_dispatch ? &data_type("fp8_e4m3") : act, "", ParallelKind::ep, r.moe_layers * m,
          "EP dispatch, forward" + per + via, ep_nccl);
    c.add("alltoall", routed * model.hidden * bytes_of(act), act, "", ParallelKind::ep, 3 * r.moe_layers * m,
          "EP combine forward, and dispatch and combine backward" + per + via, ep_nccl);
  }
}

}  // namespace

LayerRange layers_of_chunk(int layers, int chunk, int chunks) {
  const int base = layers / chunks, extra = layers % chunks;
  return {chunk * base + std::min(chunk, extra), base + (chunk < extra ? 1 : 0)};
}

CommProfile derive_collectives(const Workload& w) {
  CommProfile out;
  out.source = w.file;
  out.layout_ranks = w.layout.world();
  out.ranks_per_node = w.gpus_per_node;
  out.basis = "per rank (pipeline stage " + std::to_string(w.pipeline_rank) + ") per iteration, " +
              std::to_string(w.micro_batches()) + " micro-batches";
  Context c{w, out, w.micro_batches()};
  if (w.dp_style == DpStyle::fsdp || w.dp_style == DpStyle::hsdp) {
    fsdp_data_parallel(c);
  } else {
    megatron_data_parallel(c);
  }
  activations(c);
  out.notes.push_back("model " + w.model.name + " from " + w.model.file);
  out.notes.push_back("not listed: scalar all-reduces (loss, grad norm), embedding/loss sequence-parallel gathers, "
                      "MoE router-probability all-to-all");
  return out;
}

}  // namespace ncclsweep
