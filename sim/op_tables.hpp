#pragma once
// What `roofsim op` and the GEMM intensity sweep (`roofsim roofline --sweep`) print: a table of
// simulated ops against their bounds, and the simulation's speed (sim/cmd_op.cpp).
#include <ostream>
#include <string>
#include <vector>

#include "experiment/single_op.hpp"

namespace roofsim {

void print_ops(std::ostream& os, const std::vector<SimulatedOp>& ops);
void print_speed(std::ostream& os, const SimulationSpeed& out);

// GEMMs from about 1 to thousands of FLOP/B simulated on a chip, and the ridge that emerges
// (sim/cmd_roofline.cpp).
struct IntensitySweepOptions {
  std::string hw = "h100_sxm5";
  std::string dtype = "bf16";
  bool ideal = false;
  int points = 31;
  std::string json;
  std::string plot;
};
void run_intensity_sweep(const IntensitySweepOptions& o);

}  // namespace roofsim
