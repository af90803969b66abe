#include "experiment/silicon.hpp"

namespace roofsim {

RunSilicon run_silicon(const ExperimentResult& r) {
  RunSilicon s;
  s.chips = static_cast<double>(r.replica_chips());
  if (!r.hw.area.present) return s;
  s.area_modelled = true;
  s.chip_area = chip_area(r.hw);
  s.tokens_per_s_per_mm2 = r.throughput_tok_s() / (s.chips * s.chip_area.total());
  s.chip_cost = chip_cost(r.hw);
  if (!s.chip_cost.modelled) return s;
  s.cost_modelled = true;
  s.tokens_per_s_per_kusd = r.throughput_tok_s() / (s.chips * s.chip_cost.total_usd() / 1000.0);
  return s;
}

}  // namespace roofsim
