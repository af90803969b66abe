// The experiment file ([experiment] table) and the launch modes' names: reading settings, not
// running them (experiment/inference.cpp runs them).
#include <filesystem>
#include <optional>
#include <tuple>

#include "components/collectives.hpp"
#include "core/config_reader.hpp"
#include "core/error.hpp"
#include "core/presets.hpp"
#include "experiment/experiment_settings.hpp"
#include "experiment/inference.hpp"
#include "experiment/run_checks.hpp"

namespace roofsim {

const char* launch_name(Launch l) { return launch_names().at(static_cast<std::size_t>(l)).c_str(); }

std::optional<Launch> parse_launch(const std::string& s) {
  const std::vector<std::string>& names = launch_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == s) return static_cast<Launch>(i);
  }
  return std::nullopt;
}

Experiment load_experiment_file(const std::string& path) {
  toml::table doc = ConfigTable::parse_file(path);
  ConfigTable top(doc, path, "");
  ConfigTable t = top.table("experiment");
  Experiment e;
  e.source = path;
  // Every key is a setting of the table (experiment/experiment_settings.hpp), set in the
  // table's order; a value it refuses is refused at its line, by its key path.
  std::map<std::string, nlohmann::json> given;  // by setting name
  for (const std::string& key : t.keys()) {
    const RunSetting* s = find_run_setting(key);
    if (s == nullptr) continue;  // reject_unknown_keys names it
    if (given.count(s->spec.name)) t.fail(key, "given twice (as " + s->spec.name + " and its other name)");
    const nlohmann::json value = toml_scalar(t, key, t.node(key));
    try {
      checked_setting_value(s->spec, value, key);
    } catch (const InputError&) {
      t.fail(key, "expected " + s->spec.expected() + ", got " + value.dump());
    }
    given[s->spec.name] = value;
    e.set_in_file[s->spec.name] = path + ":" + std::to_string(t.line_of(key)) + ": " + t.key_path(key);
  }
  t.reject_unknown_keys();
  top.reject_unknown_keys();
  for (const RunSetting& s : run_settings()) {
    const auto it = given.find(s.spec.name);
    if (it == given.end()) continue;
    try {
      set_experiment_setting(e, s.spec.name, it->second);
    } catch (const InputError& err) {
      throw located_in_experiment_file(err, e);
    }
  }
  // A relative path to a hardware or model file is relative to the experiment file; a name or
  // path that finds nothing is refused here, at its line.
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (const auto& [key, kind, value] : {std::tuple{"hw", "hardware", &e.hw}, {"model", "models", &e.model}}) {
    if (looks_like_config_path(*value) && std::filesystem::path(*value).is_relative()) *value = (dir / *value).lexically_normal().string();
    if (!t.has(key)) continue;
    try {
      resolve_preset(kind, *value);
    } catch (const InputError& err) {
      t.fail(key, err.what());
    }
  }
  return e;
}

}  // namespace roofsim
