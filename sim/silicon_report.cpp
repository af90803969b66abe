#include "sim/silicon_report.hpp"

#include <ostream>

#include "core/format.hpp"
#include "experiment/silicon.hpp"

namespace roofsim {

void print_silicon(std::ostream& os, const ExperimentResult& r) {
  const RunSilicon s = run_silicon(r);
  if (!s.area_modelled) return;
  const std::string chips = s.chips > 1 ? " (" + format_fixed(s.chips, 0) + " chips)" : std::string();
  os << "\ndie      " << area_text(s.chip_area) << " per chip\n";
  if (s.cost_modelled) os << "cost     " << cost_text(s.chip_cost) << "\n";
  if (!s.chip_cost.not_priced.empty()) os << "cost     not priced: " << s.chip_cost.not_priced << "\n";
  os << "value    " << format_fixed(s.tokens_per_s_per_mm2 * 100.0, 1) << " tokens/s per 100 mm2 of silicon" << chips;
  if (s.cost_modelled) os << ", " << format_fixed(s.tokens_per_s_per_kusd, 1) << " tokens/s per 1,000 USD of chips";
  os << "\n";
}

}  // namespace roofsim
