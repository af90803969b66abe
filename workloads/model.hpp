#pragma once
// A decoder-only transformer as its config describes it, and the sizes that follow from it.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace roofsim {

// Multi-head latent attention (DeepSeek-V2/V3): queries go through a low-rank projection of
// `q_lora_rank` (0: one plain projection), keys and values are compressed into a latent of
// `kv_lora_rank` plus one rotary key of `qk_rope_head_dim` shared by every head. Per head, a
// query and a key have qk_nope_head_dim + qk_rope_head_dim dims and a value v_head_dim. The KV
// cache holds only the latent and the rotary key: kv_lora_rank + qk_rope_head_dim per token
// and layer. Prefill expands the latent into per-head keys and values; decode absorbs the
// expansion into the query and the output (attention over the latent, like MQA).
struct LatentAttention {
  std::int64_t q_lora_rank = 0;
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
  std::int64_t qk_head_dim() const { return qk_nope_head_dim + qk_rope_head_dim; }
  std::int64_t cache_dims() const { return kv_lora_rank + qk_rope_head_dim; }  // per token and layer
};

// DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5): a lightning indexer scores every cached
// token for each query - `index_heads` heads of `index_head_dim` over a key cache of its own
// (one fp8 key of index_head_dim and an fp32 scale per token and layer), ReLU'd and summed
// with a weight per head - and the query attends only to the `topk` best tokens. The main cache
// keeps every token; what a query reads of it stops growing at topk keys.
struct SparseAttention {
  std::int64_t index_heads = 0;
  std::int64_t index_head_dim = 0;
  std::int64_t topk = 0;
  // The indexer's cache per token and layer: the fp8 key and one fp32 scale per 128 values.
  double index_cache_bytes_per_token() const { return static_cast<double>(index_head_dim + 4 * ((index_head_dim + 127) / 128)); }
};

// Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5): a linear layer keeps, per sequence, a
// recurrent state of key_head_dim x value_head_dim per value head (in state_dtype) instead of a
// KV cache, updated token by token by the gated delta rule, and the last conv_kernel - 1 inputs of
// a causal depthwise convolution over its q, k and v. Its input projection makes q and k
// (key_heads of key_head_dim), v and an output gate z (value_heads of value_head_dim) and two
// scalars per value head (the delta rule's beta and decay); a gated RMSNorm and an output
// projection follow.
struct LinearAttention {
  std::int64_t key_heads = 0, value_heads = 0;
  std::int64_t key_head_dim = 0, value_head_dim = 0;
  std::int64_t conv_kernel = 0;
  DType state_dtype = DType::bf16;
  std::int64_t key_dim() const { return key_heads * key_head_dim; }
  std::int64_t value_dim() const { return value_heads * value_head_dim; }
  std::int64_t conv_dim() const { return 2 * key_dim() + value_dim(); }  // channels convolved: q, k, v
  std::int64_t projected() const { return 2 * key_dim() + 2 * value_dim() + 2 * value_heads; }  // q, k, v, z, beta, decay
  // One sequence's state in one layer: the recurrent state and the 16-bit convolution inputs kept.
  double state_bytes() const;
  double params(std::int64_t hidden) const;  // one layer's weights
};

struct ModelConfig {
  std::string name;
  std::string source;  // where the dimensions come from
  std::string hub_id;  // the Hugging Face repository the config comes from ("" when none)
  std::string architecture;  // the family, for people ("deepseek_v3", "gemma2", ...; "" when unsaid)
  std::int64_t hidden = 0;
  std::int64_t layers = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;  // == heads: MHA; 1: MQA; otherwise GQA (MLA: heads)
  std::int64_t head_dim = 0;  // MLA: the query/key head dim (nope + rope)
  std::int64_t intermediate = 0;  // a dense MLP's width (and a routed expert's when moe_intermediate is 0)
  std::int64_t vocab = 0;
  bool gated_mlp = true;  // SwiGLU (gate, up, down) vs plain (up, down)
  bool tied_embeddings = false;
  std::int64_t experts = 1;  // routed experts: MoE when > 1
  std::int64_t experts_per_token = 1;
  std::int64_t max_context = 0;  // longest prompt + output the model was trained for (0: unknown)
  // The checkpoint's own weight formats (config.json's quantization_config): the dense linears
  // and the routed experts apart (gpt-oss ships mxfp4 experts beside bf16 attention). A server
  // runs these unless its deployment says otherwise; `quantization` says what the file declared
  // ("" for none: 16-bit weights).
  WeightFormat dense_format, expert_format;
  std::string quantization;
  // A hub id read as another shipped config of the same architecture (workloads/hub_names.hpp):
  // how, for the run's notes; "" when the name was read as given.
  std::string read_as;

