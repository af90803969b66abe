#include "sim/gap_table.hpp"

#include <cmath>
#include <ostream>

#include "core/format.hpp"

namespace roofsim {

namespace {

// A part as a share of the gap ("-" when there is no gap to share).
std::string share(double part, double gap) {
  if (gap <= 0) return "-";
  const double pct = 100.0 * part / gap;
  return std::fabs(pct) < 0.05 ? "0%" : format_fixed(pct, 1) + "%";
}

}  // namespace

std::vector<std::string> gap_header(std::vector<std::string> first) {
  first.insert(first.end(), {"simulated", "bound", "gap"});
  for (const NonIdealCost& c : non_ideal_costs()) first.push_back(c.name);
  first.push_back(kTilesAndOverlap);
  return first;
}

std::vector<std::string> gap_cells(std::vector<std::string> first, const GapParts& p) {
  first.insert(first.end(), {format_seconds(p.sim_s), format_seconds(p.bound_s),
                             format_seconds(p.gap()) + " (" + format_fixed(100.0 * p.gap() / p.sim_s, 1) + "%)"});
  for (double part : p.parts) first.push_back(share(part, p.gap()));
  first.push_back(share(p.tiles, p.gap()));
  return first;
}

void print_gap_causes(std::ostream& os) {
  os << "\nthe costs, in the order they were taken away:\n";
  for (const NonIdealCost& c : non_ideal_costs()) os << "  " << c.name << ": " << c.what << "\n";
  os << "  " << kTilesAndOverlap << ": what the ideal chip (--ideal) still spends above the bound: work padded to tile "
        "shapes, partial waves of tiles, units waiting on each other\n";
}

}  // namespace roofsim
