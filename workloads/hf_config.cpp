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

#include "core/error.hpp"
#include "workloads/model.hpp"

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
  HfReader r(path, text, doc);

  if (!r.has("model_type")) r.fail("model_type", "missing (it names the architecture: llama, mistral, mixtral, qwen2, gptj, gpt_neox)");
  const std::string type = r.string_or("model_type", "");
  ModelConfig m;
  m.name = std::filesystem::path(path).parent_path().filename().string();
  if (m.name.empty() || m.name == ".") m.name = std::filesystem::path(path).stem().string();
  m.source = path + " (Hugging Face config.json, model_type " + type + ")";
  m.architecture = type;
  if (type == "llama" || type == "mistral" || type == "mixtral" || type == "qwen2") {
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
    if (m.hidden % m.heads != 0) r.fail(j ? "n_head" : "num_attention_heads", "does not divide the hidden size");
    m.head_dim = m.hidden / m.heads;
    if (j && !r.has("n_inner") && m.hidden > std::numeric_limits<std::int64_t>::max() / 4) {
      r.fail("n_embd", "too large: the MLP width without n_inner, 4 x n_embd, overflows");
    }
    m.max_context = r.positive_or(j ? "n_positions" : "max_position_embeddings", 0);
    m.intermediate = j ? r.positive_or("n_inner", 4 * m.hidden) : r.positive("intermediate_size");
    m.vocab = r.positive("vocab_size");
    m.gated_mlp = false;
    m.tied_embeddings = r.boolean_or("tie_word_embeddings", false);
  } else {
    r.fail("model_type", "unsupported architecture '" + type +
                             "' (supported: llama, mistral, mixtral, qwen2, gptj, gpt_neox)");
  }
  if (auto p = model_problem(m)) {
    // The config's own key names.
    std::map<std::string, std::string> key = {
        {"hidden", "hidden_size"}, {"layers", "num_hidden_layers"}, {"heads", "num_attention_heads"},
        {"kv_heads", "num_key_value_heads"}, {"intermediate", "intermediate_size"}, {"vocab", "vocab_size"},
        {"experts", "num_local_experts"}, {"experts_per_token", "num_experts_per_tok"}, {"max_context", "max_position_embeddings"}};
    if (type == "gptj") {
      key = {{"hidden", "n_embd"}, {"layers", "n_layer"}, {"heads", "n_head"}, {"intermediate", "n_inner"},
             {"vocab", "vocab_size"}, {"max_context", "n_positions"}};
    }
    r.fail(key.count(p->field) ? key.at(p->field) : p->field, p->problem);
  }
  return m;
}

}  // namespace roofsim
