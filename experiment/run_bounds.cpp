#include "experiment/run_bounds.hpp"

#include <algorithm>
#include <map>

#include "components/collectives.hpp"
#include "experiment/collective.hpp"
#include "validation/analytic.hpp"
#include "validation/collective_bounds.hpp"
#include "validation/workload_bounds.hpp"

namespace roofsim {

namespace {

// Analytic bound of one op: its roofline bound, or a collective's closed form over its group
// (a send: one switch traversal, or the route to the next stage's chip on a ring or torus).
OpBound bound_of(const OpNode& op, const HardwareSpec& hw, NearMemory policy) {
  if (op.is_gemm && runs_near_memory(hw, policy, op.gemm)) return bound_near_memory(op.gemm, hw);
  return bound_op(op.cost(), hw);
}


double op_bound_s(const OpNode& op, const HardwareSpec& hw, const CommSetup& comm, NearMemory policy) {
  if (!op.is_collective) return bound_of(op, hw, policy).bound_time_s;
  const Topology& t = *comm.topology;
  if (op.send_to_next) {
    // The stage's sends run at once; the slowest alone sets the bound.
    double longest = 0;
    const ChipLayout& l = comm.layout;
    for (int c = l.stage_base(op.device); c < l.stage_base(op.device + 1); ++c) {
      longest = std::max(longest, t.family->send_bound_s(t, hw, c, c + l.stage_size(), static_cast<double>(op.collective_bytes())));
    }
    return longest;
  }
  CollectiveSpec spec;
  spec.kind = collective_kind_of(op);
  spec.bytes = op.collective_bytes();
  // One group alone: all-reduces over a TP group, all-to-alls over an EP group (stage 0's
  // first: every group of a layout has the same shape).
  spec.group = op.over_ep_group() ? comm.layout.ep_group(0, 0) : comm.layout.tp_group(0, 0);
  spec.algo = framework_algo(t, spec.kind, spec.group, comm.allreduce);  // the algorithm the simulation runs
  return collective_bound_s(hw, t, spec);
}

}  // namespace

// Per op of a graph, its bound as the results report it: a collective's closed form in
// bound_time_s only. Computed once per graph, for the critical path and the op records.
std::vector<OpBound> op_bounds(const OpGraph& g, const HardwareSpec& hw, const CommSetup& comm, NearMemory policy) {
  std::vector<OpBound> out(g.size());
  for (OpId v = 0; v < g.size(); ++v) {
    const OpNode& op = g.op(v);
    if (op.is_collective) {
      out[v].bound_time_s = op_bound_s(op, hw, comm, policy);
    } else {
      out[v] = bound_of(op, hw, policy);
    }
  }
  return out;
}

// Analytic bound of a graph: the longest path when every op takes its own bound time.
double critical_path_bound(const OpGraph& g, const std::vector<OpBound>& bounds) {
  std::vector<double> finish(g.size(), 0.0);
  double longest = 0;
  for (OpId v : g.topological_order()) {
    double start = 0;
    for (auto [e, end] = boost::in_edges(v, g.base()); e != end; ++e) {
      start = std::max(start, finish[boost::source(*e, g.base())]);
    }
    finish[v] = start + bounds[v].bound_time_s;
    longest = std::max(longest, finish[v]);
  }
  return longest;
}

// The time a pass takes to read its weights and KV cache on the busiest pipeline stage: the B
// operand of every GEMM (weights for the linear layers, K and V for attention) and a CUDA-core GEMV's weights at the HBM's
// bandwidth, or at the near-memory units' internal one for the GEMVs they run. Activations are
// not counted: the speed of light.
double decode_read_time_s(const OpGraph& g, const HardwareSpec& hw, NearMemory policy) {
  std::vector<double> per_device;
  for (OpId v = 0; v < g.size(); ++v) {
    const OpNode& op = g.op(v);
    const double bytes = op.weight_bytes();
    if (bytes <= 0) continue;
    if (per_device.size() <= static_cast<std::size_t>(op.device)) per_device.resize(static_cast<std::size_t>(op.device) + 1, 0.0);
    // A GEMV the near-memory units run reads its weights at their internal bandwidth.
    const bool near = op.is_gemm && runs_near_memory(hw, policy, op.gemm);
    per_device[static_cast<std::size_t>(op.device)] += decode_step_bound_s(bytes, 0, near ? hw.pim_bandwidth() : hw.memory_bandwidth());
  }
  return per_device.empty() ? 0.0 : *std::max_element(per_device.begin(), per_device.end());
}

// A bound from each stage's resources: whatever overlaps, its FLOPs need the matrix and vector
// units and its bytes the HBM for at least sum / peak each.
// `bounds`: op_bounds() of g (an op off the near-memory units has its roofline bound there).
double resource_bound(const OpGraph& g, const HardwareSpec& hw, NearMemory policy, const std::vector<OpBound>& bounds) {
  std::map<int, std::pair<double, double>> per_device;  // compute seconds, memory seconds
  for (OpId v = 0; v < g.size(); ++v) {
    const OpNode& op = g.op(v);
    if (op.is_collective) continue;
    if (op.is_gemm && runs_near_memory(hw, policy, op.gemm)) continue;  // other units, other bandwidth
    const OpBound& b = bounds[v];
    per_device[op.device].first += b.compute_time_s;
    per_device[op.device].second += b.memory_time_s;
  }
  double longest = 0;
  for (const auto& [d, t] : per_device) longest = std::max({longest, t.first, t.second});
  return longest;
}

}  // namespace roofsim
