#pragma once
// A run's analytic bounds of a graph: each op's (a roofline bound, or a collective's closed form
// over its group), the critical path when every op takes its bound, each stage's resources
// summed, and the decode speed of light. The analytic side only: nothing here is simulated.
#include <string>
#include <vector>

#include "components/fabric.hpp"
#include "validation/analytic.hpp"
#include "workloads/chip_layout.hpp"
#include "workloads/graph.hpp"

namespace roofsim {

// What a collective's closed form needs: the fabric (null for one chip), the chip layout and
// the framework's all-reduce kernel (Experiment::allreduce).
struct CommSetup {
  const Topology* topology = nullptr;
  ChipLayout layout;
  std::string allreduce;
};

// Per op of a graph, its bound as the results report it: a collective's closed form in
// bound_time_s only. Computed once per graph, for the critical path and the op records.
std::vector<OpBound> op_bounds(const OpGraph& g, const HardwareSpec& hw, const CommSetup& comm, NearMemory policy);
// The longest path when every op takes its own bound time.
double critical_path_bound(const OpGraph& g, const std::vector<OpBound>& bounds);
// Per pipeline stage, its FLOPs at the units' peaks and its bytes at the HBM's bandwidth,
// whatever overlaps: the slowest stage's larger sum. `bounds`: op_bounds() of g.
double resource_bound(const OpGraph& g, const HardwareSpec& hw, NearMemory policy, const std::vector<OpBound>& bounds);
// The time a pass takes to read its weights and KV cache on the busiest stage (the speed of light).
double decode_read_time_s(const OpGraph& g, const HardwareSpec& hw, NearMemory policy);

}  // namespace roofsim
