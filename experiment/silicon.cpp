#include "experiment/silicon.hpp"

namespace roofsim {

RunSilicon silicon_value(const HardwareSpec& hw, double chips, double tok_s) {
  RunSilicon s;
  s.chips = chips;
  if (!hw.area.present) return s;
  s.area_modelled = true;
  s.chip_area = chip_area(hw);
  s.tokens_per_s_per_mm2 = tok_s / (chips * s.chip_area.total());
  s.chip_cost = chip_cost(hw);
  if (!s.chip_cost.modelled) return s;
  s.cost_modelled = true;
  s.tokens_per_s_per_kusd = tok_s / (chips * s.chip_cost.total_usd() / 1000.0);
  return s;
}

RunSilicon run_silicon(const ExperimentResult& r) {
  return silicon_value(r.hw, static_cast<double>(r.replica_chips()), r.throughput_tok_s());
}

}  // namespace roofsim
