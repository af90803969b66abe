// A chip's silicon area and what making one costs (issue 52), from the hardware file's [area]
// and [cost] tables: the die is the sum of its units' areas, each unit family at its per-unit
// area (so a what-if that doubles the MACs per SM grows the tensor cores, not the L2), and a die
// costs its share of a wafer over its yield. Nothing here simulates: it describes the chip.
#pragma once

#include <string>

#include "core/hardware.hpp"

namespace roofsim {

// mm2 per chip, by unit family.
struct AreaParts {
  double matrix = 0, vector = 0, unit_overhead = 0, sram = 0, hbm_interface = 0, link_interface = 0, other = 0;
  double total() const { return matrix + vector + unit_overhead + sram + hbm_interface + link_interface + other; }
};

// The die's area; all zero where the chip has no [area] table.
AreaParts chip_area(const HardwareSpec& hw);

struct ChipCost {
  bool modelled = false;      // the chip has [area] and [cost], and its die fits the wafer
  std::string not_priced;     // why not, where [cost] is given but the die cannot be priced
  double dies_per_wafer = 0;  // whole dies on the wafer, its edge lost
  double yield = 0;           // share of them without a killer defect
  double die_usd = 0;         // the wafer's price over its good dies
  double hbm_usd = 0;
  double package_usd = 0;
  double total_usd() const { return die_usd + hbm_usd + package_usd; }
};

// One chip's cost. A die larger than the wafer holds (a what-if that multiplies the units) is
// not priced: `not_priced` says so, and the run's other results stand.
ChipCost chip_cost(const HardwareSpec& hw);

// "814 mm2 (matrix 6%, vector 2%, ...)": for reports.
std::string area_text(const AreaParts& a);
// "USD 1,550 per chip: die 990 (63 per wafer, 27% yield), HBM 560": for reports.
std::string cost_text(const ChipCost& c);

}  // namespace roofsim
