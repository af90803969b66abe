#include "components/pim_run.hpp"

#include <algorithm>

#include "components/chip.hpp"

namespace roofsim {

PimRun::PimRun(Chip& chip, const GemmShape& g) : OpRun(chip, 1, 2), g_(g) {
  const PimSpec& pim = chip.hw().pim;
  const std::uint64_t weights = tensor_bytes(g.batch * g.k * g.n, g.b);
  const std::uint64_t per_step = static_cast<std::uint64_t>(pim.step_bytes) * chip.hbm().channel_count();
  steps_ = static_cast<std::int64_t>(std::max<std::uint64_t>(1, (weights + per_step - 1) / per_step));
  step_weight_bytes_ = (weights + static_cast<std::uint64_t>(steps_) - 1) / static_cast<std::uint64_t>(steps_);
}

void PimRun::start(Callback done) {
  done_ = std::move(done);
  HbmChannels& hbm = chip_.hbm();
  const Picoseconds now = now_ps();
  // Broadcast: every channel's unit receives the whole activation matrix.
  const std::uint64_t a_bytes = tensor_bytes(g_.batch * g_.m * g_.k, g_.a);
  a_ready_ = now;
  for (std::size_t c = 0; c < hbm.channel_count(); ++c) a_ready_ = std::max(a_ready_, hbm.reserve_external(c, a_bytes, now));
  bytes_read += a_bytes * hbm.channel_count();
  // Two steps in flight: the banks read step s + 1 while the units multiply step s.
  issue_step(next_step_++);
  if (next_step_ < steps_) issue_step(next_step_++);
}

void PimRun::issue_step(std::int64_t s) {
  HbmChannels& hbm = chip_.hbm();
  const PimSpec& pim = chip_.hw().pim;
  const std::uint64_t first = static_cast<std::uint64_t>(s) * step_weight_bytes_;
  const std::uint64_t total = tensor_bytes(g_.batch * g_.k * g_.n, g_.b);
  const std::uint64_t bytes = std::min(step_weight_bytes_, total - std::min(total, first));
  const std::vector<std::uint64_t> share = hbm.split(first / hbm.interleave_bytes(), bytes);
  const Picoseconds now = now_ps();
  // FLOPs per byte of weights, from the whole matrix: packed formats round the matrix's bytes
  // up, and the op's FLOPs must still come to 2 m k n per batch.
  const double flops_per_weight = 2.0 * static_cast<double>(g_.m) * static_cast<double>(g_.batch * g_.k * g_.n) /
                                  static_cast<double>(total);
  // Each channel's unit multiplies what its banks delivered, after the activations arrived: one
  // wave through the near-memory units' port, a job per channel with weights this step.
  step_flops_.assign(share.size(), 0.0);
  delivered_.assign(share.size(), 0);
  for (std::size_t c = 0; c < share.size(); ++c) {
    if (share[c] == 0) continue;
    delivered_[c] = std::max(hbm.reserve_internal(c, share[c], pim.internal_bandwidth_factor, now), a_ready_);
    step_flops_[c] = flops_per_weight * static_cast<double>(share[c]);
  }
  UnitWave& w = chip_.near_memory_port().request();
  w.work = step_flops_.data();
  w.count = step_flops_.size();
  w.not_before = delivered_.data();
  const Picoseconds ready = chip_.near_memory_port().transport().ready;
  const double step_flops = flops_per_weight * static_cast<double>(bytes);
  flops += step_flops;
  padded_flops += step_flops;
  ++outstanding_;
  hbm.events().at(ready, [this] {
    ++events;
    --outstanding_;
    step_done();
  });
}

void PimRun::step_done() {
  if (next_step_ < steps_) {
    issue_step(next_step_++);
    return;
  }
  if (outstanding_ > 0) return;  // the other step in flight has not finished
  // All partial results cross back to the chip: C, split over the channels.
  HbmChannels& hbm = chip_.hbm();
  const std::uint64_t c_bytes = tensor_bytes(g_.batch * g_.m * g_.n, g_.c);
  const std::uint64_t per_channel = (c_bytes + hbm.channel_count() - 1) / hbm.channel_count();
  const Picoseconds now = now_ps();
  Picoseconds arrived = now;
  for (std::size_t c = 0; c < hbm.channel_count(); ++c) arrived = std::max(arrived, hbm.reserve_external(c, per_channel, now));
  bytes_written += c_bytes;
  hbm.events().at(arrived, [this] {
    ++events;
    if (done_) done_();
  });
}

}  // namespace roofsim
