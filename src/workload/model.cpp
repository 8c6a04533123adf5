#include "workload/model.hpp"

#include <filesystem>
#include <limits>
#include <set>

#include "core/errors.hpp"
#include "workload/yaml_fields.hpp"

namespace ncclsweep {
namespace {

std::string model_path(const std::string& name_or_path, const std::string& models_dir) {
  if (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".yaml") return name_or_path;
  const auto path = std::filesystem::path(models_dir) / (name_or_path + ".yaml");
  if (!std::filesystem::exists(path)) {
    std::set<std::string> known;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(models_dir, ec)) {
      if (entry.path().extension() == ".yaml") known.insert(entry.path().stem().string());
    }
    std::string names;
    for (const auto& n : known) names += (names.empty() ? "" : ", ") + n;
    throw UsageError("unknown model '" + name_or_path + "' (no " + path.string() + ")",
                     names.empty() ? "pass --models-dir, or a path to a model .yaml"
                                   : "use one of: " + names + "; or a path to a model .yaml");
  }
  return path.string();
}

// Every count and width of a model fits an int: the derivation counts layers, experts
// and their widths in ints.
constexpr std::int64_t kMaxModelNumber = std::numeric_limits<int>::max();

std::int64_t positive(const YamlFields& f, const std::string& key, std::int64_t fallback) {
  const auto value = f.integer(key, fallback);
  if (value < 1) {
    throw UsageError(key + (f.has(key) ? " must be at least 1" : " is required"),
                     f.has(key) ? "give " + key + " a whole number of at least 1"
                                : "set " + key + ": in the model file (docs/workloads.md lists the model fields)",
                     f.where(key));
  }
  return f.integer_in(key, value, 1, kMaxModelNumber,
                      "give " + key + " a whole number from 1 to " + std::to_string(kMaxModelNumber));
}

// A field that may be 0 (none), up to `most`.
int count_up_to(const YamlFields& f, const std::string& key, std::int64_t fallback, std::int64_t most,
                const std::string& fix) {
  return static_cast<int>(f.integer_in(key, fallback, 0, most, fix));
}

bool gated(const ModelSpec& m) { return m.mlp == "swiglu"; }

void add_norm(std::vector<Param>& out, const ModelSpec& m, const std::string& name, std::int64_t width, int layer,
              bool sequence_parallel_norm) {
  out.push_back({name + " weight", width, width, layer, false, sequence_parallel_norm});
  if (m.norm == "layernorm") out.push_back({name + " bias", width, width, layer, false, sequence_parallel_norm});
}

// fc1 (gate and up when gated) and fc2 of an MLP with hidden size `ffn`, split over tp.
void add_mlp(std::vector<Param>& out, const ModelSpec& m, const std::string& name, std::int64_t ffn, int tp,
             int layer, bool expert) {
  const std::int64_t up_rows = ffn * (gated(m) ? 2 : 1) / tp;
  out.push_back({name + " fc1", up_rows * m.hidden, up_rows, layer, expert, false});
  out.push_back({name + " fc2", m.hidden * (ffn / tp), m.hidden, layer, expert, false});
}

void add_attention(std::vector<Param>& out, const ModelSpec& m, int tp, int layer) {
  const std::string p = "layer " + std::to_string(layer) + " attention ";
  const auto& a = m.mla;
  if (a.kv_lora > 0) {  // MLA: the down-projections are replicated over tp
    out.push_back({p + "q down", a.q_lora * m.hidden, a.q_lora, layer, false, false});
    out.push_back({p + "q norm", a.q_lora, a.q_lora, layer, false, false});
    const std::int64_t q_rows = m.heads * (a.qk_nope + a.qk_rope) / tp;
    out.push_back({p + "q up", q_rows * a.q_lora, q_rows, layer, false, false});
    out.push_back({p + "kv down", (a.kv_lora + a.qk_rope) * m.hidden, a.kv_lora + a.qk_rope, layer, false, false});
    out.push_back({p + "kv norm", a.kv_lora, a.kv_lora, layer, false, false});
    const std::int64_t kv_rows = m.heads * (a.qk_nope + a.v_head) / tp;
    out.push_back({p + "kv up", kv_rows * a.kv_lora, kv_rows, layer, false, false});
    out.push_back({p + "proj", m.hidden * (m.heads * a.v_head / tp), m.hidden, layer, false, false});
    return;
  }
  const std::int64_t qkv_rows = (m.heads + 2 * m.kv_heads) * m.head_dim / tp;
  out.push_back({p + "qkv", qkv_rows * m.hidden, qkv_rows, layer, false, false});
  out.push_back({p + "proj", m.hidden * (m.heads * m.head_dim / tp), m.hidden, layer, false, false});
}

}  // namespace

