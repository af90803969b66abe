#pragma once
// A hardware TOML file with its `base`: a hypothetical chip names the preset (or file) it
// starts from and gives only what differs, so that it keeps every calibrated parameter of its
// base instead of a copy that drifts.
//
//   base = "h100_sxm5"            # a preset name, or a path relative to this file
//   [hbm]
//   bandwidth_gb_per_s = 6700
//   [provenance]
//   "hbm.bandwidth_gb_per_s" = "hypothetical: twice the H100's"
#include <string>

#include <toml++/toml.h>

namespace roofsim {

// The file's document merged over its base's (recursively): tables merge key by key, any other
// value replaces the base's. The base's provenance of a key this file sets is dropped (it
// describes the base's value). Nodes keep the file and line they came from, so errors name the
// file that set the key. A missing base, a cycle or more than 8 levels is a ConfigError at the
// `base` key.
toml::table read_hardware_toml(const std::string& path);

}  // namespace roofsim
