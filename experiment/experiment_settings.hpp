#pragma once
// An experiment's settings by name: the names of `roofsim run`'s flags with underscores
// ("batch", "kv_dtype", "near_memory"), values as JSON scalars. Sweep files and the Python
// module set experiments through this one table, so a setting means the same everywhere.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/inference.hpp"

namespace roofsim {

// A setting's value as the type it must be; each throws InputError "key=value: expected ...".
// (Serving settings read their values with these too.)
std::int64_t setting_whole(const std::string& key, const nlohmann::json& value);  // 8 or 8.0, not 8.5
double setting_number(const std::string& key, const nlohmann::json& value, const std::string& expected);
bool setting_flag(const std::string& key, const nlohmann::json& value);
std::string setting_text(const std::string& key, const nlohmann::json& value);
[[noreturn]] void setting_refused(const std::string& key, const nlohmann::json& value, const std::string& expected);

// Whether `key` names an experiment setting ("gen" and "generate" both do).
bool is_experiment_setting(const std::string& key);
// The setting names, for messages and help.
std::vector<std::string> experiment_setting_names();
// Sets one setting; throws InputError "key=value: expected ..." for a value of the wrong type
// or outside the setting's values (ranges of counts are checked by run_experiment).
void set_experiment_setting(Experiment& e, const std::string& key, const nlohmann::json& value);
// A numeric setting's value in `e` (batch, prompt, gen, tp, ...); nullopt for the others.
std::optional<double> experiment_number(const Experiment& e, const std::string& key);

}  // namespace roofsim
