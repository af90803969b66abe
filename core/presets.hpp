#pragma once
// Finding preset configs: a bare name is looked up in the configs folder, a path is used as is.
#include <string>
#include <vector>

namespace roofsim {

// configs/ folder: $ROOFSIM_CONFIG_DIR if set, else the source tree's configs/.
std::string config_dir();
// Names (file stems) of the presets in configs/<kind>/, sorted.
std::vector<std::string> list_presets(const std::string& kind);
// A path rather than a preset name: it has a '/' or ends in .toml or .json.
bool looks_like_config_path(const std::string& name_or_path);
// Hugging Face hub ids with a config.json shipped under configs/models/hf/<org>/<name>/, sorted.
std::vector<std::string> list_hub_configs();
// Shaped like a hub id: "org/name", one '/', no file extension.
bool looks_like_hub_id(const std::string& name);
// "h100_sxm5" -> configs/hardware/h100_sxm5.toml; "my.toml" or "dir/x" -> as given. For
// models, a folder holding a config.json is that file, and a hub id that is not a local path
// ("deepseek-ai/DeepSeek-V3") is the shipped config.json. Throws InputError listing the presets
// (and the shipped hub ids) when a name is unknown.
std::string resolve_preset(const std::string& kind, const std::string& name_or_path);

}  // namespace roofsim
