#include "workloads/hf_families.hpp"

#include <algorithm>
#include <cstdint>

namespace roofsim {

namespace {

// --- The families -------------------------------------------------------------------------
// Each reads the keys its transformers class reads, with that class's defaults where the
// published configs leave a key out, and sets what changes the weights, the KV cache or the
// work: sizes, biases, norms, windows, experts. Keys that only change numerics (rope scaling,
// soft-capping, query_pre_attn_scalar, epsilon) are read by nobody here.

// The decoder sizes every Llama-style config names the same way.
void read_llama_sizes(const HfReader& r, ModelConfig& m, bool tied_default) {
  m.hidden = r.positive("hidden_size");
  m.layers = r.positive("num_hidden_layers");
  m.heads = r.positive("num_attention_heads");
  m.kv_heads = r.positive_or("num_key_value_heads", m.heads);
  if (!r.has("head_dim") && m.hidden % m.heads != 0) r.fail("num_attention_heads", "does not divide hidden_size and there is no head_dim");
  m.head_dim = r.positive_or("head_dim", m.hidden / m.heads);
  m.max_context = r.positive_or("max_position_embeddings", 0);
  m.intermediate = r.positive("intermediate_size");
  m.vocab = r.positive("vocab_size");
  m.gated_mlp = true;
  m.tied_embeddings = r.boolean_or("tie_word_embeddings", tied_default);
}

// One flag per layer, all `value`; a layer count beyond any model is refused before the flags
// are allocated (model_problem checks the rest once the family is read).
std::vector<bool> layer_flags(const HfReader& r, const ModelConfig& m, bool value) {
  if (m.layers > 10000) r.fail("num_hidden_layers", std::to_string(m.layers) + ": larger than any model (at most 10000)");
  return std::vector<bool>(static_cast<std::size_t>(m.layers), value);
}

// `layer_types` ("sliding_attention" / "full_attention", one per layer) as newer configs
// write them; false when the config has none.
bool read_layer_types(const HfReader& r, ModelConfig& m) {
  if (!r.has("layer_types")) return false;
  const std::vector<std::string> types = r.strings("layer_types");
  if (types.size() != static_cast<std::size_t>(m.layers)) {
    r.fail("layer_types", std::to_string(types.size()) + " entries for " + std::to_string(m.layers) + " layers (num_hidden_layers)");
  }
  std::vector<bool> sliding;
  for (const std::string& t : types) {
    if (t != "sliding_attention" && t != "full_attention") {
      r.fail("layer_types", "unknown entry '" + t + "' (expected sliding_attention or full_attention)");
    }
    sliding.push_back(t == "sliding_attention");
  }
  if (std::find(sliding.begin(), sliding.end(), true) != sliding.end()) {
    if (!r.has("sliding_window")) r.fail("sliding_window", "missing: layer_types has sliding_attention layers");
    m.sliding_window = r.positive("sliding_window");
    m.sliding_layers = sliding;
  }
  return true;
}

// Every layer slides when `sliding_window` is a number (Mistral-7B-v0.1, Phi-3); null: none.
void read_uniform_window(const HfReader& r, ModelConfig& m) {
  if (read_layer_types(r, m) || !r.has("sliding_window")) return;
  m.sliding_window = r.positive("sliding_window");
  m.sliding_layers = layer_flags(r, m, true);
}

// Routed experts of the Qwen MoE models: `mlp_only_layers` and `decoder_sparse_step` choose
// which layers have them; the model here supports dense layers only as a first block.
void read_qwen_experts(const HfReader& r, ModelConfig& m) {
  m.experts = r.positive("num_experts");
  m.experts_per_token = r.positive("num_experts_per_tok");
  m.moe_intermediate = r.positive("moe_intermediate_size");
  if (r.positive_or("decoder_sparse_step", 1) != 1) {
    r.fail("decoder_sparse_step", "only 1 (every layer has experts) is supported");
  }
  if (r.has("mlp_only_layers")) {
    const std::vector<std::int64_t> dense = r.integers("mlp_only_layers");
    for (std::size_t i = 0; i < dense.size(); ++i) {
      if (dense[i] != static_cast<std::int64_t>(i)) {
        r.fail("mlp_only_layers", "only a first block of dense layers (0, 1, 2, ...) is supported");
      }
    }
    m.dense_layers = static_cast<std::int64_t>(dense.size());
  }
}

// Qwen2 and Qwen2-MoE slide only when use_sliding_window is set, and then on the layers from
// max_window_layers on (transformers' Qwen2Attention).
void read_qwen2_window(const HfReader& r, ModelConfig& m) {
  if (read_layer_types(r, m) || !r.boolean_or("use_sliding_window", false)) return;
  m.sliding_window = r.positive("sliding_window");
  const std::int64_t from = r.count_or("max_window_layers", 0);
  m.sliding_layers = layer_flags(r, m, false);
  for (std::int64_t l = from; l < m.layers; ++l) m.sliding_layers[static_cast<std::size_t>(l)] = true;
}

void read_llama(const HfReader& r, ModelConfig& m) {
  read_llama_sizes(r, m, false);
  m.qkv_bias = m.o_bias = r.boolean_or("attention_bias", false);
  m.mlp_bias = r.boolean_or("mlp_bias", false);
  read_layer_types(r, m);
}

void read_mistral(const HfReader& r, ModelConfig& m) {  // also mixtral, phi3
  read_llama_sizes(r, m, false);
  read_uniform_window(r, m);
  if (m.architecture == "mixtral") {
    m.experts = r.positive("num_local_experts");
    m.experts_per_token = r.positive("num_experts_per_tok");
  }
}

void read_qwen2(const HfReader& r, ModelConfig& m) {  // also qwen2_moe
  read_llama_sizes(r, m, false);
  m.qkv_bias = true;  // Qwen2Attention: bias on q, k and v, none on o
  read_qwen2_window(r, m);
  if (m.architecture == "qwen2_moe") {
    read_qwen_experts(r, m);
    // One shared expert of its own width (and a one-logit gate, hidden_size weights: not counted).
    if (r.has("shared_expert_intermediate_size")) {
      m.shared_experts = 1;
      m.shared_intermediate = r.positive("shared_expert_intermediate_size");
    }
  }
}

void read_qwen3(const HfReader& r, ModelConfig& m) {  // also qwen3_moe
  read_llama_sizes(r, m, false);
  m.qk_norm = true;  // RMSNorm over each head's query and key
  m.qkv_bias = m.o_bias = r.boolean_or("attention_bias", false);
  read_qwen2_window(r, m);
  if (m.architecture == "qwen3_moe") read_qwen_experts(r, m);
}

// Gemma-2 and Gemma-3 slide on a fixed pattern of layers: Gemma-2 on the even ones
// (transformers: is_sliding = not layer_idx % 2), Gemma-3 on all but every sixth
// (sliding_window_pattern). Both tie the embeddings by default.
void read_gemma2(const HfReader& r, ModelConfig& m) {
  read_llama_sizes(r, m, true);
  m.qkv_bias = m.o_bias = r.boolean_or("attention_bias", false);
  if (read_layer_types(r, m)) return;
  m.sliding_window = r.positive("sliding_window");
  m.sliding_layers = layer_flags(r, m, false);
  for (std::int64_t l = 0; l < m.layers; l += 2) m.sliding_layers[static_cast<std::size_t>(l)] = true;
}

void read_gemma3_text(const HfReader& r, ModelConfig& m) {
  // Gemma3TextConfig's defaults for what the published gemma-3 configs leave out: the
  // vocabulary (262,208), the context (131,072), the window (4,096) and its pattern (6).
  m.hidden = r.positive("hidden_size");
  m.layers = r.positive("num_hidden_layers");
  m.heads = r.positive("num_attention_heads");
  m.kv_heads = r.positive("num_key_value_heads");
  m.head_dim = r.positive("head_dim");
  m.intermediate = r.positive("intermediate_size");
  m.vocab = r.positive_or("vocab_size", 262208);
  m.max_context = r.positive_or("max_position_embeddings", 131072);
  m.tied_embeddings = r.boolean_or("tie_word_embeddings", true);
  m.qk_norm = true;
  m.qkv_bias = m.o_bias = r.boolean_or("attention_bias", false);
  if (read_layer_types(r, m)) return;
  m.sliding_window = r.positive_or("sliding_window", 4096);
  const std::int64_t pattern = r.positive_or("sliding_window_pattern", 6);
  m.sliding_layers = layer_flags(r, m, false);
  for (std::int64_t l = 0; l < m.layers; ++l) m.sliding_layers[static_cast<std::size_t>(l)] = (l + 1) % pattern != 0;
}

// gpt-oss: experts with biases (gate_up and down), attention with biases and a learned sink
// per head, alternating 128-token windows. Its MXFP4 expert storage changes bytes, not counts.
void read_gpt_oss(const HfReader& r, ModelConfig& m) {
  read_llama_sizes(r, m, false);
  m.experts = r.positive("num_local_experts");
  m.experts_per_token = r.has("num_experts_per_tok") ? r.positive("num_experts_per_tok") : r.positive("experts_per_token");
  m.qkv_bias = m.o_bias = r.boolean_or("attention_bias", true);
  m.mlp_bias = true;
  m.attention_sinks = true;
  if (!read_layer_types(r, m)) r.fail("layer_types", "missing (gpt-oss names each layer's attention)");
}

// Falcon: MQA (7B: multi_query) or grouped KV (40B/180B: new_decoder_architecture with
// num_kv_heads), attention and MLP side by side, a plain 4h GELU MLP, tied embeddings.
void read_falcon(const HfReader& r, ModelConfig& m) {
  m.hidden = r.positive("hidden_size");
  m.layers = r.positive("num_hidden_layers");
  m.heads = r.positive("num_attention_heads");
  if (m.hidden % m.heads != 0) r.fail("num_attention_heads", "does not divide hidden_size");
  m.head_dim = m.hidden / m.heads;
  if (r.boolean_or("new_decoder_architecture", false)) m.kv_heads = r.positive("num_kv_heads");
  else m.kv_heads = r.boolean_or("multi_query", true) ? 1 : m.heads;
  if (!r.has("ffn_hidden_size") && m.hidden > std::numeric_limits<std::int64_t>::max() / 4) {
    r.fail("hidden_size", "too large: the MLP width without ffn_hidden_size, 4 x hidden_size, overflows");
  }
  m.intermediate = r.positive_or("ffn_hidden_size", 4 * m.hidden);
  m.vocab = r.positive("vocab_size");
  m.max_context = r.positive_or("max_position_embeddings", 2048);
  m.gated_mlp = false;
  m.tied_embeddings = r.boolean_or("tie_word_embeddings", true);
  m.parallel_block = r.boolean_or("parallel_attn", true);
  m.qkv_bias = m.o_bias = m.mlp_bias = r.boolean_or("bias", false);
  r.boolean_or("alibi", false);  // ALiBi instead of rotary: no weights, no cache (checked for its type only)
}

// GPT-NeoX: biases everywhere, attention and MLP in parallel by default; rotary_pct only
// changes which dims rotate.
void read_gpt_neox(const HfReader& r, ModelConfig& m) {
  m.hidden = r.positive("hidden_size");
  m.layers = r.positive("num_hidden_layers");
  m.heads = r.positive("num_attention_heads");
  m.kv_heads = m.heads;
  if (m.hidden % m.heads != 0) r.fail("num_attention_heads", "does not divide the hidden size");
  m.head_dim = m.hidden / m.heads;
  m.max_context = r.positive_or("max_position_embeddings", 0);
  m.intermediate = r.positive("intermediate_size");
  m.vocab = r.positive("vocab_size");
  m.gated_mlp = false;
  m.tied_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.parallel_block = r.boolean_or("use_parallel_residual", true);
  m.qkv_bias = m.o_bias = r.boolean_or("attention_bias", true);
  m.mlp_bias = true;
}

// GPT-J: attention and MLP in parallel, no attention biases, biased MLP (and LM head bias,
// vocab_size numbers: not counted).
void read_gptj(const HfReader& r, ModelConfig& m) {
  m.hidden = r.positive("n_embd");
  m.layers = r.positive("n_layer");
  m.heads = r.positive("n_head");
  m.kv_heads = m.heads;
  if (m.hidden % m.heads != 0) r.fail("n_head", "does not divide the hidden size (n_embd)");
  m.head_dim = m.hidden / m.heads;
  if (!r.has("n_inner") && m.hidden > std::numeric_limits<std::int64_t>::max() / 4) {
    r.fail("n_embd", "too large: the MLP width without n_inner, 4 x n_embd, overflows");
  }
  m.max_context = r.positive_or("n_positions", 0);
  m.intermediate = r.positive_or("n_inner", 4 * m.hidden);
  m.vocab = r.positive("vocab_size");
  m.gated_mlp = false;
  m.tied_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.parallel_block = true;
  m.mlp_bias = true;
}

// DeepSeek-V3's expert layout (DeepSeek-V2/V3, Kimi-K2, GLM-4.5): routed experts of their own
// width, shared ones beside them, after `first_k_dense_replace` dense layers.
void read_deepseek_experts(const HfReader& r, ModelConfig& m) {
  m.experts = r.positive("n_routed_experts");
  m.experts_per_token = r.positive("num_experts_per_tok");
  m.moe_intermediate = r.positive("moe_intermediate_size");
  m.shared_experts = r.count_or("n_shared_experts", 0);
  m.dense_layers = r.count_or("first_k_dense_replace", 0);
  if (r.positive_or("moe_layer_freq", 1) != 1) r.fail("moe_layer_freq", "only 1 (every layer after the dense ones has experts) is supported");
}

// DeepSeek-V2/V3 (and Kimi-K2, a DeepSeek-V3 with other sizes): latent attention, shared
// plus routed experts of their own width after `first_k_dense_replace` dense layers, and
// `num_nextn_predict_layers` MTP modules.
void read_deepseek(const HfReader& r, ModelConfig& m) {
  m.hidden = r.positive("hidden_size");
  m.layers = r.positive("num_hidden_layers");
  m.heads = r.positive("num_attention_heads");
  if (r.has("num_key_value_heads") && r.positive("num_key_value_heads") != m.heads) {
    r.fail("num_key_value_heads", "latent attention has no KV heads of its own: must equal num_attention_heads (" +
                                      std::to_string(m.heads) + ")");
  }
  m.kv_heads = m.heads;
  LatentAttention a;
  a.q_lora_rank = r.has("q_lora_rank") ? r.positive("q_lora_rank") : 0;  // null: one plain query projection (V2-Lite)
  a.kv_lora_rank = r.positive("kv_lora_rank");
  a.qk_nope_head_dim = r.positive("qk_nope_head_dim");
  a.qk_rope_head_dim = r.positive("qk_rope_head_dim");
  a.v_head_dim = r.positive("v_head_dim");
  if (r.has("qk_head_dim") && r.positive("qk_head_dim") != a.qk_head_dim()) {
    r.fail("qk_head_dim", "must be qk_nope_head_dim + qk_rope_head_dim (" + std::to_string(a.qk_head_dim()) + ")");
  }
  if (a.q_lora_rank >= m.hidden) r.fail("q_lora_rank", "must be below hidden_size (" + std::to_string(m.hidden) + "): it compresses");
  if (a.kv_lora_rank >= m.hidden) r.fail("kv_lora_rank", "must be below hidden_size (" + std::to_string(m.hidden) + "): it compresses");
  m.mla = a;
  m.head_dim = a.qk_head_dim();
  m.intermediate = r.positive("intermediate_size");
  m.vocab = r.positive("vocab_size");
  m.max_context = r.positive_or("max_position_embeddings", 0);
  m.tied_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.qkv_bias = m.o_bias = r.boolean_or("attention_bias", false);
  if (r.has("n_routed_experts")) read_deepseek_experts(r, m);  // absent or null: a dense model
  m.mtp_layers = r.count_or("num_nextn_predict_layers", 0);
}

// GLM-4.5 (glm4_moe): grouped-query attention with biases on Q, K and V (attention_bias; the
// output projection has none), an optional RMSNorm on each head's query and key (use_qk_norm),
// and DeepSeek-V3's expert layout: routed experts of their own width plus shared ones after
// `first_k_dense_replace` dense layers, and `num_nextn_predict_layers` MTP modules. Only half of
// each head rotates (partial_rotary_factor), which changes no size.
void read_glm4_moe(const HfReader& r, ModelConfig& m) {
  read_llama_sizes(r, m, false);
  m.qkv_bias = r.boolean_or("attention_bias", false);
  m.qk_norm = r.boolean_or("use_qk_norm", false);
  read_deepseek_experts(r, m);
  m.mtp_layers = r.count_or("num_nextn_predict_layers", 0);
}

// MiniMax-M2 (minimax_m2): grouped-query attention with an RMSNorm over the query and key
// projections (use_qk_norm), experts in every layer and no shared one, each expert as wide as
// intermediate_size (as Mixtral's), sigmoid routing, and `num_mtp_modules` MTP modules when
// use_mtp. Only rotary_dim of each head rotates, which changes no size.
void read_minimax_m2(const HfReader& r, ModelConfig& m) {
  read_llama_sizes(r, m, false);
  m.qkv_bias = m.o_bias = r.boolean_or("attention_bias", false);
  m.qk_norm = r.boolean_or("use_qk_norm", false);
  m.experts = r.positive("num_local_experts");
  m.experts_per_token = r.positive("num_experts_per_tok");
  if (r.count_or("shared_intermediate_size", 0) > 0) r.fail("shared_intermediate_size", "a shared expert is not supported for minimax_m2");
  m.mtp_layers = r.boolean_or("use_mtp", false) ? r.count_or("num_mtp_modules", 0) : 0;
}

// DeepSeek-V3.2 (deepseek_v32) and GLM-5 (glm_moe_dsa): DeepSeek-V3's latent attention and
// experts with DeepSeek Sparse Attention on every layer: a lightning indexer of index_n_heads
// heads of index_head_dim picks the index_topk tokens each query attends to.
void read_deepseek_sparse(const HfReader& r, ModelConfig& m) {
  read_deepseek(r, m);
  SparseAttention x;
  x.index_heads = r.positive("index_n_heads");
  x.index_head_dim = r.positive("index_head_dim");
  x.topk = r.positive("index_topk");
  m.sparse = x;
}

// Llama 4 (llama4_text, the text_config of llama4): every interleave_moe_layer_step-th layer
// (or those moe_layers lists) routes each token to num_experts_per_tok of num_local_experts
// experts beside one shared expert, all intermediate_size wide; the other layers have a dense MLP
// of intermediate_size_mlp. Layers with RoPE (no_rope_layers: 1; by default all but every
// no_rope_layer_interval-th, 4, as Llama4TextConfig fills an empty list) attend within chunks of
// attention_chunk_size; the others attend globally. use_qk_norm: an L2 norm of the RoPE layers'
// queries and keys.
void read_llama4_text(const HfReader& r, ModelConfig& m) {
  read_llama_sizes(r, m, false);
  const std::int64_t expert = m.intermediate;
  m.intermediate = r.positive("intermediate_size_mlp");
  m.qkv_bias = m.o_bias = r.boolean_or("attention_bias", false);
  m.qk_norm = r.boolean_or("use_qk_norm", false);
  m.experts = r.positive("num_local_experts");
  m.experts_per_token = r.positive("num_experts_per_tok");
  m.moe_intermediate = expert;
  m.shared_experts = 1;
  m.shared_intermediate = expert;
  m.expert_layers = layer_flags(r, m, false);
  if (r.has("moe_layers")) {
    for (std::int64_t l : r.integers("moe_layers")) {
      if (l >= m.layers) r.fail("moe_layers", "layer " + std::to_string(l) + " of " + std::to_string(m.layers) + " (num_hidden_layers)");
      m.expert_layers[static_cast<std::size_t>(l)] = true;
    }
  } else {
    const std::int64_t step = r.positive_or("interleave_moe_layer_step", 1);
    for (std::int64_t l = step - 1; l < m.layers; l += step) m.expert_layers[static_cast<std::size_t>(l)] = true;
  }
  if (!r.has("attention_chunk_size")) return;
  m.attention_chunk = r.positive("attention_chunk_size");
  std::vector<std::int64_t> rope = r.has("no_rope_layers") ? r.integers("no_rope_layers") : std::vector<std::int64_t>{};
  if (rope.empty()) {
    const std::int64_t every = r.positive_or("no_rope_layer_interval", 4);
    for (std::int64_t l = 0; l < m.layers; ++l) rope.push_back((l + 1) % every != 0 ? 1 : 0);
  }
  if (rope.size() != static_cast<std::size_t>(m.layers)) {
    r.fail("no_rope_layers", std::to_string(rope.size()) + " entries for " + std::to_string(m.layers) + " layers (num_hidden_layers)");
  }
  m.chunked_layers = layer_flags(r, m, false);
  for (std::size_t l = 0; l < rope.size(); ++l) {
    if (rope[l] > 1) r.fail("no_rope_layers", "expected 0 (no RoPE: global) or 1 (RoPE: chunked) per layer, got " + std::to_string(rope[l]));
    m.chunked_layers[l] = rope[l] == 1;
  }
}

// Qwen3-Next (qwen3_next) and Qwen3.5 (qwen3_5_moe_text, qwen3_5_text, the text_config of
// qwen3_5_moe and qwen3_5): hybrid layers - Gated DeltaNet linear attention on most, and on
// every full_attention_interval-th (or where layer_types says full_attention) gated attention
// (q_proj also makes an output gate: attn_output_gate, on by default) with RMSNorm on queries and
// keys - and Qwen's experts with one shared expert of shared_expert_intermediate_size. The linear
// layers' recurrent state is kept in mamba_ssm_dtype (Qwen3.5: float32), else in 16 bits.
void read_qwen3_next(const HfReader& r, ModelConfig& m) {
  m.hidden = r.positive("hidden_size");
  m.layers = r.positive("num_hidden_layers");
  m.heads = r.positive("num_attention_heads");
  m.kv_heads = r.positive_or("num_key_value_heads", m.heads);
  m.head_dim = r.positive("head_dim");
  m.vocab = r.positive("vocab_size");
  m.max_context = r.positive_or("max_position_embeddings", 0);
  m.tied_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.qk_norm = true;
  m.attention_gate = r.boolean_or("attn_output_gate", true);
  m.qkv_bias = m.o_bias = r.boolean_or("attention_bias", false);
  if (r.has("num_experts")) {
    read_qwen_experts(r, m);
    if (r.count_or("shared_expert_intermediate_size", 0) > 0) {
      m.shared_experts = 1;
      m.shared_intermediate = r.positive("shared_expert_intermediate_size");
    }
    m.intermediate = r.positive_or("intermediate_size", m.moe_intermediate);  // Qwen3.5's MoE files have none: no dense MLP
  } else {
    m.intermediate = r.positive("intermediate_size");
  }
  m.mtp_layers = r.count_or("mtp_num_hidden_layers", 0);
  LinearAttention a;
  a.key_heads = r.positive("linear_num_key_heads");
  a.value_heads = r.positive("linear_num_value_heads");
  a.key_head_dim = r.positive("linear_key_head_dim");
  a.value_head_dim = r.positive("linear_value_head_dim");
  a.conv_kernel = r.positive("linear_conv_kernel_dim");
  const std::string state = r.string_or("mamba_ssm_dtype", "bfloat16");
  if (state == "float32") a.state_dtype = DType::fp32;
  else if (state == "bfloat16") a.state_dtype = DType::bf16;
  else if (state == "float16") a.state_dtype = DType::fp16;
  else r.fail("mamba_ssm_dtype", "expected float32, bfloat16 or float16, got '" + state + "'");
  m.linear = a;
  m.linear_layers = layer_flags(r, m, false);
  if (r.has("layer_types")) {
    const std::vector<std::string> types = r.strings("layer_types");
    if (types.size() != static_cast<std::size_t>(m.layers)) {
      r.fail("layer_types", std::to_string(types.size()) + " entries for " + std::to_string(m.layers) + " layers (num_hidden_layers)");
    }
    for (std::size_t l = 0; l < types.size(); ++l) {
      if (types[l] != "linear_attention" && types[l] != "full_attention") {
        r.fail("layer_types", "unknown entry '" + types[l] + "' (expected linear_attention or full_attention)");
      }
      m.linear_layers[l] = types[l] == "linear_attention";
    }
  } else {
    const std::int64_t every = r.positive_or("full_attention_interval", 4);
    for (std::int64_t l = 0; l < m.layers; ++l) m.linear_layers[static_cast<std::size_t>(l)] = (l + 1) % every != 0;
  }
}

}  // namespace

// Multimodal model_types and the model_types their text_config may have (the first when it
// names none): Gemma-3, Llama 4, Kimi-K2.5 (a Kimi-K2 language model) and Qwen3.5.
const std::map<std::string, std::vector<std::string>>& hf_multimodal_wrappers() {
  static const std::map<std::string, std::vector<std::string>> w = {
      {"gemma3", {"gemma3_text"}}, {"llama4", {"llama4_text"}}, {"kimi_k25", {"kimi_k2", "deepseek_v3"}},
      {"qwen3_5_moe", {"qwen3_5_moe_text"}}, {"qwen3_5", {"qwen3_5_text"}}};
  return w;
}
const std::map<std::string, HfFamilyReader>& hf_families() {
  static const std::map<std::string, HfFamilyReader> f = {
      {"llama", read_llama},          {"mistral", read_mistral},       {"mixtral", read_mistral},
      {"phi3", read_mistral},         {"qwen2", read_qwen2},           {"qwen2_moe", read_qwen2},
      {"qwen3", read_qwen3},          {"qwen3_moe", read_qwen3},       {"gemma2", read_gemma2},
      {"gemma3_text", read_gemma3_text}, {"gpt_oss", read_gpt_oss},    {"falcon", read_falcon},
      {"gpt_neox", read_gpt_neox},    {"gptj", read_gptj},             {"deepseek_v2", read_deepseek},
      {"deepseek_v3", read_deepseek}, {"kimi_k2", read_deepseek},   {"glm4_moe", read_glm4_moe},
      {"minimax_m2", read_minimax_m2}, {"deepseek_v32", read_deepseek_sparse}, {"glm_moe_dsa", read_deepseek_sparse},
      {"llama4_text", read_llama4_text}, {"qwen3_next", read_qwen3_next}, {"qwen3_5_moe_text", read_qwen3_next},
      {"qwen3_5_text", read_qwen3_next}};
  return f;
}

// The config's own name for a ModelConfig member, for model_problem's messages.
std::string hf_config_key(const std::string& type, const std::string& field) {
  if (type == "gptj") {
    const std::map<std::string, std::string> k = {{"hidden", "n_embd"}, {"layers", "n_layer"}, {"heads", "n_head"},
                                                  {"intermediate", "n_inner"}, {"max_context", "n_positions"}};
    if (k.count(field)) return k.at(field);
  }
  const bool deepseek = type.rfind("deepseek", 0) == 0 || type == "kimi_k2" || type == "glm4_moe" || type == "glm_moe_dsa";
  const bool qwen_moe = type == "qwen2_moe" || type == "qwen3_moe" || type == "qwen3_next" || type == "qwen3_5_moe_text";
  std::map<std::string, std::string> k = {
      {"hidden", "hidden_size"}, {"layers", "num_hidden_layers"}, {"heads", "num_attention_heads"},
      {"kv_heads", type == "falcon" ? "num_kv_heads" : "num_key_value_heads"}, {"head_dim", "head_dim"},
      {"intermediate", "intermediate_size"}, {"vocab", "vocab_size"},
      {"experts", deepseek ? "n_routed_experts" : qwen_moe ? "num_experts" : "num_local_experts"},
      {"experts_per_token", "num_experts_per_tok"}, {"max_context", "max_position_embeddings"},
      {"moe_intermediate", "moe_intermediate_size"}, {"shared_experts", "n_shared_experts"},
      {"shared_intermediate", "shared_expert_intermediate_size"}, {"dense_layers", deepseek ? "first_k_dense_replace" : "mlp_only_layers"},
      {"mtp_layers", "num_nextn_predict_layers"}, {"sliding_window", "sliding_window"}, {"sliding_layers", "layer_types"},
      {"mla.q_lora_rank", "q_lora_rank"}, {"mla.kv_lora_rank", "kv_lora_rank"}, {"mla.qk_nope_head_dim", "qk_nope_head_dim"},
      {"mla.qk_rope_head_dim", "qk_rope_head_dim"}, {"mla.v_head_dim", "v_head_dim"},
      {"sparse.index_heads", "index_n_heads"}, {"sparse.index_head_dim", "index_head_dim"}, {"sparse.topk", "index_topk"},
      {"attention_chunk", "attention_chunk_size"}, {"chunked_layers", "no_rope_layers"}, {"expert_layers", "moe_layers"},
      {"linear.key_heads", "linear_num_key_heads"}, {"linear.value_heads", "linear_num_value_heads"},
      {"linear.key_head_dim", "linear_key_head_dim"}, {"linear.value_head_dim", "linear_value_head_dim"},
      {"linear.conv_kernel", "linear_conv_kernel_dim"}, {"linear_layers", "layer_types"}};
  return k.count(field) ? k.at(field) : field;
}

}  // namespace roofsim
