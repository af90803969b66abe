// What an op's events cost in energy, by where it went (issue 52): the parts a run's energy
// report adds up (experiment/energy.hpp), apart so that a run's summaries can take each step's
// share as the step ends (experiment/run_summary.hpp).
#pragma once

#include "components/chip.hpp"
#include "core/hardware.hpp"
#include "workloads/graph.hpp"

namespace roofsim {

// Joules, by where they went.
struct EnergyParts {
  double matrix = 0, vector = 0, hbm = 0, onchip = 0, near_memory = 0, links = 0;
  double idle = 0;  // the static power over the time
  double dynamic() const { return matrix + vector + hbm + onchip + near_memory + links; }
  double total() const { return dynamic() + idle; }
  EnergyParts& operator+=(const EnergyParts& o);
};
EnergyParts operator*(EnergyParts p, double factor);

// One op's dynamic energy on the chip that ran it.
EnergyParts op_energy(const HardwareSpec& hw, const OpNode& op, const OpResult& result);

}  // namespace roofsim
