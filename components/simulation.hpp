#pragma once
// One simulation: chips are elaborated, each runs its list of ops one after another, and the
// SystemC kernel runs until every chip is idle. SystemC elaborates and runs once per process,
// so everything that should be compared in one process goes into one call.
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

// Runs the jobs concurrently in one simulation (the chips do not share anything). May be
// called once per process. Bad shapes or plans throw InputError before the kernel starts.
SimulationOutcome simulate(const std::vector<ChipJob>& jobs);

// Sets the 1 ps resolution; must precede any sc_time. Safe to call more than once.
void init_systemc_time();

}  // namespace roofsim
