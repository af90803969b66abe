#pragma once
#include <algorithm>
// One simulation: chips are elaborated, each runs its list of ops one after another, and the
// SystemC kernel runs until every chip is idle.
#include <string>
#include <utility>
#include <vector>

#include "components/chip.hpp"
#include "core/checked.hpp"

namespace roofsim {

struct OpSpec {
  std::string name;
  bool is_gemm = true;
  GemmShape gemm;
  VectorShape vector;
  OpCost cost() const { return is_gemm ? gemm_cost(gemm) : vector_cost(vector); }
  // Its operands already in the tile buffer (GemmShape::reads_resident).
  void set_reads_resident() { (is_gemm ? gemm.reads_resident : vector.reads_resident) = true; }
};

struct ChipJob {
  ChipJob() = default;
  ChipJob(HardwareSpec h, Granularity g, std::vector<OpSpec> o, NearMemory n = NearMemory::small_rows)
      : hw(std::move(h)), granularity(g), ops(std::move(o)), near_memory(n) {}
  HardwareSpec hw;
  Granularity granularity = Granularity::coarse;
  std::vector<OpSpec> ops;
  // Which GEMMs near-memory units take on hardware with [pim] (off: the matrix units' roofline).
  NearMemory near_memory = NearMemory::small_rows;
  // When the host has launched each op, in seconds from the start (an eager framework's Python
  // between kernels): an op starts when the one before has ended and it has been launched.
  // Empty: every op launched at the start (a graph, or a host far ahead of the chip).
  std::vector<double> launched_at_s;
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
// Refuses (InputError) when the estimated events exceed `max_events` (0: no limit).
SimulationOutcome simulate(const std::vector<ChipJob>& jobs, double max_events = kDefaultMaxEvents);

// The work guard's estimate of an op's cost in events: a few to launch and finish it, per step
// its load, its dispatch and its completions, and its unit jobs, which cost about a tenth of an
// event each (about 30 M jobs/s against 1 M events/s); and one per memory request the DMA
// engine issues (the op's HBM bytes over dma.request_bytes: a request size of a few bytes makes
// every byte an event). Simulation takes 0.1-0.4 us per unit of this estimate on the presets'
// runs and single ops.
inline double estimated_op_events(std::int64_t steps, std::int64_t jobs_per_step = 1, double memory_requests = 0) {
  return 5.0 + static_cast<double>(steps) * (4.0 + 0.1 * static_cast<double>(jobs_per_step)) + memory_requests;
}
inline double estimated_gemm_events(const GemmPlan& plan, double request_bytes) {
  return estimated_op_events(plan.steps(), plan.tiles_per_block() * plan.bb,
                             static_cast<double>(plan.traffic_bytes()) / std::max(1.0, request_bytes));
}
inline double estimated_vector_events(const VectorPlan& plan, std::int64_t units, double request_bytes) {
  return estimated_op_events(plan.steps(), units, static_cast<double>(plan.traffic_bytes()) / std::max(1.0, request_bytes));
}

}  // namespace roofsim
