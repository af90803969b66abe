#pragma once
// Simulating collectives on a fabric of chips, beside their closed forms.
#include <string>
#include <vector>

#include "components/collectives.hpp"

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

// Runs `concurrent` copies of the collective at once on the same links (contention). One
// simulation per process.
CollectiveResult simulate_collective(const HardwareSpec& hw, const Topology& t, const CollectiveSpec& spec,
                                     int concurrent = 1);
// Runs different collectives at once (e.g. one per group); `spec` and the bound are the first's.
CollectiveResult simulate_collectives(const HardwareSpec& hw, const Topology& t, const std::vector<CollectiveSpec>& specs);
// The closed form of one collective alone; over a group on a ring or torus, that of the
// sub-torus it spans, and for sendrecv there, of the route from group[0] to group[1].
double collective_bound_s(const HardwareSpec& hw, const Topology& t, const CollectiveSpec& spec);
double busbw_factor(CollectiveKind k, int p);

}  // namespace roofsim
