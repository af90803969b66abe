#include "workloads/hf_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "core/error.hpp"
#include "core/presets.hpp"
#include "workloads/model.hpp"

namespace roofsim {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Reads keys of one JSON object of a config.json (the top level, or a nested `text_config`);
// errors name the file, the key's line and the key (with its parent: text_config.hidden_size).
class HfReader {
 public:
  HfReader(std::string path, const std::string& text, const json& obj, std::string prefix = "", std::size_t from = 0)
      : path_(std::move(path)), text_(text), obj_(obj), prefix_(std::move(prefix)), from_(from) {}

  // The line of `key`'s first mention at or after where this object starts; for a key that is
  // not there, the line where the object opens (as a TOML file's missing key is at its table's).
  long line_of(const std::string& key) const {
    auto pos = text_.find("\"" + key + "\"", from_);
    if (pos == std::string::npos) pos = std::min(text_.find('{', from_), text_.size());
    return 1 + static_cast<long>(std::count(text_.begin(), text_.begin() + static_cast<long>(pos), '\n'));
  }
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw ConfigError(path_, line_of(key), prefix_ + key, problem);
  }
  // Present and not null: configs write `null` for "not used" (sliding_window, q_lora_rank).
  bool has(const std::string& key) const { return obj_.contains(key) && !obj_[key].is_null(); }
  std::int64_t positive(const std::string& key) const {
    if (!has(key)) fail(key, "missing (needed for this architecture)");
    const json& v = obj_[key];
    if (!v.is_number_integer() || v.get<std::int64_t>() <= 0) fail(key, "expected a positive integer, got " + v.dump());
    return v.get<std::int64_t>();
  }
  std::int64_t positive_or(const std::string& key, std::int64_t fallback) const {
    return has(key) ? positive(key) : fallback;
  }
  // A count that may be 0 (n_shared_experts, first_k_dense_replace, num_nextn_predict_layers).
  std::int64_t count_or(const std::string& key, std::int64_t fallback) const {
    if (!has(key)) return fallback;
    const json& v = obj_[key];
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0) fail(key, "expected a non-negative integer, got " + v.dump());
    return v.get<std::int64_t>();
  }
  bool boolean_or(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!obj_[key].is_boolean()) fail(key, "expected true or false, got " + obj_[key].dump());
    return obj_[key].get<bool>();
  }
  std::string string_or(const std::string& key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!obj_[key].is_string()) fail(key, "expected a string, got " + obj_[key].dump());
    return obj_[key].get<std::string>();
  }
  // A list of strings (layer_types).
  std::vector<std::string> strings(const std::string& key) const {
    const json& v = obj_[key];
    if (!v.is_array()) fail(key, "expected a list of strings, got " + v.dump());
    std::vector<std::string> out;
    for (const json& e : v) {
      if (!e.is_string()) fail(key, "expected a list of strings, got an entry " + e.dump());
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  // A list of non-negative integers (mlp_only_layers).
  std::vector<std::int64_t> integers(const std::string& key) const {
    const json& v = obj_[key];
    if (!v.is_array()) fail(key, "expected a list of layer numbers, got " + v.dump());
    std::vector<std::int64_t> out;
    for (const json& e : v) {
      if (!e.is_number_integer() || e.get<std::int64_t>() < 0) fail(key, "expected layer numbers, got an entry " + e.dump());
      out.push_back(e.get<std::int64_t>());
    }
    return out;
  }
  // The nested object `key` (gemma3's text_config), read with its own reader.
  HfReader nested(const std::string& key) const {
    if (!obj_.contains(key)) fail(key, "missing (this model_type keeps the language model's settings there)");
    if (!obj_[key].is_object()) fail(key, "expected an object, got " + obj_[key].dump());
    const auto pos = text_.find("\"" + key + "\"", from_);
    return HfReader(path_, text_, obj_[key], prefix_ + key + ".", pos == std::string::npos ? from_ : pos);
  }
  const std::string& prefix() const { return prefix_; }
  // The keys of this object, in the file's order of the parser (sorted).
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (auto it = obj_.begin(); it != obj_.end(); ++it) out.push_back(it.key());
    return out;
  }

 private:
  std::string path_;
  const std::string& text_;
  const json& obj_;
  std::string prefix_;
  std::size_t from_;
};

// The JSON parser recurses once per nesting level: a file nested 100,000 deep would overflow
// the stack. A config.json nests two or three levels.
void check_json_depth(const std::string& path, const std::string& text) {
  constexpr int kMaxDepth = 64;
  int depth = 0;
  long line = 1;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth) throw ConfigError(path, line, "", "nested more than " + std::to_string(kMaxDepth) + " levels deep");
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
}

