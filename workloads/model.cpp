#include "workloads/model.hpp"

#include <map>

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
  if (auto p = model_problem(m)) {
    const std::map<std::string, std::string> key = {{"hidden", "hidden_size"}, {"heads", "attention_heads"},
                                                    {"intermediate", "intermediate_size"}, {"vocab", "vocab_size"}};
    t.fail(key.count(p->field) ? key.at(p->field) : p->field, p->problem);
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
