#pragma once
// One setting of a run, a serving run, a collective or a sweep, described once: its name, the
// type and range of its values, its default and what it means. Each domain keeps a table of
// these (experiment/run_settings.hpp, ...) and every front end is generated from the table: the
// CLI flags and their --help, the experiment/serving file keys, sweep and what-if keys, the
// Python keywords and their docstrings, `roofsim settings --json` (the UI's forms) and
// docs/settings.md. One default and one range per setting, the same in every front end.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace roofsim {

enum class SettingKind {
  whole,   // a count: 8 (8.0 from a computed value is 8; 8.5 is not a count)
  number,  // a finite real number
  flag,    // true or false; on the command line a flag without a value
  text,    // a string of a form the setting checks (a name, a path, "power_law:1.2")
  choice,  // one of the names choices() lists
  numbers, // one number, or several (a list; on the command line comma-separated): one per position
};

struct SettingSpec {
  std::string name;  // the file key, sweep key and Python keyword; the flag is --name, dashes for '_'
  SettingKind kind = SettingKind::text;
  std::string unit;          // "tokens", "chips", "ms": how a person reads the value ("" for none)
  std::string default_text;  // the default as people read it ("512", "the checkpoint's formats")
  // whole and number: the values allowed (after unit conversion nothing else is checked again).
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool above_lo = false;  // lo itself is not allowed (a rate > 0)
  // choice: the names allowed, read live (from a registry where there is one).
  std::function<std::vector<std::string>()> choices;
  // text: the forms allowed, in words ("uniform, balanced or power_law:A"), and a check of them
  // (none: any string; the setting may still refuse it when set).
  std::string form;
  std::function<bool(const std::string&)> accepts;
  bool whole_as_text = false;  // text: a whole number is taken as its text (prompt=1000 is "1000")
  std::string help;
  std::vector<std::string> aliases;  // other names of the same setting ("generate" for gen)
  std::string group;                 // a heading for forms and --help ("arrivals", "KV cache"); "" for none

  std::string flag() const;      // "--decode-stride"
  // The flag and the aliases' flags, as CLI11 takes several names ("--requests-from,--trace-file"):
  // a renamed setting keeps its old flag for a release.
  std::string flag_names() const;
  std::string expected() const;  // "a whole number from 1 to 16777216", "fused, unfused or vector"
  bool named(const std::string& key) const;  // the name or an alias
};

// A text setting's `accepts` from its parser: the texts `parse` reads without an InputError.
template <typename Parse>
std::function<bool(const std::string&)> accepts_what_parses(Parse parse) {
  return [parse](const std::string& text) {
    try {
      parse(text);
      return true;
    } catch (const InputError&) {
      return false;
    }
  };
}

// The row of a settings table (rows with a `spec`) named `key` or aliased so; nullptr for none.
template <typename Row>
const Row* find_setting(const std::vector<Row>& table, const std::string& key) {
  for (const Row& row : table) {
    if (row.spec.named(key)) return &row;
  }
  return nullptr;
}

// The value as its setting takes it (a whole number as an integer), or InputError
// "KEY=VALUE: expected ..." where KEY is `label` (the name, a file's key path...).
nlohmann::json checked_setting_value(const SettingSpec& s, const nlohmann::json& value, const std::string& label);
// A command-line text as the JSON value the setting takes ("8" -> 8, "true" -> true); an
// error text when it is not one (for a CLI11 validator), empty when it is.
std::string setting_text_error(const SettingSpec& s, const std::string& text);
nlohmann::json setting_value_from_text(const SettingSpec& s, const std::string& text);

// A description for programs (`roofsim settings --json`): name, flag, kind, unit, default,
// min/max, choices, help, aliases.
nlohmann::json setting_json(const SettingSpec& s);
// A Markdown table of settings (docs/settings.md).
std::string settings_markdown_table(const std::vector<const SettingSpec*>& specs);

}  // namespace roofsim
