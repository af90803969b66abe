#include "workloads/model_catalog.hpp"

#include <cmath>

#include "core/dtype.hpp"
#include "core/presets.hpp"

namespace roofsim {

std::vector<CatalogEntry> model_catalog() {
  std::vector<CatalogEntry> out;
  for (const std::string& name : list_presets("models")) out.push_back({name, "preset", load_model(name)});
  for (const std::string& id : list_hub_configs()) out.push_back({id, "hf", load_model(id)});
  return out;
}

nlohmann::json catalog_row(const CatalogEntry& e) {
  const ModelConfig& m = e.model;
  return {{"name", e.name},
          {"hub_id", m.hub_id},
          {"architecture", m.architecture},
          {"layers", m.layers},
          // Whole numbers: written as integers, exactly, in JSON and CSV.
          {"total_params", std::llround(m.total_params())},
          {"active_params_per_token", std::llround(m.active_params_per_token())},
          {"kv_bytes_per_token_bf16", std::llround(m.kv_bytes_per_token(DType::bf16))},
          {"max_context", m.max_context}};
}

nlohmann::json model_fields_json(const ModelConfig& m) {
  nlohmann::json j = {{"name", m.name},
                      {"source", m.source},
                      {"hub_id", m.hub_id},
                      {"architecture", m.architecture},
                      {"hidden_size", m.hidden},
                      {"layers", m.layers},
                      {"attention_heads", m.heads},
                      {"kv_heads", m.kv_heads},
                      {"head_dim", m.head_dim},
                      {"intermediate_size", m.intermediate},
                      {"vocab_size", m.vocab},
                      {"mlp", m.gated_mlp ? "gated" : "plain"},
                      {"tied_embeddings", m.tied_embeddings},
                      {"experts", m.experts},
                      {"experts_per_token", m.experts_per_token},
                      {"moe_intermediate_size", m.moe_intermediate},
                      {"shared_experts", m.shared_experts},
                      {"shared_intermediate_size", m.shared_intermediate},
                      {"dense_layers", m.dense_layers},
                      {"mtp_layers", m.mtp_layers},
                      {"max_context", m.max_context},
                      {"sliding_window", m.sliding_window},
                      {"attention_sinks", m.attention_sinks},
                      {"qkv_bias", m.qkv_bias},
                      {"o_bias", m.o_bias},
                      {"qk_norm", m.qk_norm},
                      {"parallel_block", m.parallel_block},
                      {"mlp_bias", m.mlp_bias}};
  std::int64_t sliding = 0;
  for (bool s : m.sliding_layers) sliding += s ? 1 : 0;
  j["sliding_layers"] = sliding;  // how many of the layers slide
  std::int64_t chunked = 0;
  for (bool c : m.chunked_layers) chunked += c ? 1 : 0;
  j["attention_chunk"] = m.attention_chunk;
  j["chunked_layers"] = chunked;  // how many attend within chunks
  j["moe_layers"] = m.moe_layer_count();
  j["quantization"] = m.quantization;
  j["attention_gate"] = m.attention_gate;
  j["linear_layers"] = m.linear_layer_count();  // how many are Gated DeltaNet layers
  if (m.linear) {
    j["linear"] = {{"key_heads", m.linear->key_heads},           {"value_heads", m.linear->value_heads},
                   {"key_head_dim", m.linear->key_head_dim},     {"value_head_dim", m.linear->value_head_dim},
                   {"conv_kernel", m.linear->conv_kernel},       {"state_dtype", std::string(dtype_name(m.linear->state_dtype))},
                   {"state_bytes_per_sequence_layer", m.linear->state_bytes()}};
  } else {
    j["linear"] = nullptr;
  }
  if (m.sparse) {
    j["sparse"] = {{"index_heads", m.sparse->index_heads}, {"index_head_dim", m.sparse->index_head_dim}, {"topk", m.sparse->topk}};
  } else {
    j["sparse"] = nullptr;
  }
  if (m.mla) {
    j["mla"] = {{"q_lora_rank", m.mla->q_lora_rank},           {"kv_lora_rank", m.mla->kv_lora_rank},
                {"qk_nope_head_dim", m.mla->qk_nope_head_dim}, {"qk_rope_head_dim", m.mla->qk_rope_head_dim},
                {"v_head_dim", m.mla->v_head_dim}};
  } else {
    j["mla"] = nullptr;
  }
  j["total_params"] = m.total_params();
  j["active_params_per_token"] = m.active_params_per_token();
  j["mtp_params"] = m.mtp_params();
  j["kv_bytes_per_token_bf16"] = m.kv_bytes_per_token(DType::bf16);
  return j;
}

}  // namespace roofsim
