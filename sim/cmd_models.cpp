// `roofsim models list` and `roofsim models show NAME`: what models roofsim knows, offline,
// and every field of one of them.
#include <iostream>
#include <memory>

#include "core/format.hpp"
#include "experiment/results.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"
#include "workloads/model_catalog.hpp"

namespace roofsim {

namespace {

// Parameter counts as model cards write them: 8.03B, 1.04T, 494M.
std::string params_text(double p) {
  if (p >= 1e12) return format_fixed(p / 1e12, 2) + "T";
  if (p >= 1e9) return format_fixed(p / 1e9, 2) + "B";
  return format_fixed(p / 1e6, 0) + "M";
}

}  // namespace

void add_models_command(CLI::App& app) {
  CLI::App* models = app.add_subcommand("models", "List the models roofsim ships (presets and Hugging Face configs) or show one");
  models->require_subcommand(1);

  CLI::App* list = models->add_subcommand("list", "One row per model: hub id, architecture, layers, parameters, KV cache per token, context");
  struct ListOptions {
    std::string json, csv;
  };
  auto lo = std::make_shared<ListOptions>();
  list->add_option("--json", lo->json, "Also write the rows as JSON to FILE ('-' = standard output)");
  list->add_option("--csv", lo->csv, "Also write the rows as CSV to FILE ('-' = standard output)");
  list->callback([lo] {
    for (const auto& [path, flag] : {std::pair{lo->json, "--json"}, {lo->csv, "--csv"}}) check_output_path(path, flag);
    std::ostream& os = human_out({{lo->json, "--json"}, {lo->csv, "--csv"}});
    nlohmann::json rows = nlohmann::json::array();
    TextTable table({"name", "hub id", "architecture", "layers", "params", "active/token", "KV/token (bf16)", "context"});
    for (const CatalogEntry& e : model_catalog()) {
      const nlohmann::json row = catalog_row(e);
      const ModelConfig& m = e.model;
      table.add_row({e.name, m.hub_id.empty() ? "(none)" : m.hub_id, m.architecture.empty() ? "(unsaid)" : m.architecture,
                     std::to_string(m.layers), params_text(m.total_params()),
                     m.is_moe() ? params_text(m.active_params_per_token()) : "-",
                     format_bytes(m.kv_bytes_per_token(DType::bf16)),
                     m.max_context > 0 ? std::to_string(m.max_context) : "-"});
      rows.push_back(row);
    }
    // Standard output carries the table unless JSON or CSV goes there.
    if (lo->json != "-" && lo->csv != "-") table.print(os);
    if (!lo->json.empty()) write_json(lo->json, versioned(nlohmann::json{{"models", rows}}));
    if (!lo->csv.empty()) {
      write_text(lo->csv, records_csv(rows, {"name", "hub_id", "architecture", "layers", "total_params",
                                             "active_params_per_token", "kv_bytes_per_token_bf16", "max_context"}));
    }
  });

  CLI::App* show = models->add_subcommand("show", "Every field of one model, where it comes from, and its sizes");
  struct ShowOptions {
    std::string name, json;
  };
  auto so = std::make_shared<ShowOptions>();
  show->add_option("NAME", so->name, "Preset name, Hugging Face hub id of a shipped config, or path to a .toml or config.json")->required();
  show->add_option("--json", so->json, "Also write JSON to FILE ('-' = standard output)");
  show->callback([so] {
    check_output_path(so->json, "--json");
    const ModelConfig m = load_model(so->name);
    const nlohmann::json j = model_fields_json(m);
    if (so->json != "-") {
      std::cout << m.name << " (" << m.source << ")\n\n";
      TextTable t({"field", "value"});
      for (const auto& [key, value] : j.items()) {
        if (key == "source") continue;  // in the heading: it would widen every row
        if ((key == "mla" || key == "sparse" || key == "linear") && value.is_object()) {
          for (const auto& [k, v] : value.items()) t.add_row({key + "." + k, v.is_string() ? v.get<std::string>() : v.dump()});
        } else if (key.find("params") != std::string::npos) {
          t.add_row({key, params_text(value.get<double>()) + " (" + format_fixed(value.get<double>(), 0) + ")"});
        } else if (key == "kv_bytes_per_token_bf16") {
          t.add_row({key, format_bytes(value.get<double>()) + " (" + format_fixed(value.get<double>(), 0) + " B)"});
        } else {
          t.add_row({key, value.is_string() ? value.get<std::string>() : value.dump()});
        }
      }
      t.print(std::cout);
    }
    if (!so->json.empty()) write_json(so->json, versioned(j));
  });
}

}  // namespace roofsim
