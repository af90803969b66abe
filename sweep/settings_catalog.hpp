#pragma once
// Every setting table in one catalog, by domain (run; serving, collective and sweep settings
// as their tables come): what `roofsim settings` prints, `roofsim.settings()` returns, the UI
// builds its forms from and docs/settings.md is. It lives with the sweeps because the sweep
// library is the one that sees every domain's table.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/setting.hpp"

namespace roofsim {

struct SettingRow {
  const SettingSpec* spec;
  std::string commands;  // which commands take it as a flag
};

struct SettingDomain {
  std::string name, title, about;
  std::vector<SettingRow> rows;
};

// Every domain, or the one named (InputError naming `flag` for an unknown name).
std::vector<SettingDomain> setting_domains(const std::string& only = "", const std::string& flag = "domain");
std::vector<std::string> setting_domain_names();
// {"domains": {name: {title, about, settings: [setting_json + commands]}}}, versioned.
nlohmann::json settings_json(const std::vector<SettingDomain>& domains);
// docs/settings.md.
std::string settings_markdown(const std::vector<SettingDomain>& domains);

}  // namespace roofsim
