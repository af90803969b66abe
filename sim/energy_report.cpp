#include "sim/energy_report.hpp"

#include <ostream>

#include "core/format.hpp"
#include "experiment/energy.hpp"

namespace roofsim {

void print_energy(std::ostream& os, const ExperimentResult& r) {
  const RunEnergy en = run_energy(r);
  if (!en.modelled) return;
  const double chips = static_cast<double>(r.replica_chips());
  const EnergyParts all = [&] {
    EnergyParts p = en.prefill;
    p += en.decode;
    return p;
  }();
  auto share = [&](double j) { return format_fixed(100.0 * j / en.total_j(), 1) + "%"; };
  os << "\nenergy   " << format_si(en.total_j(), "J", 3) << (chips > 1 ? " (" + format_fixed(chips, 0) + " chips)" : std::string());
  if (en.per_output_token_j > 0) {
    os << ", " << format_si(en.per_output_token_j, "J", 3) << " per output token (" << format_fixed(1.0 / en.per_output_token_j, 2)
       << " tokens/J)";
  }
  os << "; prefill " << format_si(en.prefill.total(), "J", 3) << ", decode " << format_si(en.decode.total(), "J", 3) << "\n"
     << "power    " << format_fixed(en.avg_power_w, 0) << " W per chip on average, " << format_fixed(en.peak_power_w, 0)
     << " W in the busiest step (static " << format_fixed(r.hw.energy.static_w, 0) << " W)\n"
     << "         matrix " << share(all.matrix) << ", vector " << share(all.vector) << ", HBM " << share(all.hbm) << ", on-chip "
     << share(all.onchip) << (all.near_memory > 0 ? ", near-memory " + share(all.near_memory) : std::string())
     << (all.links > 0 ? ", links " + share(all.links) : std::string()) << ", static " << share(all.idle) << "\n";
  const EnergySpec& k = r.hw.energy;
  if (k.tdp_w <= 0) return;
  // The third roof: what the power limit lets the matrix units do, and whether it held the clock.
  os << "         power roof " << format_si(r.hw.power_roof_flops(DType::bf16), "FLOP/s") << " bf16 at the " << format_fixed(k.tdp_w, 0)
     << " W TDP; "
     << (k.power_limited_clock_hz > 0 ? "power-bound: it holds the matrix clock at " + format_fixed(k.power_limited_clock_hz / 1e6, 0) +
                                            " MHz (the fitted sustained clock: " + format_fixed(k.unlimited_clock_hz / 1e6, 0) + " MHz)"
                                      : "the sustained clock (" + format_fixed(r.hw.matrix.sustained_clock_hz / 1e6, 0) +
                                            " MHz) stays under it: not power-bound")
     << "\n";
}

}  // namespace roofsim
