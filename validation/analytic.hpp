#pragma once
// The analytic roofline model: pure functions of peak numbers and op counts. This is the only
// place in roofsim where an op's time is max(flops / peak, bytes / bandwidth); the simulator
// has to arrive near it by itself and is checked against it.
#include <string>

#include "core/hardware.hpp"
#include "workloads/op_cost.hpp"

namespace roofsim {

struct Roofline {
  double peak_flops = 0;  // FLOP/s
  double bandwidth = 0;   // bytes/s
  double ridge() const { return peak_flops / bandwidth; }  // FLOP/byte
  double attainable(double intensity) const;
};

// The roofline of the matrix units for a dtype (vector units for fp32 when the matrix units do
// not take it). Throws InputError when neither supports the dtype.
Roofline roofline_for(const HardwareSpec& hw, DType t);
Roofline roofline_for(const HardwareSpec& hw, Engine e, DType t);
// Peak FLOP/s for a dtype on the engine that would run a GEMM of it, or 0.
double peak_flops(const HardwareSpec& hw, DType t);

enum class Roof { compute, memory };
std::string roof_name(Roof r);

struct OpBound {
  double flops = 0;
  double bytes = 0;
  double intensity = 0;
  double compute_time_s = 0;
  double memory_time_s = 0;
  double bound_time_s = 0;  // max of the two
  double attainable_flops = 0;
  Roof roof = Roof::memory;
};

OpBound bound_op(const OpCost& cost, const HardwareSpec& hw);
// The bound of a GEMM on the near-memory units: its FLOPs at their peak, its weights at the
// internal bandwidth (activations and results crossing the interface come on top).
OpBound bound_near_memory(const GemmShape& g, const HardwareSpec& hw);

}  // namespace roofsim
