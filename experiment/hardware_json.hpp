#pragma once
// JSON views of a hardware description, shared by `hw` and `roofline`.
#include <nlohmann/json.hpp>

#include "core/hardware.hpp"

namespace roofsim {

// hardware, description, peak_flops (dtype -> FLOP/s), bandwidth, ridge (dtype -> FLOP/B).
nlohmann::json hardware_summary_json(const HardwareSpec& h);
// The summary plus "parameters": every configured value by its TOML key path.
nlohmann::json hardware_json(const HardwareSpec& h);

}  // namespace roofsim
