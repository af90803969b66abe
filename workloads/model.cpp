#include "workloads/model.hpp"

#include <algorithm>
#include <map>

#include "core/error.hpp"

#include "core/config_reader.hpp"
#include <filesystem>

#include "core/presets.hpp"
#include "workloads/hf_config.hpp"
#include "workloads/hub_names.hpp"

namespace roofsim {

namespace {
double d(std::int64_t v) { return static_cast<double>(v); }
// One MLP of `width` (gate, up, down or up, down), with its biases when the model has them.
double mlp_params(const ModelConfig& m, std::int64_t width) {
  const double mats = (m.gated_mlp ? 3.0 : 2.0) * d(m.hidden) * d(width);
  const double bias = m.mlp_bias ? (m.gated_mlp ? 2.0 : 1.0) * d(width) + d(m.hidden) : 0.0;
  return mats + bias;
}
}  // namespace

double LinearAttention::state_bytes() const {
  return d(value_heads) * d(key_head_dim) * d(value_head_dim) * dtype_bytes(state_dtype) + d(conv_dim()) * d(conv_kernel - 1) * 2.0;
}

double LinearAttention::params(std::int64_t hidden) const {
  // The input projection, the depthwise convolution, the decay's A and dt bias per value head,
  // the gated norm's gain and the output projection.
  return d(hidden) * d(projected()) + d(conv_dim()) * d(conv_kernel) + 2.0 * d(value_heads) + d(value_head_dim) + d(value_dim()) * d(hidden);
}

std::int64_t ModelConfig::linear_layer_count() const {
  return linear ? static_cast<std::int64_t>(std::count(linear_layers.begin(), linear_layers.end(), true)) : 0;
}

double ModelConfig::attention_params_per_layer() const {
  const double h = d(hidden), H = d(heads);
  double p = 0;
  if (mla) {
    const LatentAttention& a = *mla;
    const double qk = d(a.qk_head_dim());
    // Queries: down to the rank, its norm, back up to every head; or one plain projection.
    p += a.q_lora_rank > 0 ? h * d(a.q_lora_rank) + d(a.q_lora_rank) + d(a.q_lora_rank) * H * qk : h * H * qk;
    // Keys and values: down to the latent plus the shared rotary key, the latent's norm, and
    // the expansion of the latent into every head's key (nope part) and value.
    p += h * d(a.cache_dims()) + d(a.kv_lora_rank) + d(a.kv_lora_rank) * H * d(a.qk_nope_head_dim + a.v_head_dim);
    p += H * d(a.v_head_dim) * h;  // output
  } else {
    const double hd = d(head_dim), Hkv = d(kv_heads);
    p += h * H * hd + 2.0 * h * Hkv * hd + H * hd * h;
    if (attention_gate) p += h * H * hd;  // the gate's half of q_proj
    if (qkv_bias) p += (H + 2.0 * Hkv) * hd;
  }
  if (sparse) {
    // The indexer: its queries from the compressed query (q_lora_rank; the hidden state without
    // one), one key from the hidden state with its LayerNorm, and a weight per head.
    const SparseAttention& x = *sparse;
    const double q_in = mla && mla->q_lora_rank > 0 ? d(mla->q_lora_rank) : h;
    p += q_in * d(x.index_heads) * d(x.index_head_dim) + h * d(x.index_head_dim) + 2.0 * d(x.index_head_dim) + h * d(x.index_heads);
  }
  if (o_bias) p += h;
  if (qk_norm) p += 2.0 * d(mla ? mla->qk_head_dim() : head_dim);
  if (attention_sinks) p += H;
  return p;
}

double ModelConfig::dense_mlp_params() const { return mlp_params(*this, intermediate); }
double ModelConfig::mlp_params_per_expert() const { return mlp_params(*this, expert_width()); }
double ModelConfig::shared_expert_params() const { return d(shared_experts) * mlp_params(*this, shared_width()); }
double ModelConfig::router_params() const { return is_moe() ? d(hidden) * d(experts) : 0.0; }

double ModelConfig::params_per_layer() const {
  const double norms = 2.0 * d(hidden);
  const double mlp = is_moe() ? d(experts) * mlp_params_per_expert() + shared_expert_params() + router_params()
                              : dense_mlp_params();
  return attention_params_per_layer() + mlp + norms;
}

double ModelConfig::embedding_params() const {
  const double table = d(vocab) * d(hidden);
  return tied_embeddings ? table : 2.0 * table;
}

std::int64_t ModelConfig::moe_layer_count() const {
  if (!is_moe()) return 0;
  if (expert_layers.empty()) return layers - dense_layers;
  return static_cast<std::int64_t>(std::count(expert_layers.begin(), expert_layers.end(), true));
}

double ModelConfig::total_params() const {
  const std::int64_t dense = layers - moe_layer_count();
  const double dense_layer = attention_params_per_layer() + dense_mlp_params() + 2.0 * d(hidden);
  // Linear layers replace attention's weights with their own.
  const double linear_swap = linear ? d(linear_layer_count()) * (linear->params(hidden) - attention_params_per_layer()) : 0.0;
  return d(moe_layer_count()) * (is_moe() ? params_per_layer() : 0.0) + d(dense) * dense_layer + embedding_params() +
         linear_swap + d(hidden);  // final norm
}

double ModelConfig::routed_expert_params() const {
  return d(moe_layer_count()) * d(experts) * mlp_params_per_expert();
}

double ModelConfig::mtp_params() const {
  // DeepSeek-V3's module: two norms, a projection of [hidden; embedding] (2h x h), one MoE
  // layer and the shared head's norm; it shares the embedding table and the LM head.
  return d(mtp_layers) * (params_per_layer() + 2.0 * d(hidden) * d(hidden) + 3.0 * d(hidden));
}

double ModelConfig::active_params_per_token() const {
  const double inactive = d(experts - experts_per_token) * mlp_params_per_expert();
  return total_params() - d(moe_layer_count()) * inactive;
}

double ModelConfig::kv_bytes_per_token_layer(DType kv) const {
  const double dims = mla ? d(mla->cache_dims()) : 2.0 * d(kv_heads) * d(head_dim);
  return dims * dtype_bytes(kv) + (sparse ? sparse->index_cache_bytes_per_token() : 0.0);
}

double ModelConfig::kv_bytes_per_token(DType kv) const { return d(layers - linear_layer_count()) * kv_bytes_per_token_layer(kv); }

double ModelConfig::kv_cache_bytes(DType kv, std::int64_t tokens) const {
  double held = 0;  // tokens summed over layers
  for (std::int64_t l = 0; l < layers; ++l) held += d(cached_tokens(l, tokens));
  return held * kv_bytes_per_token_layer(kv) + (linear ? d(linear_layer_count()) * linear->state_bytes() : 0.0);
}

double ModelConfig::kv_read_bytes(DType kv, std::int64_t context) const {
  const double index = sparse ? sparse->index_cache_bytes_per_token() : 0.0;
  const double main = kv_bytes_per_token_layer(kv) - index;
  double bytes = 0;
  for (std::int64_t l = 0; l < layers; ++l) {
    if (linear_layer(l)) bytes += linear->state_bytes();
    else bytes += d(attended_keys(l, context)) * main + d(context) * index;
  }
  return bytes;
}

std::optional<ModelProblem> model_problem(const ModelConfig& m) {
  // Upper bounds well above every published model, so that sizes multiplied together (tokens x
  // hidden x intermediate) stay far from overflowing.
  const std::pair<const char*, std::int64_t> limits[] = {
      {"hidden", 1 << 17}, {"layers", 10000}, {"heads", 1 << 14}, {"kv_heads", 1 << 14}, {"head_dim", 1 << 13},
      {"intermediate", 1 << 20}, {"vocab", 1 << 24}, {"experts", 1 << 14}, {"experts_per_token", 1 << 14}};
  const std::int64_t values[] = {m.hidden, m.layers, m.heads, m.kv_heads, m.head_dim,
                                 m.intermediate, m.vocab, m.experts, m.experts_per_token};
  for (std::size_t i = 0; i < std::size(values); ++i) {
    if (values[i] <= 0) return ModelProblem{limits[i].first, std::to_string(values[i]) + ": must be positive"};
    if (values[i] > limits[i].second) {
      return ModelProblem{limits[i].first, std::to_string(values[i]) + ": larger than any model (at most " +
                                               std::to_string(limits[i].second) + ")"};
    }
  }
  if (m.max_context < 0 || m.max_context > (std::int64_t{1} << 24)) {
    return ModelProblem{"max_context", std::to_string(m.max_context) + ": must be between 1 and 16777216 (0: unknown)"};
  }
  if (m.heads % m.kv_heads != 0) {
    return ModelProblem{"kv_heads", std::to_string(m.kv_heads) + ": must divide the heads (" + std::to_string(m.heads) + ")"};
  }
  if (m.experts_per_token > m.experts) {
    return ModelProblem{"experts_per_token", std::to_string(m.experts_per_token) + ": must not exceed experts (" +
                                                 std::to_string(m.experts) + ")"};
  }
  // The variants' sizes: 0 means "not used" where the member says so.
  const std::pair<const char*, std::int64_t> optional_limits[] = {
      {"moe_intermediate", 1 << 20}, {"shared_experts", 1 << 10}, {"shared_intermediate", 1 << 20},
      {"dense_layers", 10000},      {"mtp_layers", 64},          {"sliding_window", std::int64_t{1} << 24}};
  const std::int64_t optional_values[] = {m.moe_intermediate, m.shared_experts, m.shared_intermediate,
                                          m.dense_layers, m.mtp_layers, m.sliding_window};
  for (std::size_t i = 0; i < std::size(optional_values); ++i) {
    if (optional_values[i] < 0 || optional_values[i] > optional_limits[i].second) {
      return ModelProblem{optional_limits[i].first, std::to_string(optional_values[i]) + ": must be between 0 and " +
                                                        std::to_string(optional_limits[i].second)};
    }
  }
  if (m.dense_layers > 0 && (!m.is_moe() || m.dense_layers >= m.layers)) {
    return ModelProblem{"dense_layers", std::to_string(m.dense_layers) + ": dense first layers need an MoE model with more layers (" +
                                            std::to_string(m.layers) + ")"};
  }
  if ((m.shared_experts > 0 || m.moe_intermediate > 0) && !m.is_moe()) {
    return ModelProblem{m.shared_experts > 0 ? "shared_experts" : "moe_intermediate", "only an MoE model (experts > 1) has experts"};
  }
  if (!m.sliding_layers.empty() && m.sliding_layers.size() != static_cast<std::size_t>(m.layers)) {
    return ModelProblem{"sliding_layers", std::to_string(m.sliding_layers.size()) + " layer flags for " + std::to_string(m.layers) + " layers"};
  }
  if (!m.sliding_layers.empty() && m.sliding_window == 0) {
    return ModelProblem{"sliding_window", "layers slide but no window is given"};
  }
  if (!m.chunked_layers.empty() && m.chunked_layers.size() != static_cast<std::size_t>(m.layers)) {
    return ModelProblem{"chunked_layers", std::to_string(m.chunked_layers.size()) + " layer flags for " + std::to_string(m.layers) + " layers"};
  }
  if (m.attention_chunk < 0 || m.attention_chunk > (std::int64_t{1} << 24) || (!m.chunked_layers.empty() && m.attention_chunk == 0)) {
    return ModelProblem{"attention_chunk", std::to_string(m.attention_chunk) + ": chunked layers need a chunk of 1 to 16777216 tokens"};
  }
  if (!m.expert_layers.empty()) {
    if (m.expert_layers.size() != static_cast<std::size_t>(m.layers)) {
      return ModelProblem{"expert_layers", std::to_string(m.expert_layers.size()) + " layer flags for " + std::to_string(m.layers) + " layers"};
    }
    if (!m.is_moe() || m.moe_layer_count() == 0) return ModelProblem{"expert_layers", "an MoE model needs at least one layer with experts"};
  }
  if (m.linear) {
    const LinearAttention& a = *m.linear;
    const std::pair<const char*, std::int64_t> dims[] = {{"linear.key_heads", a.key_heads}, {"linear.value_heads", a.value_heads},
                                                         {"linear.key_head_dim", a.key_head_dim}, {"linear.value_head_dim", a.value_head_dim},
                                                         {"linear.conv_kernel", a.conv_kernel}};
    for (const auto& [field, v] : dims) {
      if (v <= 0 || v > (1 << 14)) return ModelProblem{field, std::to_string(v) + ": must be between 1 and 16384"};
    }
    if (a.value_heads % a.key_heads != 0) {
      return ModelProblem{"linear.value_heads", std::to_string(a.value_heads) + ": must be a multiple of the key heads (" + std::to_string(a.key_heads) + ")"};
    }
    if (m.linear_layers.size() != static_cast<std::size_t>(m.layers)) {
      return ModelProblem{"linear_layers", std::to_string(m.linear_layers.size()) + " layer flags for " + std::to_string(m.layers) + " layers"};
    }
  }
  if (m.sparse) {
    const SparseAttention& x = *m.sparse;
    const std::pair<const char*, std::int64_t> dims[] = {
        {"sparse.index_heads", x.index_heads}, {"sparse.index_head_dim", x.index_head_dim}, {"sparse.topk", x.topk}};
    for (const auto& [field, v] : dims) {
      if (v <= 0 || v > (std::int64_t{1} << 20)) return ModelProblem{field, std::to_string(v) + ": must be between 1 and 1048576"};
    }
  }
  if (m.mla) {
    const LatentAttention& a = *m.mla;
    const std::pair<const char*, std::int64_t> dims[] = {{"mla.kv_lora_rank", a.kv_lora_rank},
                                                         {"mla.qk_nope_head_dim", a.qk_nope_head_dim},
                                                         {"mla.qk_rope_head_dim", a.qk_rope_head_dim},
                                                         {"mla.v_head_dim", a.v_head_dim}};
    for (const auto& [field, v] : dims) {
      if (v <= 0 || v > (1 << 14)) return ModelProblem{field, std::to_string(v) + ": must be between 1 and 16384"};
    }
    if (a.q_lora_rank < 0 || a.q_lora_rank > (1 << 16)) {
      return ModelProblem{"mla.q_lora_rank", std::to_string(a.q_lora_rank) + ": must be between 0 (no compression) and 65536"};
    }
  }
  return std::nullopt;
}

void check_model(const ModelConfig& m, const std::string& where) {
  if (auto p = model_problem(m)) throw InputError(where + "." + p->field + " = " + p->problem);
}

ModelConfig load_model_file(const std::string& path) {
  toml::table doc = ConfigTable::parse_file(path);
  ConfigTable top(doc, path, "");
  ConfigTable t = top.table("model");
  ModelConfig m;
  m.name = t.string("name");
  m.source = t.string_or("source", "");
  m.hidden = t.positive_integer("hidden_size");
  m.layers = t.positive_integer("layers");
  m.heads = t.positive_integer("attention_heads");
  m.kv_heads = t.positive_integer_or("kv_heads", m.heads);
  if (m.heads % m.kv_heads != 0) {
    t.fail("kv_heads", "must divide attention_heads (" + std::to_string(m.heads) + ")");
  }
  if (!t.has("head_dim") && m.hidden % m.heads != 0) {
    t.fail("attention_heads", "does not divide hidden_size; give head_dim explicitly");
  }
  m.head_dim = t.positive_integer_or("head_dim", m.hidden / m.heads);
  m.intermediate = t.positive_integer("intermediate_size");
  m.vocab = t.positive_integer("vocab_size");
  m.gated_mlp = t.one_of("mlp", {"gated", "plain"}) == "gated";
  m.tied_embeddings = t.boolean_or("tied_embeddings", false);
  m.experts = t.positive_integer_or("experts", 1);
  m.experts_per_token = t.positive_integer_or("experts_per_token", 1);
  if (m.experts_per_token > m.experts) {
    t.fail("experts_per_token", "must not exceed experts (" + std::to_string(m.experts) + ")");
  }
  m.max_context = t.positive_integer_or("max_context", 0);
  m.hub_id = t.string_or("hub_id", "");
  if (t.has("hub_id") && !looks_like_hub_id(m.hub_id)) {
    t.fail("hub_id", "expected a Hugging Face repository id, OWNER/NAME, got '" + m.hub_id + "' (leave the key out when there is none)");
  }
  m.architecture = t.string_or("architecture", "");
  if (t.has("architecture") && m.architecture.empty()) t.fail("architecture", "empty (leave the key out when unsaid)");

  // Attention variants.
  if (auto mla = t.optional_table("mla")) {
    LatentAttention a;
    a.q_lora_rank = mla->positive_integer_or("q_lora_rank", 0);  // absent: no query compression
    a.kv_lora_rank = mla->positive_integer("kv_lora_rank");
    a.qk_nope_head_dim = mla->positive_integer("qk_nope_head_dim");
    a.qk_rope_head_dim = mla->positive_integer("qk_rope_head_dim");
    a.v_head_dim = mla->positive_integer("v_head_dim");
    mla->reject_unknown_keys();
    m.mla = a;
    if (!t.has("head_dim")) m.head_dim = a.qk_head_dim();
    if (t.has("kv_heads") && m.kv_heads != m.heads) t.fail("kv_heads", "latent attention has no KV heads of its own; leave kv_heads out");
  }
  if (t.has("sliding_window")) {
    m.sliding_window = t.positive_integer("sliding_window");
    // Every `global_every`-th layer (counting from 1) attends to everything; absent: none does.
    const std::int64_t every = t.positive_integer_or("global_every", 0);
    m.sliding_layers.assign(static_cast<std::size_t>(m.layers), true);
    for (std::int64_t l = 0; every > 0 && l < m.layers; ++l) m.sliding_layers[static_cast<std::size_t>(l)] = (l + 1) % every != 0;
  } else if (t.has("global_every")) {
    t.fail("global_every", "needs sliding_window (the window of the other layers)");
  }
  if (t.has("attention_chunk")) {
    // Chunked local attention (Llama 4): every layer attends within chunks except every
    // `chunk_global_every`-th (counting from 1), which attends globally; absent: none does.
    m.attention_chunk = t.positive_integer("attention_chunk");
    const std::int64_t every = t.positive_integer_or("chunk_global_every", 0);
    m.chunked_layers.assign(static_cast<std::size_t>(m.layers), true);
    for (std::int64_t l = 0; every > 0 && l < m.layers; ++l) m.chunked_layers[static_cast<std::size_t>(l)] = (l + 1) % every != 0;
  } else if (t.has("chunk_global_every")) {
    t.fail("chunk_global_every", "needs attention_chunk (the chunk of the other layers)");
  }
  if (auto sparse = t.optional_table("sparse")) {
    SparseAttention x;
    x.index_heads = sparse->positive_integer("index_heads");
    x.index_head_dim = sparse->positive_integer("index_head_dim");
    x.topk = sparse->positive_integer("topk");
    sparse->reject_unknown_keys();
    m.sparse = x;
  }
  if (auto linear = t.optional_table("linear")) {
    // Gated DeltaNet layers (Qwen3-Next, Qwen3.5): every layer but each `full_every`-th
    // (counting from 1), which keeps attention.
    LinearAttention a;
    a.key_heads = linear->positive_integer("key_heads");
    a.value_heads = linear->positive_integer("value_heads");
    a.key_head_dim = linear->positive_integer("key_head_dim");
    a.value_head_dim = linear->positive_integer("value_head_dim");
    a.conv_kernel = linear->positive_integer_or("conv_kernel", 4);
    a.state_dtype = linear->has("state_dtype") && linear->one_of("state_dtype", {"bf16", "fp32"}) == "fp32" ? DType::fp32 : DType::bf16;
    const std::int64_t every = linear->positive_integer("full_every");
    linear->reject_unknown_keys();
    m.linear = a;
    m.linear_layers.assign(static_cast<std::size_t>(m.layers), true);
    for (std::int64_t l = 0; l < m.layers; ++l) m.linear_layers[static_cast<std::size_t>(l)] = (l + 1) % every != 0;
  }
  m.attention_gate = t.boolean_or("attention_gate", false);
  m.attention_sinks = t.boolean_or("attention_sinks", false);
  m.qkv_bias = t.boolean_or("qkv_bias", false);
  m.o_bias = t.boolean_or("o_bias", false);
  m.qk_norm = t.boolean_or("qk_norm", false);
  m.parallel_block = t.boolean_or("parallel_block", false);
  m.mlp_bias = t.boolean_or("mlp_bias", false);
  // Mixture-of-experts variants.
  m.moe_intermediate = t.positive_integer_or("moe_intermediate_size", 0);
  m.shared_experts = t.positive_integer_or("shared_experts", 0);
  m.shared_intermediate = t.positive_integer_or("shared_intermediate_size", 0);
  m.dense_layers = t.positive_integer_or("dense_layers", 0);
  if (t.has("moe_every")) {
    // Every `moe_every`-th layer (counting from 1) has experts, the others a dense MLP (Llama-4 Maverick: 2).
    const std::int64_t every = t.positive_integer("moe_every");
    if (m.experts <= 1) t.fail("moe_every", "only an MoE model (experts > 1) has expert layers");
    if (every > m.layers) t.fail("moe_every", std::to_string(every) + ": more than the " + std::to_string(m.layers) + " layers");
    m.expert_layers.assign(static_cast<std::size_t>(m.layers), false);
    for (std::int64_t l = every - 1; l < m.layers; l += every) m.expert_layers[static_cast<std::size_t>(l)] = true;
  }
  m.mtp_layers = t.positive_integer_or("mtp_layers", 0);
  if (auto p = model_problem(m)) {
    const std::map<std::string, std::string> key = {{"hidden", "hidden_size"}, {"heads", "attention_heads"},
                                                    {"intermediate", "intermediate_size"}, {"vocab", "vocab_size"},
                                                    {"moe_intermediate", "moe_intermediate_size"},
                                                    {"shared_intermediate", "shared_intermediate_size"}};
    t.fail(key.count(p->field) ? key.at(p->field) : p->field, p->problem);
  }
  t.reject_unknown_keys();
  top.reject_unknown_keys();
  return m;
}

namespace {

// The shipped config `match` names, read for the hub id asked; weights as the asked name's
// quantization token says where the config read declares another format.
ModelConfig load_matched(const HubNameMatch& match) {
  ModelConfig m = load_model(match.hub_id);
  m.read_as = match.note;
  if (match.name_weights) {
    const DType w = *match.name_weights;
    const bool declared = m.dense_format.weights == w || (m.is_moe() && m.expert_format.weights == w);
    if (!declared) {
      const std::string was = m.quantization.empty() ? "none" : m.quantization;
      m.dense_format = m.expert_format = WeightFormat{w, 0};
      m.quantization = std::string(dtype_name(w)) + ", the name's -" + match.name_token;
      m.read_as += "; weights in " + std::string(dtype_name(w)) + " as the name's -" + match.name_token + " says (the config read declares " + was + ")";
    }
  }
  return m;
}

}  // namespace

ModelConfig load_model(const std::string& name_or_path) {
  // A hub id as people write it (a variant, a dated release, a quantized checkpoint of a shipped
  // architecture) is read as that shipped config, and says so (ModelConfig::read_as).
  std::error_code ec;
  if (looks_like_hub_id(name_or_path) && !std::filesystem::exists(name_or_path, ec)) {
    const std::vector<std::string> shipped = list_hub_configs();
    if (std::find(shipped.begin(), shipped.end(), name_or_path) == shipped.end()) {
      if (const std::optional<HubNameMatch> match = match_hub_name(name_or_path, shipped)) return load_matched(*match);
    }
  }
  const std::string path = resolve_preset("models", name_or_path);
  if (std::filesystem::path(path).extension() == ".json") return load_hf_config(path);
  return load_model_file(path);
}

}  // namespace roofsim
