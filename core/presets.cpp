#include "core/presets.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace fs = std::filesystem;

namespace roofsim {

namespace {
// Whether a path exists or is a folder, without throwing: a name the system cannot even look up
// (longer than NAME_MAX, a file used as a folder) is a name that finds nothing.
bool present(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}
bool folder(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}
}  // namespace

std::string config_dir() {
  if (const char* env = std::getenv("ROOFSIM_CONFIG_DIR"); env && *env) return env;
  return ROOFSIM_CONFIG_DIR;
}

std::vector<std::string> list_presets(const std::string& kind) {
  std::vector<std::string> names;
  fs::path dir = fs::path(config_dir()) / kind;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".toml") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> list_hub_configs() {
  std::vector<std::string> ids;
  const fs::path root = fs::path(config_dir()) / "models" / "hf";
  std::error_code ec;
  for (const auto& org : fs::directory_iterator(root, ec)) {
    if (!org.is_directory()) continue;
    for (const auto& model : fs::directory_iterator(org.path(), ec)) {
      if (present(model.path() / "config.json")) {
        ids.push_back(org.path().filename().string() + "/" + model.path().filename().string());
      }
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

bool looks_like_hub_id(const std::string& name) {
  const auto slash = name.find('/');
  return slash != std::string::npos && slash > 0 && slash + 1 < name.size() && name.find('/', slash + 1) == std::string::npos &&
         fs::path(name).extension() != ".toml" && fs::path(name).extension() != ".json";
}

namespace {
// The config.json shipped for hub id `id` (configs/models/hf/<org>/<name>/config.json).
fs::path shipped_config(const std::string& id) { return fs::path(config_dir()) / "models" / "hf" / id / "config.json"; }
// A hub id with a shipped config and no local file or folder of that name: a name, like a
// preset's, not a path (relative paths in experiment and sweep files are not rebased onto it).
bool shipped_hub_id(const std::string& name) {
  return looks_like_hub_id(name) && !present(name) && present(shipped_config(name));
}
}  // namespace

bool looks_like_config_path(const std::string& name_or_path) {
  if (shipped_hub_id(name_or_path)) return false;
  return name_or_path.find('/') != std::string::npos || fs::path(name_or_path).extension() == ".toml" ||
         fs::path(name_or_path).extension() == ".json";
}

std::string resolve_preset(const std::string& kind, const std::string& name_or_path) {
  if (kind == "models" && shipped_hub_id(name_or_path)) return shipped_config(name_or_path).string();
  if (looks_like_config_path(name_or_path)) {
    if (kind == "models" && folder(name_or_path) && present(fs::path(name_or_path) / "config.json")) {
      return (fs::path(name_or_path) / "config.json").string();
    }
    if (kind == "models" && !present(name_or_path) && looks_like_hub_id(name_or_path)) {
      const std::vector<std::string> ids = list_hub_configs();
      std::string known;
      for (const auto& n : ids) known += (known.empty() ? "" : ", ") + n;
      const std::string guess = closest_name(name_or_path, ids);
      throw InputError("${model} '" + name_or_path + "': no such file, and no config.json shipped for that Hugging Face hub id" +
                       (guess.empty() ? std::string() : " (did you mean " + guess + "?)") + " (shipped: " + (known.empty() ? "none" : known) +
                       "). roofsim works offline: download the model's config.json and give its path (--model path/to/config.json)");
    }
    const std::string setting = kind == "hardware" ? "${hw} " : kind == "models" ? "${model} " : "";
    std::error_code ec;
    if (!fs::exists(name_or_path, ec)) throw InputError(setting + name_or_path + ": " + (ec ? ec.message() : "no such file"));
    // A folder is no config (reading one as TOML would blame a missing key at line 1).
    if (folder(name_or_path)) {
      throw InputError(setting + name_or_path + ": a folder" +
                       (kind == "models" ? " without a config.json in it" : "") + ", not a file");
    }
    return name_or_path;
  }
  fs::path p = fs::path(config_dir()) / kind / (name_or_path + ".toml");
  if (present(p)) return p.string();
  const std::vector<std::string> presets = list_presets(kind);
  std::string known;
  for (const auto& n : presets) known += (known.empty() ? "" : ", ") + n;
  const std::string setting = kind == "hardware" ? "${hw} " : kind == "models" ? "${model} " : "";
  std::vector<std::string> names = presets;
  std::string hub;
  if (kind == "models") {
    // The hub ids are many: counted, with where to see them, rather than one long line.
    const std::vector<std::string> ids = list_hub_configs();
    names.insert(names.end(), ids.begin(), ids.end());
    for (const auto& id : ids) names.push_back(id.substr(id.find('/') + 1));  // "Qwen3-32B" for "Qwen/Qwen3-32B"
    if (!ids.empty()) hub = "; " + std::to_string(ids.size()) + " Hugging Face hub ids: roofsim models list";
  }
  std::string guess = closest_name(name_or_path, names);
  if (kind == "models" && !guess.empty() && guess.find('/') == std::string::npos && !present(fs::path(config_dir()) / kind / (guess + ".toml"))) {
    for (const auto& id : list_hub_configs()) {
      if (id.substr(id.find('/') + 1) == guess) guess = id;  // suggest the whole hub id
    }
  }
  throw InputError(setting + "'" + name_or_path + "': unknown " + kind + " preset" + (guess.empty() ? "" : "; did you mean " + guess + "?") +
                   " (known: " + (known.empty() ? "none found in " + config_dir() + "/" + kind : known) + hub +
                   (kind == "models" ? "; or give a path to a .toml file or a config.json)" : "; or give a path to a .toml file)"));
}

}  // namespace roofsim
