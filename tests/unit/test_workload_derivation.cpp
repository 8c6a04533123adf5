#include <filesystem>
#include <fstream>

#include "catch_compat.hpp"
#include "workload/derivation.hpp"
#include "workload/histogram.hpp"
#include "scratch.hpp"

using namespace ncclsweep;

namespace {

const std::string kModels = NCCLSWEEP_SOURCE_DIR "/configs/models";

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = ncclsweep::testing::scratch_root() / name;
  std::ofstream(path) << text;
  return path.string();
}

// hidden 64, 4 heads of 16 (2 kv heads), ffn 128 (SwiGLU), vocab 200, 4 layers.
std::string tiny_model() {
  return write_temp("tiny.yaml",
                    "name: tiny\nhidden: 64\nlayers: 4\nheads: 4\nkv_heads: 2\nffn: 128\nvocab: 200\n"
                    "mlp: swiglu\nnorm: rmsnorm\n");
}

std::vector<CommUse> find(const CommProfile& p, const std::string& collective, const std::string& origin_part) {
  std::vector<CommUse> out;
  for (const auto& u : p.uses) {
    if (u.collective->name == collective && u.origin.find(origin_part) != std::string::npos) out.push_back(u);
  }
  return out;
}

}  // namespace

TEST_CASE("Llama 3 8B block: the notes' parameter count") {
  const auto m = load_model("llama3-8b", kModels);
  std::int64_t block = 0;
  for (const auto& p : layer_params(m, 0, 1, 1)) block += p.numel;
  CHECK(block == 218'112'000);
}

TEST_CASE("Llama 3 8B under FSDP on 64 ranks: per block bf16 AllGather 436,224,000 B, fp32 ReduceScatter 872,448,000 B") {
  const auto w = load_workload({}, {{"model", "llama3-8b"}, {"dp", "64"}, {"dp_style", "fsdp"},
                                    {"param_dtype", "bfloat16"}, {"grad_dtype", "float32"}}, kModels);
  const auto p = derive_collectives(w);
  const auto gathers = find(p, "all_gather", "block (32 blocks)");
  const auto scatters = find(p, "reduce_scatter", "block (32 blocks)");
  REQUIRE(gathers.size() == 1);
  REQUIRE(scatters.size() == 1);
  CHECK(gathers[0].bytes == 436'224'000);
  CHECK(gathers[0].dtype == &data_type("bfloat16"));
  CHECK(gathers[0].calls == 64);  // 32 blocks, forward and backward, 1 micro-batch
  CHECK(gathers[0].group.size == 64);
  CHECK(scatters[0].bytes == 872'448'000);
  CHECK(scatters[0].dtype == &data_type("float32"));
  CHECK(scatters[0].calls == 32);
}

TEST_CASE("Megatron distributed optimizer on a tiny model: one bucket, reduce-scatter and all-gather of it") {
  const auto model = tiny_model();
  const auto w = load_workload({}, {{"model", model}, {"dp", "4"}, {"overlap_grad_reduce", "false"},
                                    {"grad_dtype", "float32"}}, kModels);
  const auto p = derive_collectives(w);
  // Parameters, from first principles (tp 1): embedding 256*64 (vocab padded to 128),
  // per layer: norm 64, qkv (4+2*2)*16*64 = 8192, proj 64*64, norm 64, fc1 2*128*64, fc2 128*64;
  // final norm 64, output 256*64. Walked in reverse, each starting on a multiple of 64
  // (all sizes are multiples of 64 already); the end padded to lcm(4, 128) = 128.
  const std::int64_t layer = 64 + 8192 + 4096 + 64 + 16384 + 8192;
  const std::int64_t total = 256 * 64 + 4 * layer + 64 + 256 * 64;
  const std::int64_t padded = (total + 127) / 128 * 128;
  const auto rs = find(p, "reduce_scatter", "grad bucket 0 of chunk 0");
  const auto ag = find(p, "all_gather", "param bucket 0 of chunk 0");
  REQUIRE(rs.size() == 1);
  REQUIRE(ag.size() == 1);
  CHECK(rs[0].bytes == static_cast<Bytes>(padded * 4));
  CHECK(ag[0].bytes == static_cast<Bytes>(padded * 2));
  CHECK(rs[0].group.kind == ParallelKind::dp_cp);
  CHECK(rs[0].calls == 1);
  CHECK(find(p, "reduce_scatter", "bucket 1").empty());
}

