// `roofsim settings`: every setting of every front end as its table declares it (name, flag,
// values, default, meaning), for people, for programs (--json: the UI builds its forms from it)
// and for the docs (--markdown: docs/settings.md is this output, checked by a test).
#include <iostream>
#include <memory>

#include "core/error.hpp"
#include "core/format.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"
#include "sweep/settings_catalog.hpp"

namespace roofsim {

namespace {

// The first sentence of a help text, for the table.
std::string first_sentence(const std::string& help) {
  const std::size_t end = help.find_first_of(":;(\n");
  return help.substr(0, end == std::string::npos ? help.size() : end);
}

}  // namespace

void add_settings_command(CLI::App& app) {
  struct Options {
    std::string domain, json;
    bool markdown = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "settings", "Every setting roofsim takes, as declared once: name (file key, sweep key, Python keyword), flag, values, "
                  "default, the commands that take it and its meaning. --json for programs (the UI builds its forms from it), "
                  "--markdown for docs/settings.md");
  cmd->add_option("DOMAIN", o->domain, "Only this table: " + or_list(setting_domain_names()))
      ->check(CLI::IsMember(setting_domain_names()));
  add_json_option(cmd, o->json);
  cmd->add_flag("--markdown", o->markdown, "Write the tables as Markdown (docs/settings.md) to standard output");
  cmd->callback([o] {
    check_output_path(o->json, "--json");
    const std::vector<SettingDomain> ds = setting_domains(o->domain, "DOMAIN");
    if (o->markdown) {
      std::cout << settings_markdown(ds);
    } else {
      std::ostream& os = human_out(o->json);
      for (const SettingDomain& d : ds) {
        os << d.title << " (" << d.rows.size() << "; `roofsim settings " << d.name << " --json` or docs/settings.md for the whole text):\n";
        TextTable t({"key", "flag", "values", "default", "commands", "meaning"});
        for (const SettingRow& r : d.rows) {
          const SettingSpec& s = *r.spec;
          t.add_row({s.name, s.flag(), s.kind == SettingKind::text && s.form.empty() ? "text" : s.expected(),
                     render_setting_names(s.default_text, SettingNames::key), r.commands,
                     first_sentence(render_setting_names(s.help, SettingNames::key))});
        }
        t.print(os);
      }
    }
    if (!o->json.empty()) write_json(o->json, settings_json(ds));
  });
}

}  // namespace roofsim