  // --- Attention variants ---
  std::optional<LatentAttention> mla;  // multi-head latent attention instead of MHA/GQA
  // Sliding-window attention: layers flagged in `sliding_layers` (empty: none; otherwise one
  // flag per layer) attend to at most the last `sliding_window` keys, and their KV cache holds
  // at most that many tokens. Mistral-7B-v0.1 slides on every layer, Gemma-2 and gpt-oss on
  // every other, Gemma-3 on five of six.
  std::int64_t sliding_window = 0;
  std::vector<bool> sliding_layers;
  // Chunked local attention (Llama-4's attention_chunk_size on its RoPE layers): a query of a
  // layer flagged in `chunked_layers` attends only to the keys of its own chunk of
  // `attention_chunk` positions (0, C, 2C, ...), and the cache keeps only that chunk.
  std::int64_t attention_chunk = 0;
  std::vector<bool> chunked_layers;
  std::optional<SparseAttention> sparse;  // DeepSeek Sparse Attention on every layer
  // Hybrid models: the layers flagged in `linear_layers` are Gated DeltaNet layers (`linear`),
  // the others attention layers (Qwen3-Next and Qwen3.5: every fourth).
  std::optional<LinearAttention> linear;
  std::vector<bool> linear_layers;
  bool attention_gate = false;  // gated attention: q_proj also makes a sigmoid gate for each head's output (Qwen3-Next, Qwen3.5)
  bool attention_sinks = false;  // a learned sink logit per head (gpt-oss): no cache, tiny cost
  bool qkv_bias = false;         // biases on the Q, K and V projections (Qwen2, gpt-oss, GPT-NeoX, Falcon-40B...)
  bool o_bias = false;           // bias on the attention output projection
  bool qk_norm = false;          // RMSNorm on each head's query and key (Qwen3, Gemma-3)

  // --- Block structure ---
  // Attention and MLP read the same input and their outputs are summed (GPT-J, GPT-NeoX,
  // Falcon): built side by side, not one after the other.
  bool parallel_block = false;
  bool mlp_bias = false;

  // --- Mixture of experts ---
  std::int64_t moe_intermediate = 0;     // each routed expert's width (0: intermediate)
  std::int64_t shared_experts = 0;       // experts every token goes through besides its routed ones
  std::int64_t shared_intermediate = 0;  // one shared expert's width (0: the routed experts')
  std::int64_t dense_layers = 0;         // the first layers have a dense MLP (DeepSeek's first_k_dense_replace)
  // Which layers have routed experts when not "every layer from dense_layers on" (Llama-4
  // Maverick: every other layer, interleave_moe_layer_step): one flag per layer; empty: that rule.
  // The other layers have a dense MLP of `intermediate`.
  std::vector<bool> expert_layers;
  // Multi-token prediction modules (DeepSeek-V3): a layer each that drafts one more token.
  // Not part of total_params() (the published 671B leaves its 14B out); see mtp_params().
  std::int64_t mtp_layers = 0;