TEST_CASE("a bucket size splits chunk 0 into buckets that cover every parameter once") {
  const auto model = tiny_model();
  const auto whole = derive_collectives(load_workload({}, {{"model", model}, {"dp", "2"},
                                                           {"overlap_grad_reduce", "false"}}, kModels));
  const auto split = derive_collectives(load_workload({}, {{"model", model}, {"dp", "2"}, {"bucket_size", "20000"}}, kModels));
  const auto buckets = find(split, "reduce_scatter", "grad bucket");
  CHECK(buckets.size() > 1);
  Bytes sum = 0;
  for (const auto& b : buckets) sum += b.bytes;
  // Each bucket end pads to 128 elements, so the split buffer is at least the whole one.
  CHECK(sum >= find(whole, "reduce_scatter", "grad bucket")[0].bytes);
  CHECK(sum < find(whole, "reduce_scatter", "grad bucket")[0].bytes + buckets.size() * 128 * 2);
}

TEST_CASE("tensor, pipeline and context parallel activations follow the notes' formulas") {
  const auto model = tiny_model();
  // tp 2, pp 2, vp 2, cp 2, dp 2: 16 ranks; seq 32, micro-batch 1, global batch 8 -> 4 micro-batches.
  WorkloadOverrides o = {{"model", model}, {"tp", "2"}, {"pp", "2"}, {"vp", "2"}, {"cp", "2"}, {"dp", "2"},
                         {"seq", "32"},    {"global_batch", "8"}, {"gpus", "16"}};
  const auto p = derive_collectives(load_workload({}, o, kModels));
  // Pipeline rank 0 holds chunks 0 and 2 of 4: one layer each -> 2 layers, 4 TP blocks.
  const Bytes tensor = 32 / 2 * 1 * 64 * 2;  // (s/c) * b * h * bf16
  const auto ag_forward = find(p, "all_gather", "TP all-gather, forward");
  REQUIRE(ag_forward.size() == 1);
  CHECK(ag_forward[0].bytes == tensor);
  CHECK(ag_forward[0].calls == 4 * 4);
  CHECK(ag_forward[0].group.kind == ParallelKind::tp);
  CHECK(find(p, "all_gather", "TP all-gather, backward")[0].calls == 2 * 4 * 4);
  CHECK(find(p, "reduce_scatter", "TP reduce-scatter, backward")[0].calls == 4 * 4);
  // Chunk 0 sends forward but not backward; chunk 2 both: 2 forward and 1 backward send per micro-batch.
  const auto pp_forward = find(p, "sendrecv", "PP send of activations, forward");
  REQUIRE(pp_forward.size() == 1);
  CHECK(pp_forward[0].bytes == tensor / 2);  // sequence parallel: /tp
  CHECK(pp_forward[0].calls == 2 * 4);
  CHECK(find(p, "sendrecv", "PP send of activation grads")[0].calls == 1 * 4);
  // CP ring: 2 * (s/c) * b * (kv_heads/t) * head_dim * bytes, cp-1 = 1 step per layer forward.
  const auto cp_forward = find(p, "sendrecv", "CP ring K/V exchange, forward");
  REQUIRE(cp_forward.size() == 1);
  CHECK(cp_forward[0].bytes == static_cast<Bytes>(2 * 16 * 1 * (2 / 2) * 16 * 2));
  CHECK(cp_forward[0].calls == 2 * 4);
  // Data parallel includes cp: group dp-cp of 4.
  CHECK(find(p, "reduce_scatter", "grad bucket 0 of chunk 0")[0].group.size == 4);
}

