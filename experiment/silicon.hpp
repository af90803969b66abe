// A run's throughput per unit of silicon and per dollar of chips (issue 52): the tokens/s the
// simulation gave over the area and the cost of the chips that ran them (core/chip_area.hpp).
#pragma once

#include "core/chip_area.hpp"
#include "experiment/inference.hpp"

namespace roofsim {

struct RunSilicon {
  bool area_modelled = false, cost_modelled = false;  // the chip has [area]; [cost] besides
  double chips = 0;                                   // one replica's
  AreaParts chip_area;                                // per chip, mm2
  ChipCost chip_cost;
  double tokens_per_s_per_mm2 = 0;   // one replica's throughput over its chips' silicon
  double tokens_per_s_per_kusd = 0;  // ... over its chips' cost in thousands of USD
};
// `tok_s` tokens/s of `chips` chips over their silicon and their cost.
RunSilicon silicon_value(const HardwareSpec& hw, double chips, double tok_s);
// One replica's throughput over its chips.
RunSilicon run_silicon(const ExperimentResult& r);

}  // namespace roofsim
