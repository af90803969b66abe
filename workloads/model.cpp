#include "workloads/model.hpp"

#include "core/error.hpp"

#include "core/config_reader.hpp"
#include <filesystem>

#include "core/presets.hpp"
#include "workloads/hf_config.hpp"

namespace roofsim {

double ModelConfig::attention_params_per_layer() const {
  const double h = static_cast<double>(hidden), hd = static_cast<double>(head_dim);
  const double q = h * static_cast<double>(heads) * hd;
  const double kv = 2.0 * h * static_cast<double>(kv_heads) * hd;
  const double o = static_cast<double>(heads) * hd * h;
  return q + kv + o;
}

double ModelConfig::mlp_params_per_expert() const {
  return (gated_mlp ? 3.0 : 2.0) * static_cast<double>(hidden) * static_cast<double>(intermediate);
}

double ModelConfig::params_per_layer() const {
  const double router = experts > 1 ? static_cast<double>(hidden) * static_cast<double>(experts) : 0.0;
  const double norms = 2.0 * static_cast<double>(hidden);
  return attention_params_per_layer() + static_cast<double>(experts) * mlp_params_per_expert() +
         router + norms;
}

double ModelConfig::embedding_params() const {
  const double table = static_cast<double>(vocab) * static_cast<double>(hidden);
  return tied_embeddings ? table : 2.0 * table;
}

double ModelConfig::total_params() const {
  return static_cast<double>(layers) * params_per_layer() + embedding_params() +
         static_cast<double>(hidden);  // final norm
}

double ModelConfig::active_params_per_token() const {
  const double inactive = static_cast<double>(experts - experts_per_token) * mlp_params_per_expert();
  return total_params() - static_cast<double>(layers) * inactive;
}

double ModelConfig::kv_bytes_per_token(DType kv) const {
  return 2.0 * static_cast<double>(layers) * static_cast<double>(kv_heads) *
         static_cast<double>(head_dim) * dtype_bytes(kv);
}

void check_model(const ModelConfig& m, const std::string& where) {
  for (const auto& [key, v] : {std::pair{"hidden", m.hidden}, {"layers", m.layers}, {"heads", m.heads}, {"kv_heads", m.kv_heads},
                               {"head_dim", m.head_dim}, {"intermediate", m.intermediate}, {"vocab", m.vocab},
                               {"experts", m.experts}, {"experts_per_token", m.experts_per_token}}) {
    if (v <= 0) throw InputError(where + "." + key + " = " + std::to_string(v) + ": must be positive");
  }
  if (m.heads % m.kv_heads != 0) {
    throw InputError(where + ".kv_heads = " + std::to_string(m.kv_heads) + ": must divide heads (" + std::to_string(m.heads) + ")");
  }
  if (m.experts_per_token > m.experts) {
    throw InputError(where + ".experts_per_token = " + std::to_string(m.experts_per_token) + ": must not exceed experts (" +
                     std::to_string(m.experts) + ")");
  }
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
  t.reject_unknown_keys();
  top.reject_unknown_keys();
  return m;
}

ModelConfig load_model(const std::string& name_or_path) {
  const std::string path = resolve_preset("models", name_or_path);
  if (std::filesystem::path(path).extension() == ".json") return load_hf_config(path);
  return load_model_file(path);
}

}  // namespace roofsim
