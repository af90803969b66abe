// `roofsim hw list` and `roofsim hw show NAME`: what hardware presets there are and what they say.
#include <iostream>
#include <map>
#include <memory>

#include "components/memory_model.hpp"
#include "components/link_model.hpp"
#include "components/unit_model.hpp"
#include "core/format.hpp"
#include "core/hardware.hpp"
#include "core/hardware_params.hpp"
#include "core/hardware_toml.hpp"
#include "core/presets.hpp"
#include "core/chip_area.hpp"
#include "core/provenance.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"
#include "experiment/hardware_json.hpp"
#include "experiment/results.hpp"
#include "validation/analytic.hpp"

namespace roofsim {

void add_hw_command(CLI::App& app) {
  CLI::App* hw = app.add_subcommand("hw", "List hardware presets or show one in full");
  hw->require_subcommand(1);

  CLI::App* list = hw->add_subcommand("list", "List the hardware presets with their headline numbers");
  auto list_json = std::make_shared<std::string>();
  list->add_option("--json", *list_json, "Also write JSON to FILE ('-' = standard output)");
  list->callback([list_json] {
    nlohmann::json out = nlohmann::json::array();
    TextTable table({"preset", "chip", "bf16 peak", "HBM bandwidth", "bf16 ridge", "HBM"});
    for (const std::string& name : list_presets("hardware")) {
      HardwareSpec h = load_hardware(name);
      Roofline rl = roofline_for(h, DType::bf16);
      table.add_row({name, h.description, format_si(rl.peak_flops, "FLOP/s"),
                     format_si(rl.bandwidth, "B/s", 2),
                     format_fixed(rl.ridge(), 1) + " FLOP/B",
                     format_si(h.hbm.capacity_bytes, "B")});
      out.push_back(hardware_summary_json(h));
    }
    if (*list_json != "-") table.print(std::cout);
    if (!list_json->empty()) write_json(*list_json, out);
  });

  CLI::App* show = hw->add_subcommand("show", "Show every parameter of one hardware description and its source");
  struct ShowOptions {
    std::string name, json;
    bool provenance = false;
  };
  auto opt = std::make_shared<ShowOptions>();
  show->add_option("NAME", opt->name, "Preset name or path to a hardware .toml")->required();
  show->add_option("--json", opt->json, "Also write JSON to FILE ('-' = standard output)");
  show->add_flag("--provenance", opt->provenance,
                 "Also say of every parameter what kind of source it has: datasheet (or derived from one, a paper's, a "
                 "book's), microbenchmark (measured on the chip, or fitted to one public measurement of it), fit (calibrated "
                 "on kernel or serving tables, or published end-to-end runs) or assumption (carried over from another chip, "
                 "estimated, or no source), or default where the file leaves a key at its default; with a count per kind "
                 "(JSON: provenance_kinds)");
  show->callback([opt] {
    HardwareSpec h = load_hardware(opt->name);
    check_unit_models(h);  // an unknown [matrix], [vector] or [links] model, refused at its line
    check_link_model(h);
    nlohmann::json j = hardware_json(h);
    // The file as read, its base merged in: a parameter it does not set (and none derives) is left
    // at its default, which is not a claim about the chip (a TPU has no GPU kernels' cycles).
    const toml::table doc = read_hardware_toml(resolve_preset("hardware", opt->name));
    auto defaulted = [&](const std::string& key) { return !doc.at_path(key) && !h.provenance.count(key); };
    // A parameter's source as its file gives it ("" when none is given).
    auto source = [&h](const std::string& key) {
      auto p = h.provenance.find(key);
      return p == h.provenance.end() ? std::string() : p->second;
    };
    std::map<std::string, std::size_t> per_kind;
    if (opt->provenance) {
      nlohmann::json kinds = nlohmann::json::object();
      for (const auto& [key, value] : j["parameters"].items()) {
        const char* kind = defaulted(key) ? "default" : provenance_kind_name(provenance_kind(source(key)));
        kinds[key] = kind;
        ++per_kind[kind];
      }
      j["provenance_kinds"] = kinds;
    }
    if (opt->json != "-") {
      std::cout << h.description << " (" << h.source_file << ")\n\n";
      std::vector<std::string> header = {"parameter", "value"};
      if (opt->provenance) header.push_back("kind");
      header.push_back("source");
      TextTable t(header);
      for (const auto& [key, value] : j["parameters"].items()) {
        std::vector<std::string> row = {key, value.is_string() ? value.get<std::string>() : value.dump()};
        if (opt->provenance) row.push_back(j["provenance_kinds"][key].get<std::string>());
        const std::string from = source(key);
        row.push_back(!from.empty() ? from : defaulted(key) ? "(not in the file: the default)" : "(no source given)");
        t.add_row(row);
      }
      t.print(std::cout);
      if (opt->provenance) {
        std::cout << "\n" << j["parameters"].size() << " parameters:";
        const char* sep = " ";
        for (ProvenanceKind k : kProvenanceKinds) {
          std::cout << sep << per_kind[provenance_kind_name(k)] << " " << provenance_kind_name(k);
          sep = ", ";
        }
        if (per_kind["default"] > 0) std::cout << "; " << per_kind["default"] << " left at their default (not set in the file)";
        std::cout << "\n";
      }
    }
    // What the file's [area] and [cost] tables make of the chip.
    const AreaParts area = chip_area(h);
    const ChipCost cost = chip_cost(h);
    if (h.area.present) {
      j["area_mm2"] = {{"total", area.total()},          {"matrix", area.matrix}, {"vector", area.vector},
                       {"unit_overhead", area.unit_overhead}, {"sram", area.sram},     {"hbm_interface", area.hbm_interface},
                       {"link_interface", area.link_interface}, {"other", area.other}};
    }
    if (cost.modelled) {
      j["cost_usd"] = {{"total", cost.total_usd()}, {"die", cost.die_usd}, {"hbm", cost.hbm_usd}, {"package", cost.package_usd},
                       {"dies_per_wafer", cost.dies_per_wafer}, {"yield", cost.yield}};
    }
    if (opt->json != "-" && h.area.present) {
      std::cout << "\ndie      " << area_text(area) << "\n";
      if (cost.modelled) std::cout << "cost     " << cost_text(cost) << "\n";
      if (!cost.not_priced.empty()) std::cout << "cost     not priced: " << cost.not_priced << "\n";
    }
    if (!opt->json.empty()) write_json(opt->json, versioned(j));
  });

  hw->add_subcommand("keys", "Every hardware key a file may hold: unit, value, default and meaning, then the memory "
                             "models ([memory] model) and their own keys, those of libraries loaded with --plugin too "
                             "(Markdown; docs/hardware-keys.md is this output without plugins)")
      ->callback([] { std::cout << hardware_keys_markdown() << memory_models_markdown() << unit_models_markdown() << link_models_markdown(); });
}

}  // namespace roofsim
