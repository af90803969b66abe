#pragma once
// A matrix engine (a TPU MXU or one GPU SM's tensor cores) and a vector engine: the timelines
// of servers whose service time comes from the work's shape. Their completion events are
// raised by whoever waits for them (a wave of tiles raises one).
#include "components/matrix_tile.hpp"
#include "components/server.hpp"
#include "core/hardware.hpp"

namespace roofsim {

class MatrixUnit {
 public:
  explicit MatrixUnit(const MatrixSpec& spec)
      : spec_(spec), latency_ps_(cycles_to_ps(matrix_job_latency_cycles(spec))) {}
  double tile_cycles(const TileShape& t, DType compute) const {
    return matrix_tile_cycles(spec_, t, compute);
  }
  // Occupies the array for `cycles` from now (or when it frees up); returns when the result
  // is ready, pipeline drain included.
  Picoseconds run(Picoseconds now, double cycles) { return run_ps(now, cycles_to_ps(cycles)); }
  // The same for a service time already converted (cycles_to_ps): a wave whose units take equal
  // cycles converts them once.
  Picoseconds run_ps(Picoseconds now, Picoseconds service) { return timeline_.reserve(now, service) + latency_ps_; }
  Picoseconds cycles_to_ps(double cycles) const { return ceil_ps(cycles / spec_.sustained_clock_hz); }
  const Timeline& timeline() const { return timeline_; }
  Timeline& timeline() { return timeline_; }

 private:
  const MatrixSpec& spec_;
  Timeline timeline_;
  Picoseconds latency_ps_;
};

class VectorUnit {
 public:
  explicit VectorUnit(const VectorSpec& spec)
      : spec_(spec), latency_ps_(ceil_ps(spec.pipeline_latency_cycles / spec.clock_hz)) {}
  Picoseconds run(Picoseconds now, double flops) {
    return timeline_.reserve(now, ceil_ps(flops / spec_.flops_per_clock / spec_.clock_hz)) + latency_ps_;
  }
  const Timeline& timeline() const { return timeline_; }
  Timeline& timeline() { return timeline_; }

 private:
  const VectorSpec& spec_;
  Timeline timeline_;
  Picoseconds latency_ps_;
};

}  // namespace roofsim
