#include "workload/workload.hpp"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <string>
#include <system_error>

#include "core/dtype.hpp"
#include "workload/yaml_fields.hpp"

namespace ncclsweep {
namespace {

// A model file named by a relative path: tried as written (from where the job runs), then
// beside the workload file that names it, as a sweep's sizes: file is.
std::string model_beside(const std::string& value, const std::string& workload_path) {
  namespace fs = std::filesystem;
  if (workload_path.empty() || value.size() <= 5 || value.substr(value.size() - 5) != ".yaml") return value;
  const fs::path written(value);
  std::error_code ec;
  if (written.is_absolute() || fs::exists(written, ec)) return value;
  const fs::path beside = fs::path(workload_path).parent_path() / written;
  return fs::exists(beside, ec) ? beside.string() : value;
}

const std::set<std::string> kKeys = {
    "name", "description", "model", "gpus", "tp", "pp", "cp", "ep", "dp", "vp", "order", "pipeline_rank", "seq",
    "micro_batch", "global_batch", "dp_style", "bucket_size", "overlap_grad_reduce", "param_dtype", "grad_dtype",
    "activation_dtype", "sequence_parallel", "tp_comm_overlap", "moe_dispatcher", "moe_fp8_dispatch",
    "hsdp_shard_size", "fsdp_reshard_after_forward", "gpus_per_node"};

std::string key_list() {
  std::string names;
  for (const auto& k : kKeys) names += (names.empty() ? "" : ", ") + k;
  return names;
}

// The whole numbers from 1 to `limit` that divide `n`: what a parallel size may be.
std::string divisors_text(std::int64_t n, std::int64_t limit) {
  std::string text;
  for (std::int64_t d = 1; d <= std::min(n, limit); ++d) {
    if (n % d == 0) text += (text.empty() ? "" : ", ") + std::to_string(d);
  }
  return text;
}

const DataType* checked_dtype(const YamlFields& f, const std::string& key, const DataType* fallback) {
  const auto text = f.text(key, std::string(fallback->name));
  try {
    return &data_type(text);
  } catch (const UsageError& e) {
    throw UsageError(key + ": " + e.what(), e.fix(), f.where(key));
  }
}

// A field naming one of a table's values, refused at its place with the valid names.
template <typename Enum, std::size_t N>
Enum one_of(const YamlFields& f, const std::string& key, Enum fallback, const NameTable<Enum, N>& table) {
  const std::string value = f.text(key, std::string(table.name(fallback)));
  if (const auto found = table.find(value)) return *found;
  std::string names;
  for (const auto& name : table.names()) names += (names.empty() ? "" : ", ") + name;
  throw UsageError(key + " '" + value + "' is not known", "use one of: " + names, f.where(key));
}

// A parallel size or rank count, which the derivation holds in an int: from `lo` to the
// most ranks a layout may have.
int rank_count(const YamlFields& f, const std::string& key, int fallback, int lo, const std::string& fix) {
  return static_cast<int>(f.integer_in(key, fallback, lo, kMaxLayoutRanks, fix));
}

int layout_size(const YamlFields& f, const std::string& key) {
  return rank_count(f, key, 1, 1,
                    "give " + key + " a whole number from 1 to " + std::to_string(kMaxLayoutRanks) + " (1: no " + key +
                        " parallelism)");
}

// Every refusal says what to change: `fix` is never empty.
void check(bool ok, const Workload& w, const std::string& what, const std::string& fix) {
  if (!ok) throw UsageError(w.file + ": " + what, fix);
}

}  // namespace

Workload load_workload(const std::string& path, const WorkloadOverrides& overrides, const std::string& models_dir) {
  YAML::Node node(YAML::NodeType::Map);
  std::string file = "command line";
  if (!path.empty()) {
    const YamlFields fields(path);  // reports unreadable and malformed files first
    fields.reject_unknown(kKeys);
    node = fields.node();
    file = path;
  }
  for (const auto& [key, value] : overrides) {
    if (kKeys.count(key) == 0) throw UsageError("unknown workload field '" + key + "'", "use one of: " + key_list(), {"command line"});
    node[key] = value;
  }
  if (!overrides.empty() && !path.empty()) file = path + " (with command-line overrides)";
  std::set<std::string> flag_keys;
  for (const auto& entry : overrides) flag_keys.insert(entry.first);
  const YamlFields f(node, file, flag_keys);
  Workload w;
  w.file = file;
  if (!f.has("model")) throw UsageError("no model given", "pass --model NAME or set model: in the workload file", {file});
  try {
    w.model = load_model(model_beside(f.text("model", ""), path), models_dir);
  } catch (const UsageError& e) {
    // A problem inside the model file keeps its own place in the text; the workload's
    // `model` line is where it was named.
    const std::string inside = e.where().file.empty() ? "" : e.where().str() + ": ";
    throw UsageError(inside + e.what(), e.fix().empty() ? "fix the model file, or name another model" : e.fix(),
                     f.where("model"));
  }
  w.name = f.text("name", w.model.name);
  auto& l = w.layout;
  l.tp = layout_size(f, "tp");
  l.pp = layout_size(f, "pp");
  l.cp = layout_size(f, "cp");
  l.ep = layout_size(f, "ep");
  l.dp = layout_size(f, "dp");
  l.vp = layout_size(f, "vp");
  if (f.has("order")) {
    try {
      l.order = parse_layout_order(f.text("order", ""));
    } catch (const UsageError& e) {
      throw UsageError(e.what(), e.fix(), f.where("order"));
    }
  }
  w.gpus = rank_count(f, "gpus", 0, 1, "give the job's rank count, at most " + std::to_string(kMaxLayoutRanks));
  validate_layout(l, w.gpus, file);
  if (f.has("gpus_per_node") && f.integer("gpus_per_node", 0) < 1) {
    throw UsageError("gpus_per_node must be at least 1", "give the GPUs (ranks) of one node, e.g. gpus_per_node: 8",
                     f.where("gpus_per_node"));
  }
  w.gpus_per_node = rank_count(f, "gpus_per_node", 0, 1, "give the GPUs (ranks) of one node, e.g. gpus_per_node: 8");
  if (w.gpus_per_node > 0 && l.world() > w.gpus_per_node && l.world() % w.gpus_per_node != 0) {
    throw UsageError(file + ": the layout's " + std::to_string(l.world()) + " ranks do not fill whole nodes of " +
                         std::to_string(w.gpus_per_node),
                     "give the GPUs per node of the job's nodes: a divisor of " + std::to_string(l.world()) + " (" +
                         divisors_text(l.world(), 16) + ", ...)");
  }
  w.pipeline_rank = rank_count(f, "pipeline_rank", 0, 0, "pick a stage below pp");
  w.seq = f.integer("seq", w.seq);
  w.micro_batch = f.integer("micro_batch", w.micro_batch);
  w.global_batch = f.integer("global_batch", w.micro_batch * l.dp);
  w.dp_style = one_of(f, "dp_style", w.dp_style, kDpStyleNames);
  if (f.has("bucket_size") && f.integer("bucket_size", 0) < 1) {
    throw UsageError("bucket_size must be at least 1",
                     "give the bucket size in elements, e.g. bucket_size: 134217728, or leave it out for Megatron's default",
                     f.where("bucket_size"));
  }
  w.bucket_size = f.integer("bucket_size", 0);
  w.overlap_grad_reduce = f.boolean("overlap_grad_reduce", w.overlap_grad_reduce);
  w.param_dtype = checked_dtype(f, "param_dtype", w.param_dtype);
  w.grad_dtype = checked_dtype(f, "grad_dtype", w.grad_dtype);
  w.activation_dtype = checked_dtype(f, "activation_dtype", w.activation_dtype);
  w.sequence_parallel = f.boolean("sequence_parallel", w.sequence_parallel);
  w.tp_comm_overlap = f.boolean("tp_comm_overlap", w.tp_comm_overlap);
  w.moe_dispatcher = one_of(f, "moe_dispatcher", w.moe_dispatcher, kMoeDispatcherNames);
  w.moe_fp8_dispatch = f.boolean("moe_fp8_dispatch", w.moe_fp8_dispatch);
  w.hsdp_shard_size = rank_count(f, "hsdp_shard_size", 0, 0, "set hsdp_shard_size (e.g. the GPUs of one node)");
  w.fsdp_reshard_after_forward = f.boolean("fsdp_reshard_after_forward", w.fsdp_reshard_after_forward);

  const auto& m = w.model;
  check(w.pipeline_rank >= 0 && w.pipeline_rank < l.pp, w, "pipeline_rank must be in [0, pp)", "pick a stage below pp");
  check(w.seq >= 1 && w.micro_batch >= 1, w, "seq and micro_batch must be at least 1",
        "give both a whole number of at least 1, e.g. seq: 4096 and micro_batch: 1");
  check(w.global_batch % (w.micro_batch * l.dp) == 0 && w.global_batch > 0, w,
        "global_batch " + std::to_string(w.global_batch) + " is not a multiple of micro_batch*dp = " +
            std::to_string(w.micro_batch * l.dp),
        "each data-parallel rank runs a whole number of micro-batches");
  check(w.seq % l.cp == 0, w, "seq " + std::to_string(w.seq) + " is not a multiple of cp " + std::to_string(l.cp),
        "each context-parallel rank takes seq/cp tokens: pick seq a multiple of cp, e.g. " +
            std::to_string((w.seq / l.cp + 1) * l.cp) + ", or cp among " + divisors_text(w.seq, 16));
  check(m.heads % l.tp == 0 && m.kv_heads % l.tp == 0 && m.ffn % l.tp == 0, w,
        "tp " + std::to_string(l.tp) + " does not divide the model's heads (" + std::to_string(m.heads) + "), kv heads (" +
            std::to_string(m.kv_heads) + ") and ffn (" + std::to_string(m.ffn) + ")",
        "pick tp among " + divisors_text(std::gcd(std::gcd(m.heads, m.kv_heads), m.ffn), 64));
  check(m.moe.experts == 0 || m.moe.experts % l.ep == 0, w,
        "ep " + std::to_string(l.ep) + " does not divide the model's " + std::to_string(m.moe.experts) + " experts",
        "pick ep among " + divisors_text(m.moe.experts, 256));
  check(m.moe.experts > 0 || l.ep == 1, w, "ep > 1 on a model without experts", "set ep: 1");
  check(m.layers >= static_cast<std::int64_t>(l.pp) * l.vp, w,
        "fewer layers (" + std::to_string(m.layers) + ") than pipeline chunks (pp*vp = " +
            std::to_string(static_cast<std::int64_t>(l.pp) * l.vp) + ")",
        "lower pp or vp so that pp*vp is at most " + std::to_string(m.layers));
  check(l.vp == 1 || l.pp > 1, w, "vp > 1 needs pp > 1", "set vp: 1 (--vp 1), or pp above 1");
  if (w.dp_style == DpStyle::fsdp || w.dp_style == DpStyle::hsdp) {
    const std::string style(kDpStyleNames.name(w.dp_style));
    check(l.pp == 1 && l.cp == 1 && l.ep == 1, w,
          "dp_style " + style + " is modelled with pp = cp = ep = 1 only, and pp = " + std::to_string(l.pp) +
              ", cp = " + std::to_string(l.cp) + ", ep = " + std::to_string(l.ep),
          "set pp, cp and ep to 1 (--pp 1 --cp 1 --ep 1) with " + style +
              ", or use dp_style megatron or ddp (--dp-style megatron) for pipeline, context or expert parallelism");
  }
  if (w.dp_style == DpStyle::hsdp) {
    check(w.hsdp_shard_size > 1 && l.dp % w.hsdp_shard_size == 0, w,
          "hsdp needs hsdp_shard_size > 1 dividing dp", "set hsdp_shard_size (e.g. the GPUs of one node)");
  }
  return w;
}

}  // namespace ncclsweep
