#include "core/presets.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"

namespace fs = std::filesystem;

namespace roofsim {

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

bool looks_like_config_path(const std::string& name_or_path) {
  return name_or_path.find('/') != std::string::npos || fs::path(name_or_path).extension() == ".toml" ||
         fs::path(name_or_path).extension() == ".json";
}

std::string resolve_preset(const std::string& kind, const std::string& name_or_path) {
  if (looks_like_config_path(name_or_path)) {
    if (!fs::exists(name_or_path)) {
      throw InputError(std::string(kind == "hardware" ? "${hw} " : kind == "models" ? "${model} " : "") + name_or_path + ": no such file");
    }
    return name_or_path;
  }
  fs::path p = fs::path(config_dir()) / kind / (name_or_path + ".toml");
  if (fs::exists(p)) return p.string();
  std::string known;
  for (const auto& n : list_presets(kind)) known += (known.empty() ? "" : ", ") + n;
  const std::string setting = kind == "hardware" ? "${hw} " : kind == "models" ? "${model} " : "";
  throw InputError(setting + "'" + name_or_path + "': unknown " + kind + " preset (known: " +
                   (known.empty() ? "none found in " + config_dir() + "/" + kind : known) +
                   "; or give a path to a .toml file)");
}

}  // namespace roofsim
