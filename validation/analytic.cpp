#include "validation/analytic.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace roofsim {

double Roofline::attainable(double intensity) const {
  return std::min(peak_flops, bandwidth * intensity);
}

double peak_flops(const HardwareSpec& hw, DType t) {
  if (hw.matrix_supports(t)) return hw.matrix_peak_flops(t);
  if (t == DType::fp32) return hw.vector_peak_flops();
  return 0;
}

Roofline roofline_for(const HardwareSpec& hw, DType t) {
  double p = peak_flops(hw, t);
  if (p <= 0) {
    throw InputError("${dtype} " + std::string(dtype_name(t)) + ": no unit of " + hw.name + " computes in it");
  }
  return Roofline{p, hw.memory_bandwidth()};
}

Roofline roofline_for(const HardwareSpec& hw, Engine e, DType t) {
  if (e == Engine::vector) return Roofline{hw.vector_peak_flops(), hw.memory_bandwidth()};
  return roofline_for(hw, t);
}

std::string roof_name(Roof r) { return r == Roof::compute ? "compute" : "memory"; }

OpBound bound_op(const OpCost& cost, const HardwareSpec& hw) {
  Roofline rl = roofline_for(hw, cost.engine, cost.compute_dtype);
  OpBound b;
  b.flops = cost.flops;
  b.bytes = cost.bytes();
  b.intensity = cost.intensity();
  b.compute_time_s = b.flops / rl.peak_flops;
  b.memory_time_s = b.bytes / rl.bandwidth;
  // Operands resident in the tile buffer come from there while the outputs go to HBM: the
  // slower of the two streams bounds the op (a hierarchical roofline's L2 roof).
  if (cost.reads_resident) {
    b.memory_time_s = std::max(cost.read_bytes / hw.tile_buffer_memory().bandwidth, cost.write_bytes / rl.bandwidth);
  }
  b.bound_time_s = std::max(b.compute_time_s, b.memory_time_s);
  b.roof = b.compute_time_s >= b.memory_time_s ? Roof::compute : Roof::memory;
  b.attainable_flops = cost.reads_resident ? b.flops / b.bound_time_s : rl.attainable(b.intensity);
  return b;
}

}  // namespace roofsim

namespace roofsim {

OpBound bound_near_memory(const GemmShape& g, const HardwareSpec& hw) {
  const OpCost cost = gemm_cost(g);
  OpBound b;
  b.flops = cost.flops;
  b.bytes = static_cast<double>(g.batch * g.b_elements_per_batch()) * dtype_bytes(g.b);
  b.intensity = b.flops / b.bytes;
  b.compute_time_s = b.flops / hw.pim_peak_flops();
  b.memory_time_s = b.bytes / hw.pim_bandwidth();
  b.bound_time_s = std::max(b.compute_time_s, b.memory_time_s);
  b.roof = b.compute_time_s >= b.memory_time_s ? Roof::compute : Roof::memory;
  b.attainable_flops = std::min(hw.pim_peak_flops(), hw.pim_bandwidth() * b.intensity);
  return b;
}

}  // namespace roofsim
