#pragma once
// A GEMM (decode-style GEMV) run by the near-memory units beside the HBM channels. The
// activations are broadcast to every channel over its external interface; each channel's unit
// reads its share of the weights inside the stack at internal_bandwidth_factor times the
// channel's bandwidth and multiplies; the partial results cross back to the chip. The weights
// never cross the external interface: that is the point of near-memory compute.
#include <cstdint>
#include <vector>

#include "components/op_run.hpp"

namespace roofsim {

class PimRun : public OpRun {
 public:
  PimRun(Chip& chip, const GemmShape& g);
  void start(Callback done) override;
  std::int64_t step_count() const { return steps_; }

 private:
  void loads(std::int64_t, MemRange*) const override {}
  void dispatch(std::int64_t) override {}
  void issue_step(std::int64_t s);
  void step_done();

  GemmShape g_;
  std::int64_t steps_ = 0;
  std::uint64_t step_weight_bytes_ = 0;  // per step, all channels
  Picoseconds a_ready_ = 0;              // the broadcast activations are in every unit
  std::int64_t next_step_ = 0, outstanding_ = 0;
  // Scratch for one step's wave: each channel's FLOPs and when its weights and activations are in.
  std::vector<double> step_flops_;
  std::vector<Picoseconds> delivered_;
  Callback done_;
};

}  // namespace roofsim
