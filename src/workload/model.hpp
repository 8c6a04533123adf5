#pragma once
// Transformer architectures as data (configs/models/*.yaml) and the parameter tensors
// one tensor-parallel rank holds, in the order the model registers them.
#include <cstdint>
#include <string>
#include <vector>

namespace ncclsweep {

struct MoeSpec {
  int experts = 0;             // routed experts; 0 = dense model
  int topk = 0;
  int ffn = 0;                 // hidden size of one routed expert
  int shared_experts = 0;      // always-on experts, ffn = shared_ffn each
  int shared_ffn = 0;
  int first_dense_layers = 0;  // leading layers with a dense MLP of `ffn` (the model's)
};

// Multi-head latent attention (DeepSeek-V3); absent when kv_lora == 0.
struct MlaSpec {
  int q_lora = 0, kv_lora = 0, qk_nope = 0, qk_rope = 0, v_head = 0;
};

struct ModelSpec {
  std::string name;
  std::string file;  // where it was loaded from
  std::int64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, vocab = 0;
  std::string mlp = "swiglu";   // swiglu (gated: 3 matrices) | squared_relu | gelu (2 matrices)
  std::string norm = "rmsnorm"; // rmsnorm (weight) | layernorm (weight and bias)
  bool tied_embeddings = false;
  MoeSpec moe;
  MlaSpec mla;
};

// One parameter tensor as a tensor-parallel rank holds it.
struct Param {
  std::string name;     // "layer 3 mlp fc1"
  std::int64_t numel;   // elements on this TP rank
  std::int64_t dim0;    // first dimension (FSDP shards along it)
  int layer = -1;       // -1: embedding, final norm, output layer
  bool expert = false;  // lives in the expert buffers (reduced over edp, not dp-cp)
  bool norm = false;    // a norm weight/bias (sequence-parallel grads all-reduced over tp)
};

// Loads a model by name from `models_dir` (name.yaml) or from a path ending in .yaml.
// Throws UsageError naming the file, the key and what is wrong.
ModelSpec load_model(const std::string& name_or_path, const std::string& models_dir);

// Parameters of one transformer layer on one TP rank of `tp`, with experts / ep routed
// experts; in registration order.
std::vector<Param> layer_params(const ModelSpec& m, int layer, int tp, int ep);
// Embedding (vocab padded to a multiple of 128*tp), final norm and output layer.
std::vector<Param> embedding_params(const ModelSpec& m, int tp);
std::vector<Param> head_params(const ModelSpec& m, int tp);
std::int64_t padded_vocab(const ModelSpec& m, int tp);

}  // namespace ncclsweep
