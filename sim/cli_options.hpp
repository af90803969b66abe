#pragma once
// Options that several subcommands share, added the same way everywhere.
#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/setting.hpp"
#include "experiment/inference.hpp"

namespace roofsim {

// --json FILE, with the same help text on every subcommand.
// Flag checks whose refusals people can read (CLI11's own print their ranges with 300 digits,
// and let nan through PositiveNumber).
CLI::Validator positive_number();      // finite and > 0
CLI::Validator non_negative_number();  // finite and >= 0
CLI::Validator whole_number_between(std::int64_t lo, std::int64_t hi);
CLI::Validator non_empty_list();        // a comma-separated list with something in it

void add_json_option(CLI::App* cmd, std::string& target);
// --hw NAME|FILE with a default preset.
void add_hw_option(CLI::App* cmd, std::string& target);
// A dtype option validated against the known dtypes.
void add_dtype_option(CLI::App* cmd, const std::string& flag, std::string& target,
                      const std::string& help);
DType dtype_from_flag(const std::string& flag, const std::string& value);

// A setting of a table (core/setting.hpp) as a flag: its --help says what it is, its values
// and default; a value outside them is refused as CLI11 parses it.
CLI::Option* add_setting_flag(CLI::App* cmd, const SettingSpec& s, std::string& text);

// The value a given flag of setting `s` sets: true for a flag, else its text as the setting's
// kind (validated when parsed).
nlohmann::json flag_setting_value(const SettingSpec& s, const std::string& text);
// Whether the flag of setting `s` was given on `cmd` (false when `cmd` has no such flag).
bool setting_flag_given(const CLI::App& cmd, const SettingSpec& s);

// The experiment settings as flags (experiment/experiment_settings.hpp: one flag per setting of
// the table, its text kept as typed until apply_experiment_flags sets it).
struct ExperimentFlags {
  std::map<std::string, std::string> text;  // by setting name
  std::string value(const std::string& name) const;  // "" when not given
};
// machine_only: the settings of RunScope::machine (serve, search), not the batch and lengths.
void add_experiment_flags(CLI::App* cmd, ExperimentFlags& f, bool machine_only = false);
// Sets the run settings a result file records (`--from FILE`: experiment/result_settings.hpp),
// in the table's order; an error names the flag and the file.
void set_settings_from_result(Experiment& e, const std::string& path);

// Takes a setting's flag off `cmd` (a command that gives the flag another meaning: search's --tp
// is a list of degrees to try).
void remove_experiment_flag(CLI::App* cmd, ExperimentFlags& f, const std::string& name);
// Overrides the fields of `e` whose flags were given on `cmd`, in the table's order.
void apply_experiment_flags(const ExperimentFlags& f, const CLI::App& cmd, Experiment& e);

}  // namespace roofsim
