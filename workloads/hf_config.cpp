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
#include "workloads/hf_families.hpp"
#include "workloads/hf_quantization.hpp"
#include "workloads/hf_reader.hpp"
#include "workloads/model.hpp"

namespace roofsim {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

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

std::string supported_list() {
  std::string s;
  for (const auto& [name, reader] : hf_families()) s += (s.empty() ? "" : ", ") + name;
  for (const auto& [name, text] : hf_multimodal_wrappers()) s += ", " + name + " (its text_config)";
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
  const auto wrapper = hf_multimodal_wrappers().find(type);
  const HfReader r = wrapper != hf_multimodal_wrappers().end() ? top.nested("text_config") : top;
  if (wrapper != hf_multimodal_wrappers().end()) {
    type = r.string_or("model_type", wrapper->second.front());
    if (std::find(wrapper->second.begin(), wrapper->second.end(), type) == wrapper->second.end()) {
      r.fail("model_type", "expected " + wrapper->second.front() + ", got '" + type + "'");
    }
  }
  const auto family = hf_families().find(type);
  if (family == hf_families().end()) {
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
  read_hf_quantization(r.has("quantization_config") ? r : top, m);
  if (auto p = model_problem(m)) r.fail(hf_config_key(type, p->field), p->problem);
  return m;
}

}  // namespace roofsim
