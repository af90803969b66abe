#pragma once
// An experiment's settings, declared once: the table below gives each setting's name (the names
// of `roofsim run`'s flags with underscores: "batch", "kv_dtype", "near_memory"), the type and
// range of its values, its default and meaning, and what it sets. The CLI flags of run, whatif,
// explain, serve and search, the experiment file's keys, sweep keys, the Python keywords and
// `roofsim settings` are made from it, so a setting means the same everywhere.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/setting.hpp"
#include "experiment/inference.hpp"

namespace roofsim {

// Which commands take a setting as a flag.
enum class RunScope {
  machine,  // the chip, the model and how they run: run, whatif, explain, serve and search
  run,      // run, whatif and explain (serve has its own setting of the name, or none)
  batch,    // run, whatif and explain; a serving run refuses it (its requests have their own lengths)
};

struct RunSetting {
  SettingSpec spec;
  RunScope scope = RunScope::machine;
  // A count's field: set from the value, read back by experiment_number (sweep constraints).
  std::int64_t Experiment::* count = nullptr;
  // Otherwise: sets the checked value (checked_setting_value: its kind and range hold); throws InputError
  // "${name} ..." for a value of the right kind that is still not one (an unknown routing form).
  std::function<void(Experiment&, const nlohmann::json&)> set;
};

// Every experiment setting, in the order they apply: hw before stack (a stack edits the
// chip's kernel parameters), stack before the kernels it chooses (so a kernel given wins).
const std::vector<RunSetting>& run_settings();
// The setting of that name or alias ("generate" is gen); nullptr for none.
const RunSetting* find_run_setting(const std::string& key);

// Whether `key` names an experiment setting ("gen" and "generate" both do).
bool is_experiment_setting(const std::string& key);
// Whether a serving run refuses `key` as a run's setting (batch, gen, decode_stride, ...).
bool is_batch_run_setting(const std::string& key);
// Sets one setting; throws InputError "key=value: expected ..." for a value of the wrong type
// or outside the setting's values (sums and products of them are checked by run_experiment).
void set_experiment_setting(Experiment& e, const std::string& key, const nlohmann::json& value);
// Sets a JSON object's settings in the table's order, whatever their order in it; `skip`
// leaves the keys another table takes (a serving run's prompt).
void set_experiment_settings(Experiment& e, const nlohmann::json& settings,
                             const std::function<bool(const std::string&)>& skip = nullptr);
// The counts' names (batch, prompt, gen, tp, ...): what a what-if sweep may vary besides hardware.
std::vector<std::string> experiment_count_names();
// Every setting's value in `e`, by name, as the setting takes it: what a result records in its
// `settings` object and `--from` sets again. null where the default in words applies (the
// checkpoint's formats, an automatic count, no stack, the default topology).
nlohmann::json experiment_settings_json(const Experiment& e);
// A numeric setting's value in `e` (batch, prompt, gen, tp, ...); nullopt for the others.
std::optional<double> experiment_number(const Experiment& e, const std::string& key);

}  // namespace roofsim
