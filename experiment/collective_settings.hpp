#pragma once
// A collective experiment's settings, declared once (core/setting.hpp): `roofsim collective`'s
// flags, the keyword arguments of `roofsim.collective()`, the web page's collective form and
// `roofsim settings collective` are made from this table.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/setting.hpp"
#include "experiment/collective.hpp"

namespace roofsim {

struct CollectiveSetting {
  SettingSpec spec;
  std::function<void(CollectiveExperiment&, const nlohmann::json&)> set;  // the checked value
};

// In the order they apply: hw first (the chip the rest run on).
const std::vector<CollectiveSetting>& collective_settings();
const CollectiveSetting* find_collective_setting(const std::string& key);

// Sets a JSON object's settings in the table's order; the chip is the default preset unless
// "hw" is given or `hw_given` (a roofsim.Hardware from Python) is already on `x`. Throws
// InputError "${key}=value: expected ..." for a value outside a setting's range.
void set_collective_settings(CollectiveExperiment& x, const nlohmann::json& settings, bool hw_given = false);

// Every collective setting's value in `x`, by name (null: the default in words: the topology's
// algorithm, all chips, chip 1): what a collective result records and `collective --from` sets.
// The chip is recorded by its preset name, or its file's path when it is no preset.
nlohmann::json collective_settings_json(const CollectiveExperiment& x);

// "1GiB", "58MB", "1048576" -> bytes, whole, 1 B to 2^48; InputError naming `label` otherwise.
std::uint64_t parse_byte_size(const std::string& text, const std::string& label);

}  // namespace roofsim