TEST_CASE("tp_comm_overlap keeps TP collectives listed but marks them outside NCCL") {
  const auto model = tiny_model();
  const auto p = derive_collectives(
      load_workload({}, {{"model", model}, {"tp", "2"}, {"dp", "2"}, {"tp_comm_overlap", "true"}}, kModels));
  const auto tp_rows = find(p, "all_gather", "TP all-gather");
  REQUIRE_FALSE(tp_rows.empty());
  for (const auto& u : tp_rows) CHECK_FALSE(u.via_nccl);
  for (const auto& row : histogram(p)) if (!row.via_nccl) CHECK(row.share_of_bytes == 0);
}

TEST_CASE("MoE all-to-all: tokens per rank x topk x hidden, over the ep group") {
  const auto m = load_model("mixtral-8x7b", kModels);
  const auto p = derive_collectives(load_workload({}, {{"model", "mixtral-8x7b"}, {"ep", "8"}, {"dp", "8"},
                                                       {"seq", "4096"}}, kModels));
  const auto dispatch = find(p, "alltoall", "EP dispatch, forward");
  REQUIRE(dispatch.size() == 1);
  CHECK(dispatch[0].bytes == static_cast<Bytes>(4096 * 1 * m.moe.topk * m.hidden * 2));
  CHECK(dispatch[0].group.kind == ParallelKind::ep);
  CHECK(dispatch[0].calls == m.layers);
  // Expert gradients go over the expert data-parallel group: cp*dp/ep = 1 rank, so none.
  CHECK(find(p, "reduce_scatter", "expert bucket").empty());
}

TEST_CASE("every shipped workload loads, multiplies to its GPU count and derives") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(NCCLSWEEP_SOURCE_DIR "/configs/workloads")) {
    INFO(entry.path());
    const auto w = load_workload(entry.path().string(), {}, kModels);
    CHECK(w.layout.world() == w.gpus);
    CHECK_FALSE(derive_collectives(w).uses.empty());
    ++files;
  }
  CHECK(files >= 6);
}

TEST_CASE("bad workloads are refused naming the file and the problem") {
  const auto bad_key = write_temp("bad-key.yaml", "model: llama3-8b\ndp: 8\nmicro_bach: 2\n");
  CHECK_THAT(usage_error_text([&] { load_workload(bad_key, {}, kModels); }),
             ContainsSubstring(bad_key + ":3:1: unknown key 'micro_bach'"));
  const auto bad_product = write_temp("bad-product.yaml", "model: llama3-8b\ngpus: 512\ntp: 2\ndp: 128\n");
  CHECK_THAT(usage_error_text([&] { load_workload(bad_product, {}, kModels); }),
             ContainsSubstring("is not the rank count 512"));
  CHECK_THAT(usage_error_text([&] { load_workload({}, {{"model", "llama9"}}, kModels); }),
             ContainsSubstring("unknown model 'llama9'"));
  CHECK_THAT(usage_error_text([&] { load_workload({}, {{"model", "llama3-8b"}, {"dp", "4"}, {"global_batch", "6"}}, kModels); }),
             ContainsSubstring("not a multiple of micro_batch*dp"));
  CHECK_THAT(usage_error_text([&] { load_workload({}, {{"model", "llama3-8b"}, {"param_dtype", "bf17"}}, kModels); }),
             ContainsSubstring("param_dtype"));
}