  bool is_moe() const { return experts > 1; }
  // Whether layer `l` has routed experts (MoE models from dense_layers on, or as expert_layers says).
  bool moe_layer(std::int64_t l) const {
    if (!is_moe()) return false;
    if (expert_layers.empty()) return l >= dense_layers;
    return l >= 0 && static_cast<std::size_t>(l) < expert_layers.size() && expert_layers[static_cast<std::size_t>(l)];
  }
  std::int64_t moe_layer_count() const;
  std::int64_t expert_width() const { return moe_intermediate > 0 ? moe_intermediate : intermediate; }
  std::int64_t shared_width() const { return shared_intermediate > 0 ? shared_intermediate : expert_width(); }
  // Whether layer `l` attends through a sliding window.
  bool sliding_layer(std::int64_t l) const {
    return sliding_window > 0 && l >= 0 && static_cast<std::size_t>(l) < sliding_layers.size() && sliding_layers[static_cast<std::size_t>(l)];
  }
  // Whether layer `l` is a linear (Gated DeltaNet) layer.
  bool linear_layer(std::int64_t l) const {
    return linear.has_value() && l >= 0 && static_cast<std::size_t>(l) < linear_layers.size() && linear_layers[static_cast<std::size_t>(l)];
  }
  std::int64_t linear_layer_count() const;
  // Whether layer `l` attends within chunks.
  bool chunked_layer(std::int64_t l) const {
    return attention_chunk > 0 && l >= 0 && static_cast<std::size_t>(l) < chunked_layers.size() && chunked_layers[static_cast<std::size_t>(l)];
  }
  // Whether some layer attends to fewer keys than the context (a window, a chunk or top-k).
  bool local_attention() const { return sliding_window > 0 || attention_chunk > 0 || sparse.has_value() || linear.has_value(); }
  // Keys layer `l`'s newest token attends to at a context of `context` tokens: the window, the
  // newest chunk's keys so far, or the indexer's top-k.
  std::int64_t attended_keys(std::int64_t l, std::int64_t context) const {
    if (linear_layer(l)) return 0;  // a recurrent state, no keys
    if (sliding_layer(l) && context > sliding_window) return sliding_window;
    if (chunked_layer(l) && context > 0) return (context - 1) % attention_chunk + 1;
    if (sparse && context > sparse->topk) return sparse->topk;
    return context;
  }
  // Tokens layer `l` keeps cached for a sequence of `tokens` tokens at its fullest: the window
  // or a whole chunk on local layers, every token otherwise (a sparse layer's too).
  std::int64_t cached_tokens(std::int64_t l, std::int64_t tokens) const {
    if (linear_layer(l)) return 0;  // its state does not grow with the tokens
    if (sliding_layer(l)) return std::min(tokens, sliding_window);
    if (chunked_layer(l)) return std::min(tokens, attention_chunk);
    return tokens;
  }

  double attention_params_per_layer() const;  // an attention layer's (a linear layer's: linear->params)
  double dense_mlp_params() const;      // one dense MLP (dense models, DeepSeek's first layers)
  double mlp_params_per_expert() const;  // one routed expert
  double shared_expert_params() const;   // all shared experts of one MoE layer
  double router_params() const;          // one MoE layer's router
  double params_per_layer() const;       // a layer of the bulk of the model: MoE layers of an MoE model (all experts)
  double embedding_params() const;       // input table (+ separate LM head when untied)
  double total_params() const;
  double routed_expert_params() const;  // every routed expert of every layer (what EP splits)
  double mtp_params() const;
  // Parameters whose weights one token's forward pass reads (top-k and shared experts only).
  double active_params_per_token() const;
  // K and V (MLA: latent and rotary key) one token adds to one layer's cache.
  double kv_bytes_per_token_layer(DType kv) const;
  // What one token adds across all layers while a sequence is shorter than every window (linear
  // layers add nothing: their state is per sequence).
  double kv_bytes_per_token(DType kv) const;
  // The cache of one sequence of `tokens` tokens at its fullest: sliding layers hold at most the
  // window, chunked ones a chunk (cached_tokens), linear ones their fixed state.
  double kv_cache_bytes(DType kv, std::int64_t tokens) const;
  // What a decode step of one sequence at `context` reads of its cache: each layer's attended
  // keys, a sparse layer's indexer keys of every token, a linear layer's state.
  double kv_read_bytes(DType kv, std::int64_t context) const;
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
// Preset name ("llama-3-8b"), hub id of a shipped config ("deepseek-ai/DeepSeek-V3") or path
// to a model .toml or config.json.
ModelConfig load_model(const std::string& name_or_path);

}  // namespace roofsim