ModelSpec load_model(const std::string& name_or_path, const std::string& models_dir) {
  const auto path = model_path(name_or_path, models_dir);
  const YamlFields f(path);
  f.reject_unknown({"name", "source", "hidden", "layers", "heads", "kv_heads", "head_dim", "ffn", "vocab", "mlp",
                    "norm", "tied_embeddings", "moe", "mla"});
  ModelSpec m;
  m.file = path;
  m.name = f.text("name", std::filesystem::path(path).stem().string());
  m.hidden = positive(f, "hidden", 0);
  m.layers = positive(f, "layers", 0);
  m.heads = positive(f, "heads", 0);
  m.kv_heads = positive(f, "kv_heads", m.heads);
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
    throw UsageError("kv_heads " + std::to_string(m.kv_heads) +
                         (m.kv_heads > m.heads ? " is more than heads " : " does not divide heads ") +
                         std::to_string(m.heads),
                     "each group of query heads shares one key/value head: give kv_heads a divisor of heads "
                     "(heads itself without grouped-query attention)",
                     f.where("kv_heads"));
  }
  m.head_dim = positive(f, "head_dim", m.hidden / m.heads);
  m.ffn = positive(f, "ffn", 0);
  m.vocab = positive(f, "vocab", 0);
  m.mlp = f.text("mlp", m.mlp);
  if (m.mlp != "swiglu" && m.mlp != "squared_relu" && m.mlp != "gelu") {
    throw UsageError("mlp '" + m.mlp + "' is not known", "use swiglu, squared_relu or gelu", f.where("mlp"));
  }
  m.norm = f.text("norm", m.norm);
  if (m.norm != "rmsnorm" && m.norm != "layernorm") {
    throw UsageError("norm '" + m.norm + "' is not known", "use rmsnorm or layernorm", f.where("norm"));
  }
  m.tied_embeddings = f.boolean("tied_embeddings", false);
  const auto moe = f.mapping("moe");
  moe.reject_unknown({"experts", "topk", "ffn", "shared_experts", "shared_ffn", "first_dense_layers"});
  if (moe.has("experts")) {
    m.moe.experts = static_cast<int>(positive(moe, "experts", 0));
    m.moe.topk = static_cast<int>(positive(moe, "topk", 0));
    if (m.moe.topk > m.moe.experts) {
      throw UsageError("moe topk " + std::to_string(m.moe.topk) + " is more than the " + std::to_string(m.moe.experts) +
                           " experts",
                       "a token is routed to topk of the experts: give topk at most experts", moe.where("topk"));
    }
    m.moe.ffn = static_cast<int>(positive(moe, "ffn", m.ffn));
    m.moe.shared_experts = count_up_to(moe, "shared_experts", 0, kMaxModelNumber,
                                       "give the always-on experts per layer, 0 for none");
    m.moe.shared_ffn = static_cast<int>(positive(moe, "shared_ffn", m.moe.ffn));
    m.moe.first_dense_layers = count_up_to(moe, "first_dense_layers", 0, m.layers,
                                           "give the leading layers with a dense MLP: at most the model's " +
                                               std::to_string(m.layers) + " layers, 0 for none");
  }
  const auto mla = f.mapping("mla");
  mla.reject_unknown({"q_lora", "kv_lora", "qk_nope", "qk_rope", "v_head"});
  if (mla.has("kv_lora")) {
    m.mla = {static_cast<int>(positive(mla, "q_lora", 0)), static_cast<int>(positive(mla, "kv_lora", 0)),
             static_cast<int>(positive(mla, "qk_nope", 0)), static_cast<int>(positive(mla, "qk_rope", 0)),
             static_cast<int>(positive(mla, "v_head", 0))};
  }
  return m;
}

std::int64_t padded_vocab(const ModelSpec& m, int tp) {
  const std::int64_t multiple = 128LL * tp;
  return (m.vocab + multiple - 1) / multiple * multiple;
}

std::vector<Param> layer_params(const ModelSpec& m, int layer, int tp, int ep) {
  std::vector<Param> out;
  const std::string p = "layer " + std::to_string(layer) + " ";
  add_norm(out, m, p + "input norm", m.hidden, layer, true);
  add_attention(out, m, tp, layer);
  add_norm(out, m, p + "mlp norm", m.hidden, layer, true);
  const bool moe_layer = m.moe.experts > 0 && layer >= m.moe.first_dense_layers;
  if (!moe_layer) {
    add_mlp(out, m, p + "mlp", m.ffn, tp, layer, false);
    return out;
  }
  out.push_back({p + "router", m.moe.experts * m.hidden, m.moe.experts, layer, false, false});
  for (int s = 0; s < m.moe.shared_experts; ++s) {
    add_mlp(out, m, p + "shared expert " + std::to_string(s), m.moe.shared_ffn, tp, layer, false);
  }
  for (int e = 0; e < m.moe.experts / ep; ++e) {
    add_mlp(out, m, p + "expert " + std::to_string(e), m.moe.ffn, tp, layer, true);
  }
  return out;
}

std::vector<Param> embedding_params(const ModelSpec& m, int tp) {
  const std::int64_t rows = padded_vocab(m, tp) / tp;
  return {{"embedding", rows * m.hidden, rows, -1, false, false}};
}

std::vector<Param> head_params(const ModelSpec& m, int tp) {
  std::vector<Param> out;
  add_norm(out, m, "final norm", m.hidden, -1, true);
  if (!m.tied_embeddings) {
    const std::int64_t rows = padded_vocab(m, tp) / tp;
    out.push_back({"output layer", rows * m.hidden, rows, -1, false, false});
  }
  return out;
}

}  // namespace ncclsweep
