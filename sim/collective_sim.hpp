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
  double bound_time_s = 0;  // closed form for one collective alone
  double algbw = 0, busbw = 0;
  std::uint64_t events = 0;
  double wall_s = 0;
  std::vector<Fabric::LinkUse> links;
};

// Runs `concurrent` copies of the collective at once on the same links (contention). One
// simulation per process.
CollectiveResult simulate_collective(const HardwareSpec& hw, const Topology& t, const CollectiveSpec& spec,
                                     int concurrent = 1);
double collective_bound_s(const HardwareSpec& hw, const Topology& t, const CollectiveSpec& spec);
double busbw_factor(CollectiveKind k, int p);

}  // namespace roofsim
