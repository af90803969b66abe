#pragma once
// A chip's matrix engines (TPU MXUs or GPU SMs' tensor cores), vector engines and near-memory
// units as families of units behind the compute seam (components/compute_port.hpp): servers
// whose service time comes from the work's shape. A matrix unit's work is cycles of its array,
// a vector or near-memory unit's FLOPs.
#include "components/compute_port.hpp"
#include "components/matrix_tile.hpp"
#include "core/hardware.hpp"

namespace roofsim {

class MatrixUnits final : public UnitArray {
 public:
  MatrixUnits(const sc_core::sc_module_name& name, const MatrixSpec& spec)
      : UnitArray(name, static_cast<std::size_t>(spec.units), cycles_to_ps(spec, matrix_job_latency_cycles(spec))), spec_(spec) {}
  double tile_cycles(const TileShape& t, DType compute) const { return matrix_tile_cycles(spec_, t, compute); }
  // A job's array cycles at the sustained clock; its result is ready the pipeline's drain later.
  static Picoseconds cycles_to_ps(const MatrixSpec& spec, double cycles) { return ceil_ps(cycles / spec.sustained_clock_hz); }

 private:
  Picoseconds service_ps(double cycles) const override { return cycles_to_ps(spec_, cycles); }
  const MatrixSpec& spec_;
};

class VectorUnits final : public UnitArray {
 public:
  VectorUnits(const sc_core::sc_module_name& name, const VectorSpec& spec)
      : UnitArray(name, static_cast<std::size_t>(spec.units), ceil_ps(spec.pipeline_latency_cycles / spec.clock_hz)), spec_(spec) {}

 private:
  Picoseconds service_ps(double flops) const override { return ceil_ps(flops / spec_.flops_per_clock / spec_.clock_hz); }
  const VectorSpec& spec_;
};

// One unit beside each HBM channel (PimSpec): it multiplies what its channel's banks deliver,
// its result ready as its multiply ends.
class NearMemoryUnits final : public UnitArray {
 public:
  NearMemoryUnits(const sc_core::sc_module_name& name, const PimSpec& spec, std::size_t channels)
      : UnitArray(name, channels, 0), spec_(spec) {}

 private:
  Picoseconds service_ps(double flops) const override { return ceil_ps(flops / (spec_.flops_per_clock * spec_.clock_hz)); }
  const PimSpec& spec_;
};

}  // namespace roofsim