TEST_CASE("integer fields beyond their range are refused at the flag or the file's line, never wrapped") {
  CHECK(usage_error_text([&] { load_workload({}, {{"model", "llama3-8b"}, {"dp", "4294967298"}}, kModels); }) ==
        "--dp: dp = 4294967298 is more than 1048576\n"
        "  fix: give dp a whole number from 1 to 1048576 (1: no dp parallelism)");
  CHECK_THAT(usage_error_text([&] { load_workload({}, {{"model", "llama3-8b"}, {"dp", "2"}, {"tp", "-4294967294"}}, kModels); }),
             ContainsSubstring("--tp: tp = -4294967294 must be at least 1"));
  CHECK_THAT(usage_error_text([&] { load_workload({}, {{"model", "llama3-8b"}, {"gpus_per_node", "4294967304"}}, kModels); }),
             ContainsSubstring("--gpus-per-node: gpus_per_node = 4294967304 is more than 1048576"));
  // Each size within the limit, their product not: refused before it wraps an int.
  CHECK_THAT(usage_error_text([&] { load_workload({}, {{"model", "llama3-8b"}, {"dp", "65536"}, {"pp", "32"}}, kModels); }),
             ContainsSubstring("tp*cp*dp*pp = 2097152 ranks is more than 1048576"));
  const auto file = write_temp("huge-dp.yaml", "model: llama3-8b\ndp: 4294967298\n");
  CHECK_THAT(usage_error_text([&] { load_workload(file, {}, kModels); }),
             ContainsSubstring(file + ":2:5: dp = 4294967298 is more than 1048576"));
  // A flag over the file's field is named as the flag.
  CHECK_THAT(usage_error_text([&] { load_workload(file, {{"dp", "2"}, {"pipeline_rank", "4294967296"}}, kModels); }),
             ContainsSubstring("--pipeline-rank: pipeline_rank = 4294967296 is more than 1048576"));
  const auto model = write_temp("huge-layers.yaml",
                                "name: huge\nhidden: 64\nlayers: 4294967298\nheads: 4\nffn: 128\nvocab: 200\n");
  CHECK_THAT(usage_error_text([&] { load_model(model, kModels); }),
             ContainsSubstring(model + ":3:9: layers = 4294967298 is more than 2147483647"));
}

TEST_CASE("bucket_size of 0 or below is refused, not taken for the default") {
  for (const char* size : {"0", "-1"}) {
    CHECK(usage_error_text([&] { load_workload({}, {{"model", "llama3-8b"}, {"bucket_size", size}}, kModels); }) ==
          "--bucket-size: bucket_size must be at least 1\n"
          "  fix: give the bucket size in elements, e.g. bucket_size: 134217728, or leave it out for Megatron's default");
  }
  const auto file = write_temp("bucket.yaml", "model: llama3-8b\ndp: 2\nbucket_size: -5\n");
  CHECK_THAT(usage_error_text([&] { load_workload(file, {}, kModels); }),
             ContainsSubstring(file + ":3:14: bucket_size must be at least 1"));
}

TEST_CASE("a model that contradicts itself is refused at the line") {
  const std::string base = "name: m\nhidden: 4096\nlayers: 32\nheads: 32\nffn: 14336\nvocab: 128256\n";
  const auto kv_more = write_temp("kv-more.yaml", base + "kv_heads: 64\n");
  CHECK_THAT(usage_error_text([&] { load_model(kv_more, kModels); }),
             ContainsSubstring(kv_more + ":7:11: kv_heads 64 is more than heads 32"));
  const auto kv_odd = write_temp("kv-odd.yaml", base + "kv_heads: 5\n");
  CHECK_THAT(usage_error_text([&] { load_model(kv_odd, kModels); }),
             ContainsSubstring(kv_odd + ":7:11: kv_heads 5 does not divide heads 32"));
  const auto topk = write_temp("topk.yaml", base + "moe: {experts: 8, topk: 9, ffn: 100}\n");
  CHECK_THAT(usage_error_text([&] { load_model(topk, kModels); }),
             ContainsSubstring(topk + ":7:25: moe topk 9 is more than the 8 experts"));
  const auto dense = write_temp("dense.yaml", base + "moe:\n  experts: 8\n  topk: 2\n  first_dense_layers: 33\n");
  CHECK_THAT(usage_error_text([&] { load_model(dense, kModels); }),
             ContainsSubstring(dense + ":10:23: first_dense_layers = 33 is more than 32"));
  // Through a workload, the model file's line stays in the text.
  CHECK_THAT(usage_error_text([&] { load_workload({}, {{"model", kv_odd}}, kModels); }),
             ContainsSubstring(kv_odd + ":7:11: kv_heads 5 does not divide heads 32"));
  for (const auto& entry : std::filesystem::directory_iterator(kModels)) {
    INFO(entry.path());
    CHECK_NOTHROW(load_model(entry.path().string(), kModels));
  }
}

