#pragma once
// Simulating collectives on a fabric of chips, beside their closed forms.
#include <optional>
#include <string>
#include <vector>

#include "components/collectives.hpp"
#include "core/checked.hpp"

namespace roofsim {

struct CollectiveResult {
  CollectiveSpec spec;
  Topology topology;
  double sim_time_s = 0;    // the slowest of the concurrent collectives
  std::vector<double> finished_s;  // when each of the concurrent collectives finished
  double bound_time_s = 0;  // closed form for one collective alone (the first)
  double algbw = 0, busbw = 0;
  std::uint64_t events = 0;
  double wall_s = 0;
  std::vector<Fabric::LinkUse> links;
};

// Runs `concurrent` copies of the collective at once on the same links (contention), in a
// fresh SystemC kernel of its own.
CollectiveResult simulate_collective(const HardwareSpec& hw, const Topology& t, const CollectiveSpec& spec,
                                     int concurrent = 1);
// Runs different collectives at once (e.g. one per group); `spec` and the bound are the first's.
// Refuses (InputError) when the estimated events exceed `max_events` (0: no limit).
CollectiveResult simulate_collectives(const HardwareSpec& hw, const Topology& t, const std::vector<CollectiveSpec>& specs,
                                      double max_events = kDefaultMaxEvents);
// The closed form of one collective alone; over a group on a ring or torus, that of the
// sub-torus it spans, and for sendrecv there, of the route from group[0] to group[1].
double collective_bound_s(const HardwareSpec& hw, const Topology& t, const CollectiveSpec& spec);
double busbw_factor(CollectiveKind k, int p);

// A collective experiment as people ask for it (`roofsim collective`, the Python module):
// which collective, how large, on which fabric, over which chips.
struct CollectiveExperiment {
  HardwareSpec hw;                 // as loaded; made ideal here when `ideal`
  bool ideal = false;
  std::string topology;            // "" = switch:8 for NVLink, 4x4x4 for ICI
  CollectiveKind kind = CollectiveKind::allreduce;
  std::optional<CollectiveAlgo> algo;  // none: default_algo for the topology and group
  std::uint64_t bytes = 1ull << 30;
  DType dtype = DType::bf16;  // the elements (NVLS does not reduce 8-bit types)
  int group = 0;       // > 0: every group of this many consecutive chips runs it at once
  int to = -1;         // sendrecv: the receiving chip (-1: chip 1)
  double max_events = kDefaultMaxEvents;  // the work guard (0: no limit)
  int concurrent = 1;  // copies of it at once on the same links
};

struct CollectiveExperimentResult {
  CollectiveExperiment setup;  // as asked
  HardwareSpec hw;  // ideal when asked
  int members = 0;  // chips in one collective (2 for sendrecv)
  int concurrent = 1;
  CollectiveResult sim;  // its spec is the first group's, with the algorithm that ran
  double peak_memory_bytes = 0;  // of this process so far (getrusage)
  // The closed form's bus bandwidth.
  double bound_busbw() const {
    return static_cast<double>(sim.spec.bytes) / sim.bound_time_s * busbw_factor(sim.spec.kind, members);
  }
};

// Throws InputError (naming the experiment's fields) for collectives that cannot run.
CollectiveExperimentResult run_collective_experiment(const CollectiveExperiment& x);

}  // namespace roofsim
