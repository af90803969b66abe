#pragma once
// A serving run's settings, declared once: the table gives each setting's name (the names of
// `roofsim serve`'s flags with underscores: "concurrency", "max_batch", "slo_tpot_ms"), the type
// and range of its values, its default and meaning, and what it sets. serve's flags, sweep keys,
// the Python keywords of serve() and `roofsim settings serving` are made from it. The
// machine's settings (hw, model, dtypes, tp, ...) are experiment settings
// (experiment/experiment_settings.hpp); "stack" is both: its kernels go on the machine there, its
// [serving] table on the server here.
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/setting.hpp"
#include "serving/serving.hpp"

namespace roofsim {

struct ServingSetting {
  SettingSpec spec;
  // Sets the checked value (checked_setting_value: its kind and range hold).
  std::function<void(ServingSetup&, const nlohmann::json&)> set;
};

// Every serving setting, in the order --help and the docs list them.
const std::vector<ServingSetting>& serving_settings();
const ServingSetting* find_serving_setting(const std::string& key);
bool is_serving_setting(const std::string& key);
// In a serving run, which settings take a key: the serving table (its own keys, and a run's
// batch settings, which it refuses by name), the machine's (experiment settings), or both
// ("stack": its kernels on the machine, its [serving] table on the server).
bool for_serving(const std::string& key);
bool for_serving_machine(const std::string& key);

// The names the settings (and the reports) give the values of the serving enums.
const char* first_token_name(DisaggregationConfig::FirstToken f);

class ServingSettings;
// A serving run's settings object split by those rules: the serving settings are set on
// `serving` (a null one is left at its default); the rest is returned for the machine (its
// settings, or what the caller takes besides: a sweep's hardware keys; an unknown key is the
// machine's to refuse), each named in `machine_given`.
nlohmann::json set_serving_part(ServingSettings& serving, const nlohmann::json& settings, std::set<std::string>& machine_given);

// Every setting of a serving run in `s`, by name, as the setting takes it: the machine's that
// serve takes as flags (experiment_settings_json), then the serving settings (null: not in use,
// as the arrivals of another kind, or the default in words). What a serving result records in
// its `settings` object and `serve --from` sets again.
nlohmann::json serving_settings_json(const ServingSetup& s);

// Builds a setup setting by setting; finish() fills what depends on several (the arrivals'
// kind, the default number of requests) and refuses settings that contradict each other.
class ServingSettings {
 public:
  // Starts from the default serving workload (default_serving_workload()).
  ServingSettings();
  // Throws InputError "${key}=value: expected ..."; `batch`, `gen` and the like are refused
  // (a serving run takes prompt, output and arrivals instead).
  void set(const std::string& key, const nlohmann::json& value);
  // The setup on `machine` (its stack's kernels already on it: the experiment setting "stack");
  // "stack" puts the stack's [serving] scheduler and host costs on the server, except the
  // settings given here and `machine_given` (the machine's settings given by name: kv_dtype).
  // `source` names where the settings came from.
  ServingSetup finish(Experiment machine, const std::string& source, const std::set<std::string>& machine_given = {}) const;

 private:
  ServingSetup s_;
  std::map<std::string, nlohmann::json> given_;  // the settings set, by name
};

}  // namespace roofsim