// Where the parser's "number overflow" is: the first number literal (outside strings) that is
// infinite as a double, with its line and the key before it.
std::pair<long, std::string> overflowing_number(const std::string& text) {
  long line = 1;
  std::string last_string, key;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (c == '"') {  // a string: remember it, it may be the key of the next number
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\') ++j;
      }
      last_string = text.substr(i + 1, j - i - 1);
      i = j;
    } else if (c == ':') {
      key = last_string;
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < text.size() && std::strchr("+-.eE0123456789", text[j])) ++j;
      if (std::isinf(std::strtod(text.substr(i, j - i).c_str(), nullptr))) return {line, key};
      i = j - 1;
    }
  }
  return {0, ""};
}

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

// The checkpoint's weight formats from its quantization_config (the quant_method vocabularies
// of transformers' quantizers as hub configs write them). Formats roofsim has no type for are
// refused, naming the key: a silent bf16 would double or quadruple the weights' bytes.
void read_quantization(const HfReader& top, ModelConfig& m) {
  if (!top.has("quantization_config")) return;
  const HfReader q = top.nested("quantization_config");
  const std::string method = q.string_or("quant_method", "");
  WeightFormat f;
  if (method == "fp8") {  // DeepSeek-V3/R1, Qwen3-*-FP8: e4m3, per tensor or 128 x 128 blocks
    f.weights = DType::fp8;
    if (q.has("weight_block_size")) {
      const std::vector<std::int64_t> block = q.integers("weight_block_size");
      if (block.size() != 2 || block[0] <= 0 || block[1] <= 0 || block[0] > 65536 || block[1] > 65536) {
        q.fail("weight_block_size", "expected [rows, columns] of a scale block, each from 1 to 65536");
      }
      f.scale_block_k = block[1];
    }
    m.quantization = "fp8" + std::string(f.scale_block_k > 0 ? " with " + std::to_string(f.scale_block_k) + "-wide block scales" : " per tensor");
  } else if (method == "modelopt") {  // NVIDIA's TensorRT Model Optimizer checkpoints
    const std::string algo = q.string_or("quant_algo", "");
    if (algo == "FP8") {
      f.weights = DType::fp8;
    } else if (algo == "NVFP4") {
      f.weights = DType::nvfp4;
    } else {
      q.fail("quant_algo", "'" + algo + "' is not modelled (supported: FP8, NVFP4)");
    }
    m.quantization = "modelopt " + algo;
  } else if (method == "mxfp4") {  // gpt-oss: only the experts; attention, router and embeddings stay 16-bit
    m.expert_format.weights = DType::mxfp4;
    m.quantization = "mxfp4 experts";
    return;
  } else if (method == "awq" || method == "gptq") {
    const std::int64_t bits = q.positive_or("bits", q.positive_or("w_bit", 4));
    if (bits != 4 && bits != 8) q.fail("bits", "expected 4 or 8, got " + std::to_string(bits));
    f.weights = bits == 4 ? DType::int4 : DType::int8;
    m.quantization = method + " int" + std::to_string(bits) + " (weight-only)";
  } else if (method == "compressed-tensors") {
    // llm-compressor's checkpoints (Kimi-K2-Thinking, Kimi-K2.5): each config group's weights in
    // num_bits integers; without input_activations the activations stay 16-bit (weight-only).
    // Layers the ignore list names keep 16 bits: when it names the attention (self_attn), the
    // groups' format is the routed experts' only (the Kimi files also ignore the shared experts
    // and the dense MLPs).
    const HfReader groups = q.nested("config_groups");
    std::int64_t bits = 0;
    for (const std::string& name : groups.keys()) {
      const HfReader g = groups.nested(name);
      if (g.has("input_activations")) g.fail("input_activations", "quantized activations are not modelled for compressed-tensors (weight-only: null)");
      const HfReader w = g.nested("weights");
      if (w.string_or("type", "int") != "int") w.fail("type", "expected int (integer weights)");
      const std::int64_t b = w.positive("num_bits");
      if ((b != 4 && b != 8) || (bits != 0 && b != bits)) w.fail("num_bits", "expected 4 or 8, the same in every group, got " + std::to_string(b));
      bits = b;
    }
    if (bits == 0) groups.fail("config_groups", "no quantization group");
    f.weights = bits == 4 ? DType::int4 : DType::int8;
    m.quantization = "compressed-tensors int" + std::to_string(bits) + " (weight-only)";
    const std::vector<std::string> ignore = q.has("ignore") ? q.strings("ignore") : std::vector<std::string>{};
    const bool experts_only = std::any_of(ignore.begin(), ignore.end(), [](const std::string& e) { return e.find("self_attn") != std::string::npos; });
    if (experts_only && m.is_moe()) {
      m.expert_format = f;
      m.quantization += " experts";
      return;
    }
  } else {
    q.fail("quant_method", "'" + method + "' is not modelled (supported: fp8, modelopt, mxfp4, awq, gptq, compressed-tensors)");
  }
  m.dense_format = m.expert_format = f;
}

