#pragma once
// One simulation: chips are elaborated, each runs its list of ops one after another, and the
// SystemC kernel runs until every chip is idle.
#include <string>
#include <vector>

#include "components/chip.hpp"

namespace roofsim {

struct OpSpec {
  std::string name;
  bool is_gemm = true;
  GemmShape gemm;
  VectorShape vector;
};

struct ChipJob {
  HardwareSpec hw;
  Granularity granularity = Granularity::coarse;
  std::vector<OpSpec> ops;
};

struct ChipOutcome {
  std::vector<OpResult> ops;
  SimStats stats;
  std::uint64_t server_jobs = 0;
  Picoseconds end_ps = 0;
};

struct SimulationOutcome {
  std::vector<ChipOutcome> chips;
  std::uint64_t events = 0;       // SystemC kernel events dispatched
  std::uint64_t server_jobs = 0;  // jobs taken by all servers
  double wall_s = 0;  // SystemC kernel time (sc_start), excluding elaboration
  double elaboration_s = 0;
};

// Runs the jobs concurrently in one simulation (the chips do not share anything), in a fresh
// SystemC kernel of its own (components/sim_context.hpp): call it as often as needed. Bad
// shapes or plans throw InputError before the kernel starts.
SimulationOutcome simulate(const std::vector<ChipJob>& jobs);

}  // namespace roofsim
