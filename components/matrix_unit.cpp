#include "components/matrix_unit.hpp"

namespace roofsim {

MatrixUnit::MatrixUnit(const char* name, const MatrixSpec& spec, SimStats& stats)
    : spec_(spec), server_(std::make_unique<Server>(name, stats)),
      latency_ps_(cycles_to_ps(spec.pipeline_latency_cycles)) {}

Picoseconds MatrixUnit::cycles_to_ps(double cycles) const {
  return ceil_ps(cycles / spec_.sustained_clock_hz);
}

void MatrixUnit::run(double cycles, Server::Callback done) {
  server_->submit(cycles_to_ps(cycles), latency_ps_, std::move(done));
}

VectorUnit::VectorUnit(const char* name, const VectorSpec& spec, SimStats& stats)
    : spec_(spec), server_(std::make_unique<Server>(name, stats)),
      latency_ps_(ceil_ps(spec.pipeline_latency_cycles / spec.clock_hz)) {}

void VectorUnit::run(double flops, Server::Callback done) {
  const double cycles = flops / spec_.flops_per_clock;
  server_->submit(ceil_ps(cycles / spec_.clock_hz), latency_ps_, std::move(done));
}

}  // namespace roofsim
