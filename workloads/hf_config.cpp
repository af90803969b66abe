#include "workloads/hf_config.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.hpp"

namespace roofsim {

namespace {

using nlohmann::json;

// Reads keys of a parsed config.json; errors name the file, the key's line and the key.
class HfReader {
 public:
  HfReader(std::string path, std::string text, json doc)
      : path_(std::move(path)), text_(std::move(text)), doc_(std::move(doc)) {}

  long line_of(const std::string& key) const {
    auto pos = text_.find("\"" + key + "\"");
    if (pos == std::string::npos) return 0;
    return 1 + static_cast<long>(std::count(text_.begin(), text_.begin() + static_cast<long>(pos), '\n'));
  }
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
    throw ConfigError(path_, line_of(key), key, problem);
  }
  bool has(const std::string& key) const { return doc_.contains(key) && !doc_[key].is_null(); }
  std::int64_t positive(const std::string& key) const {
    if (!has(key)) fail(key, "missing (needed for this architecture)");
    const json& v = doc_[key];
    if (!v.is_number_integer() || v.get<std::int64_t>() <= 0) fail(key, "expected a positive integer, got " + v.dump());
    return v.get<std::int64_t>();
  }
  std::int64_t positive_or(const std::string& key, std::int64_t fallback) const {
    return has(key) ? positive(key) : fallback;
  }
  bool boolean_or(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!doc_[key].is_boolean()) fail(key, "expected true or false, got " + doc_[key].dump());
    return doc_[key].get<bool>();
  }
  std::string string_or(const std::string& key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!doc_[key].is_string()) fail(key, "expected a string, got " + doc_[key].dump());
    return doc_[key].get<std::string>();
  }
  const json& doc() const { return doc_; }

 private:
  std::string path_, text_;
  json doc_;
};

}  // namespace

ModelConfig load_hf_config(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw InputError(path + ": cannot open file");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    const long line = 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<long>(std::min(e.byte, text.size())), '\n'));
    throw ConfigError(path, line, "", std::string("JSON syntax error: ") + e.what());
  } catch (const json::exception& e) {
    // A number beyond a double ("1e999", out_of_range.406) comes without a position: the line
    // is that of the text the message quotes, when the file has it.
    const std::string what = e.what();
    const std::size_t open = what.find('\''), close = what.rfind('\'');
    long line = 0;
    if (open != std::string::npos && close > open + 1) {
      const std::size_t at = text.find(what.substr(open + 1, close - open - 1));
      if (at != std::string::npos) line = 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
    }
    throw ConfigError(path, line, "", "JSON error: " + what);
  }
  if (!doc.is_object()) throw ConfigError(path, 1, "", "expected a JSON object (a Hugging Face config.json)");
  HfReader r(path, text, doc);

  const std::string type = r.string_or("model_type", "");
  ModelConfig m;
  m.name = std::filesystem::path(path).parent_path().filename().string();
  if (m.name.empty() || m.name == ".") m.name = std::filesystem::path(path).stem().string();
  m.source = path + " (Hugging Face config.json, model_type " + type + ")";
  if (type == "llama" || type == "mistral" || type == "mixtral" || type == "qwen2") {
    m.hidden = r.positive("hidden_size");
    m.layers = r.positive("num_hidden_layers");
    m.heads = r.positive("num_attention_heads");
    m.kv_heads = r.positive_or("num_key_value_heads", m.heads);
    if (!r.has("head_dim") && m.hidden % m.heads != 0) {
      r.fail("num_attention_heads", "does not divide hidden_size; the config must give head_dim");
    }
    m.head_dim = r.positive_or("head_dim", m.hidden / m.heads);
    m.intermediate = r.positive("intermediate_size");
    m.vocab = r.positive("vocab_size");
    m.gated_mlp = true;
    m.tied_embeddings = r.boolean_or("tie_word_embeddings", false);
    if (type == "mixtral") {
      m.experts = r.positive("num_local_experts");
      m.experts_per_token = r.positive("num_experts_per_tok");
    }
  } else if (type == "gptj" || type == "gpt_neox") {
    // Multi-head attention and a plain (up, down) MLP; the two name their keys differently.
    const bool j = type == "gptj";
    m.hidden = r.positive(j ? "n_embd" : "hidden_size");
    m.layers = r.positive(j ? "n_layer" : "num_hidden_layers");
    m.heads = r.positive(j ? "n_head" : "num_attention_heads");
    m.kv_heads = m.heads;
    if (m.hidden % m.heads != 0) r.fail(j ? "n_head" : "num_attention_heads", std::string("must divide ") + (j ? "n_embd" : "hidden_size"));
    m.head_dim = m.hidden / m.heads;
    if (j && !r.has("n_inner") && m.hidden > std::numeric_limits<std::int64_t>::max() / 4) {
      r.fail("n_embd", "too large: the MLP width without n_inner, 4 x n_embd, overflows");
    }
    m.intermediate = j ? r.positive_or("n_inner", 4 * m.hidden) : r.positive("intermediate_size");
    m.vocab = r.positive("vocab_size");
    m.gated_mlp = false;
    m.tied_embeddings = r.boolean_or("tie_word_embeddings", false);
  } else {
    r.fail("model_type", "unsupported architecture '" + type +
                             "' (supported: llama, mistral, mixtral, qwen2, gptj, gpt_neox)");
  }
  if (m.heads % m.kv_heads != 0) r.fail("num_key_value_heads", "must divide num_attention_heads");
  if (m.experts_per_token > m.experts) r.fail("num_experts_per_tok", "must not exceed num_local_experts");
  return m;
}

}  // namespace roofsim