TEST_CASE("HSDP: reduce-scatter over the shard group, all-reduce of a shard over the replicas") {
  const auto p = derive_collectives(load_workload({}, {{"model", "llama3-8b"}, {"dp", "16"}, {"dp_style", "hsdp"},
                                                       {"hsdp_shard_size", "8"}, {"grad_dtype", "float32"}}, kModels));
  const auto rs = find(p, "reduce_scatter", "block (32 blocks)");
  const auto ar = find(p, "all_reduce", "HSDP grad all-reduce over replicas, block");
  REQUIRE(rs.size() == 1);
  REQUIRE(ar.size() == 1);
  CHECK(rs[0].group.size == 8);
  CHECK(rs[0].bytes == 872'448'000);  // every Llama 3 8B block dim0 is a multiple of 8: no padding
  CHECK(ar[0].group.size == 2);
  CHECK(ar[0].group.stride == 8);
  CHECK(ar[0].bytes == 872'448'000 / 8);
  CHECK(ar[0].calls == 32);
}

TEST_CASE("plain DDP all-reduces each bucket once; FSDP without reshard gathers once per block") {
  const auto model = tiny_model();
  const auto ddp = derive_collectives(load_workload({}, {{"model", model}, {"dp", "4"}, {"dp_style", "ddp"},
                                                         {"overlap_grad_reduce", "false"}}, kModels));
  CHECK(find(ddp, "reduce_scatter", "").empty());
  CHECK(find(ddp, "all_gather", "").empty());
  const auto ar = find(ddp, "all_reduce", "grad bucket 0 of chunk 0");
  REQUIRE(ar.size() == 1);
  CHECK(ar[0].calls == 1);
  const auto fsdp = derive_collectives(load_workload({}, {{"model", model}, {"dp", "4"}, {"dp_style", "fsdp"},
                                                          {"fsdp_reshard_after_forward", "false"},
                                                          {"global_batch", "12"}}, kModels));
  const auto ag = find(fsdp, "all_gather", "block (4 blocks)");
  REQUIRE(ag.size() == 1);
  CHECK(ag[0].calls == 4 * 3);  // 4 blocks, once each, 3 micro-batches
}

TEST_CASE("every dp_style and moe_dispatcher is read by its name; an unknown one is refused with the valid ones") {
  const auto model = tiny_model();
  for (const auto& [style, name] : kDpStyleNames.entries()) {
    WorkloadOverrides fields{{"model", model}, {"dp", "4"}, {"dp_style", std::string(name)}};
    if (style == DpStyle::hsdp) fields["hsdp_shard_size"] = "2";
    CHECK(load_workload({}, fields, kModels).dp_style == style);
  }
  for (const auto& [dispatcher, name] : kMoeDispatcherNames.entries()) {
    CHECK(load_workload({}, {{"model", model}, {"dp", "4"}, {"moe_dispatcher", std::string(name)}}, kModels).moe_dispatcher ==
          dispatcher);
  }
  const std::string refused =
      usage_error_text([&] { (void)load_workload({}, {{"model", model}, {"dp", "4"}, {"dp_style", "zero3"}}, kModels); });
  CHECK_THAT(refused, ContainsSubstring("dp_style 'zero3' is not known"));
  CHECK_THAT(refused, ContainsSubstring("megatron, ddp, fsdp, hsdp"));
}