using FamilyReader = void (*)(const HfReader&, ModelConfig&);

// Multimodal model_types and the model_types their text_config may have (the first when it
// names none): Gemma-3, Llama 4, Kimi-K2.5 (a Kimi-K2 language model) and Qwen3.5.
const std::map<std::string, std::vector<std::string>>& multimodal_wrappers() {
  static const std::map<std::string, std::vector<std::string>> w = {
      {"gemma3", {"gemma3_text"}}, {"llama4", {"llama4_text"}}, {"kimi_k25", {"kimi_k2", "deepseek_v3"}},
      {"qwen3_5_moe", {"qwen3_5_moe_text"}}, {"qwen3_5", {"qwen3_5_text"}}};
  return w;
}
const std::map<std::string, FamilyReader>& families() {
  static const std::map<std::string, FamilyReader> f = {
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
std::string config_key(const std::string& type, const std::string& field) {
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

std::string supported_list() {
  std::string s;
  for (const auto& [name, reader] : families()) s += (s.empty() ? "" : ", ") + name;
  for (const auto& [name, text] : multimodal_wrappers()) s += ", " + name + " (its text_config)";
  return s;
}

// A shipped config lies at <configs>/models/hf/<org>/<name>/config.json: its hub id is org/name.
std::string shipped_hub_id(const std::string& path) {
  std::error_code ec;
  const fs::path file = fs::weakly_canonical(path, ec);
  const fs::path root = fs::weakly_canonical(fs::path(config_dir()) / "models" / "hf", ec);
  if (ec) return "";
  const fs::path rel = file.lexically_relative(root);
  std::vector<std::string> parts;
  for (const auto& p : rel) parts.push_back(p.string());
  if (parts.size() != 3 || parts[0] == ".." || parts[2] != "config.json") return "";
  return parts[0] + "/" + parts[1];
}

}  // namespace

ModelConfig load_hf_config(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw InputError(path + ": cannot open file");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  check_json_depth(path, text);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    const long line = 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<long>(std::min(e.byte, text.size())), '\n'));
    throw ConfigError(path, line, "", std::string("JSON syntax error: ") + e.what());
  } catch (const json::exception& e) {  // a number beyond a double's range (1e400)
    const auto [line, key] = overflowing_number(text);
    throw ConfigError(path, line, key, "a number beyond what a double holds (" + std::string(e.what()) + ")");
  }
  if (!doc.is_object()) throw ConfigError(path, 1, "", "expected a JSON object (a Hugging Face config.json)");
  const HfReader top(path, text, doc);
  if (!top.has("model_type")) top.fail("model_type", "missing (it names the architecture; supported: " + supported_list() + ")");
  std::string type = top.string_or("model_type", "");
  // Multimodal models keep the language model in text_config (its model_type, the one expected
  // when it has none); their vision towers are not modelled.
  const auto wrapper = multimodal_wrappers().find(type);
  const HfReader r = wrapper != multimodal_wrappers().end() ? top.nested("text_config") : top;
  if (wrapper != multimodal_wrappers().end()) {
    type = r.string_or("model_type", wrapper->second.front());
    if (std::find(wrapper->second.begin(), wrapper->second.end(), type) == wrapper->second.end()) {
      r.fail("model_type", "expected " + wrapper->second.front() + ", got '" + type + "'");
    }
  }
  const auto family = families().find(type);
  if (family == families().end()) {
    top.fail("model_type", "unsupported architecture '" + type + "' (supported: " + supported_list() + ")");
  }

  ModelConfig m;
  m.hub_id = shipped_hub_id(path);
  m.name = fs::path(path).parent_path().filename().string();
  if (m.name.empty() || m.name == ".") m.name = fs::path(path).stem().string();
  m.source = path + " (Hugging Face config.json, model_type " + top.string_or("model_type", "") + ")";
  m.architecture = type;
  family->second(r, m);
  // Kimi-K2.5 keeps its quantization_config in text_config.
  read_quantization(r.has("quantization_config") ? r : top, m);
  if (auto p = model_problem(m)) r.fail(config_key(type, p->field), p->problem);
  return m;
}

}  // namespace roofsim
