#pragma once
// Every model roofsim ships: the TOML presets of configs/models/ and the Hugging Face
// config.json files of configs/models/hf/, with the sizes people compare them by. Shared by
// `roofsim models` and the Python module.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workloads/model.hpp"

namespace roofsim {

struct CatalogEntry {
  std::string name;  // what --model takes: the preset name or the hub id
  std::string kind;  // "preset" (TOML) or "hf" (config.json)
  ModelConfig model;
};

// Presets first (sorted by name), then shipped configs (sorted by hub id).
std::vector<CatalogEntry> model_catalog();

// One listing row: name, hub id, architecture, layers, total and active parameters, KV bytes
// per token in bf16 and the context. Numbers stay numbers (JSON, CSV).
nlohmann::json catalog_row(const CatalogEntry& e);
// Every field of one model (what `roofsim models show` prints), derived sizes included.
nlohmann::json model_fields_json(const ModelConfig& m);

}  // namespace roofsim
