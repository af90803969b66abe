#pragma once
// A serving run's settings by name: the names of `roofsim serve`'s flags with underscores
// ("concurrency", "max_batch", "slo_tpot_ms"), values as JSON (numbers, strings, booleans; a
// list for per-position acceptance). Sweep files and the Python module set serving runs
// through this one table; the machine's settings (hw, model, dtypes, tp, ...) are experiment
// settings (experiment/experiment_settings.hpp).
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "serving/serving.hpp"

namespace roofsim {

bool is_serving_setting(const std::string& key);

// Builds a setup setting by setting; finish() fills what depends on several (the default
// number of requests depends on the arrivals; "stack" puts a software stack's kernels on the
// machine and its [serving] scheduler and host costs on the server, except settings given).
class ServingSettings {
 public:
  // Starts from the default serving workload (default_serving_workload()).
  ServingSettings();
  // Throws InputError "key=value: expected ..."; `batch`, `gen` and the like are refused
  // (a serving run takes prompt, output and arrivals instead).
  void set(const std::string& key, const nlohmann::json& value);
  // The setup on `machine`; `source` names where the settings came from.
  ServingSetup finish(Experiment machine, const std::string& source) const;

 private:
  ServingSetup s_;
  bool requests_given_ = false;
  std::string stack_;               // "stack": a software stack (configs/stacks), applied by finish()
  std::set<std::string> given_;     // the settings set by name: the stack's [serving] leaves them
};

}  // namespace roofsim
