#include "sim/cli_options.hpp"

#include "components/collectives.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/parse.hpp"
#include "core/presets.hpp"
#include "experiment/experiment_settings.hpp"
#include "experiment/result_settings.hpp"
#include "experiment/stack.hpp"

namespace roofsim {

CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto v = parse_number(text);
        return v && *v > 0 ? std::string() : "'" + text + "' is not a positive number";
      },
      "> 0", "POSITIVE");
}

CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto v = parse_number(text);
        return v && *v >= 0 ? std::string() : "'" + text + "' is not a number >= 0";
      },
      ">= 0", "NON_NEGATIVE");
}

CLI::Validator whole_number_between(std::int64_t lo, std::int64_t hi) {
  const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        const auto v = parse_integer(text);
        return v && *v >= lo && *v <= hi ? std::string() : "'" + text + "' is not a whole number from " + range;
      },
      range, "WHOLE_NUMBER");
}

CLI::Validator non_empty_list() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.find_first_not_of(" ,") == std::string::npos ? "empty: give a list such as 1,2,4,8, or leave the flag out for its default"
                                                                  : std::string();
      },
      "LIST", "NON_EMPTY_LIST");
}

void add_json_option(CLI::App* cmd, std::string& target) {
  cmd->add_option("--json", target, "Also write the results as JSON to FILE ('-' = standard output, the table then goes to standard error)");
}

void add_hw_option(CLI::App* cmd, std::string& target) {
  cmd->add_option("--hw", target, "Hardware: a preset name (see 'roofsim hw list') or a path to a hardware .toml")
      ->capture_default_str();
}

void add_dtype_option(CLI::App* cmd, const std::string& flag, std::string& target,
                      const std::string& help) {
  cmd->add_option(flag, target, help + " (" + dtype_list() + ")")->capture_default_str();
}

DType dtype_from_flag(const std::string& flag, const std::string& value) {
  DType t;
  if (!parse_dtype(value, t)) {
    throw InputError(flag + " '" + value + "': unknown dtype (expected one of " + dtype_list() + ")");
  }
  return t;
}

CLI::Option* add_setting_flag(CLI::App* cmd, const SettingSpec& s, std::string& text) {
  std::string help = s.help;
  if (s.kind == SettingKind::choice && help.find(s.choices().front()) == std::string::npos) help += " (" + s.expected() + ")";
  if (s.kind == SettingKind::flag) return cmd->add_flag(s.flag_names())->description(render_setting_names(help, SettingNames::flag));
  help += " (default " + s.default_text + ")";
  CLI::Option* o = cmd->add_option(s.flag_names(), text, render_setting_names(help, SettingNames::flag));
  const char* type = s.kind == SettingKind::whole ? "INT" : s.kind == SettingKind::number ? "FLOAT" : s.kind == SettingKind::choice ? "NAME" : "TEXT";
  o->type_name(type);
  if (s.kind != SettingKind::text || s.accepts) {
    // `s` lives in its table for the program's life.
    o->check(CLI::Validator([&s](std::string& value) { return setting_text_error(s, value); }, "", s.name));
  }
  return o;
}

nlohmann::json flag_setting_value(const SettingSpec& s, const std::string& text) {
  return s.kind == SettingKind::flag ? nlohmann::json(true) : setting_value_from_text(s, text);
}

bool setting_flag_given(const CLI::App& cmd, const SettingSpec& s) {
  const CLI::Option* o = cmd.get_option_no_throw(s.flag());
  return o != nullptr && o->count() > 0;
}

std::string ExperimentFlags::value(const std::string& name) const {
  const auto it = text.find(name);
  return it == text.end() ? std::string() : it->second;
}

void add_experiment_flags(CLI::App* cmd, ExperimentFlags& f, bool machine_only) {
  for (const RunSetting& s : run_settings()) {
    if (machine_only && s.scope != RunScope::machine) continue;
    add_setting_flag(cmd, s.spec, f.text[s.spec.name]);
  }
}

void set_settings_from_result(Experiment& e, const std::string& path) {
  const nlohmann::json settings = read_result_settings(path, "run", "--from");
  try {
    set_experiment_settings(e, settings);
  } catch (const InputError& err) {
    throw InputError("--from " + path + ": " + err.what());
  }
  e.source = path;
}

void remove_experiment_flag(CLI::App* cmd, ExperimentFlags& f, const std::string& name) {
  const RunSetting* s = find_run_setting(name);
  cmd->remove_option(cmd->get_option(s->spec.flag()));
  f.text.erase(name);
}

void apply_experiment_flags(const ExperimentFlags& f, const CLI::App& cmd, Experiment& e) {
  for (const RunSetting& s : run_settings()) {
    // Only the flags add_experiment_flags added: serve's --prompt is a serving setting.
    if (!f.text.count(s.spec.name) || !setting_flag_given(cmd, s.spec)) continue;
    set_experiment_setting(e, s.spec.name, flag_setting_value(s.spec, f.value(s.spec.name)));
  }
  // A flag overrides the file: messages about that setting name the flag again.
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->count() == 0 || o->get_lnames().empty()) continue;
    std::string name = o->get_lnames().front();
    for (char& c : name) {
      if (c == '-') c = '_';
    }
    e.set_in_file.erase(name);
  }
  // A hub id runs in its checkpoint's formats unless a dtype flag or the file says otherwise.
  e = resolve_checkpoint_precision(e);
}

}  // namespace roofsim
