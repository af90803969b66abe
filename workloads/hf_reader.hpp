#pragma once
// A reader of one JSON object of a Hugging Face config.json, shared by the loader
// (workloads/hf_config.cpp), the architecture families (hf_families.cpp) and the checkpoint's
// quantization (hf_quantization.cpp).
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace roofsim {

// Reads keys of one JSON object of a config.json (the top level, or a nested `text_config`);
// errors name the file, the key's line and the key (with its parent: text_config.hidden_size).
class HfReader {
 public:
  HfReader(std::string path, const std::string& text, const nlohmann::json& obj, std::string prefix = "", std::size_t from = 0)
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
    const nlohmann::json& v = obj_[key];
    if (!v.is_number_integer() || v.get<std::int64_t>() <= 0) fail(key, "expected a positive integer, got " + v.dump());
    return v.get<std::int64_t>();
  }
  std::int64_t positive_or(const std::string& key, std::int64_t fallback) const {
    return has(key) ? positive(key) : fallback;
  }
  // A count that may be 0 (n_shared_experts, first_k_dense_replace, num_nextn_predict_layers).
  std::int64_t count_or(const std::string& key, std::int64_t fallback) const {
    if (!has(key)) return fallback;
    const nlohmann::json& v = obj_[key];
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
    const nlohmann::json& v = obj_[key];
    if (!v.is_array()) fail(key, "expected a list of strings, got " + v.dump());
    std::vector<std::string> out;
    for (const nlohmann::json& e : v) {
      if (!e.is_string()) fail(key, "expected a list of strings, got an entry " + e.dump());
      out.push_back(e.get<std::string>());
    }
    return out;
  }
  // A list of non-negative integers (mlp_only_layers).
  std::vector<std::int64_t> integers(const std::string& key) const {
    const nlohmann::json& v = obj_[key];
    if (!v.is_array()) fail(key, "expected a list of layer numbers, got " + v.dump());
    std::vector<std::int64_t> out;
    for (const nlohmann::json& e : v) {
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
  const nlohmann::json& obj_;
  std::string prefix_;
  std::size_t from_;
};

}  // namespace roofsim
