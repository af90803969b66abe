#pragma once
// A decoder-only transformer as its config describes it, and the sizes that follow from it.
#include <cstdint>
#include <optional>
#include <string>

#include "core/dtype.hpp"

namespace roofsim {

struct ModelConfig {
  std::string name;
  std::string source;  // where the dimensions come from
  std::int64_t hidden = 0;
  std::int64_t layers = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;  // == heads: MHA; 1: MQA; otherwise GQA
  std::int64_t head_dim = 0;
  std::int64_t intermediate = 0;
  std::int64_t vocab = 0;
  bool gated_mlp = true;  // SwiGLU (gate, up, down) vs plain (up, down)
  bool tied_embeddings = false;
  std::int64_t experts = 1;  // MoE when > 1
  std::int64_t experts_per_token = 1;
  std::int64_t max_context = 0;  // longest prompt + output the model was trained for (0: unknown)

  double attention_params_per_layer() const;
  double mlp_params_per_expert() const;
  double params_per_layer() const;  // all experts
  double embedding_params() const;  // input table (+ separate LM head when untied)
  double total_params() const;
  // Parameters whose weights one token's forward pass reads (top-k experts only).
  double active_params_per_token() const;
  // K and V for one token across all layers.
  double kv_bytes_per_token(DType kv) const;
};

// What is wrong with a model's dimensions, if anything: non-positive sizes, sizes beyond any
// model (hidden 131072, 10000 layers, ...), KV heads that do not divide the heads, more experts
// per token than experts. `field` is the ModelConfig member ("kv_heads") for the loaders to
// name their own key.
struct ModelProblem {
  std::string field, problem;
};
std::optional<ModelProblem> model_problem(const ModelConfig& m);
// Throws InputError for the first problem; `where` names the model in the message.
void check_model(const ModelConfig& m, const std::string& where);

ModelConfig load_model_file(const std::string& path);
// Preset name ("llama-3-8b") or path to a model .toml.
ModelConfig load_model(const std::string& name_or_path);

}  // namespace roofsim
