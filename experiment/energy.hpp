// Energy and power of a run, from its simulated events (issue 52): what each op's units spent
// (FLOPs, padding included, on the units that ran them), the bytes it moved through HBM or read
// from the tile buffer, the bytes the links carried in each step, and the chips' static power
// over the run's time, at the hardware file's [energy] constants. Nothing here times anything:
// the times are the simulation's.
#pragma once

#include "experiment/energy_parts.hpp"
#include "experiment/inference.hpp"

namespace roofsim {

// One simulated pass's dynamic energy on all the chips that ran it: its ops' on the simulated
// chip times that chip's tensor- and expert-parallel `peers`, and `link_bytes` over the links.
double pass_dynamic_energy_j(const HardwareSpec& hw, const OpGraph& g, const std::vector<OpResult>& results, double peers,
                             std::uint64_t link_bytes);

// A run's energy: one replica, all its chips.
struct RunEnergy {
  bool modelled = false;  // the chip has an [energy] table; the rest is zero without one
  EnergyParts prefill, decode;  // decode: every step, interpolated ones included
  double total_j() const { return prefill.total() + decode.total(); }
  double per_output_token_j = 0;  // total / (batch x generated tokens); 0 when nothing is generated
  double per_request_j = 0;       // total / batch
  double avg_power_w = 0;         // per chip, over the whole run
  double peak_power_w = 0;        // per chip: the most of any simulated step's average
};
RunEnergy run_energy(const ExperimentResult& r);

}  // namespace roofsim
