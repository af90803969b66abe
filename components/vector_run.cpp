// VectorRun: an elementwise or reduction op streamed through the vector units in chunks
// (declared in op_run.hpp beside the other op runs).
#include <algorithm>
#include <memory>

#include "components/chip.hpp"
#include "components/op_run.hpp"

namespace roofsim {

VectorRun::VectorRun(Chip& chip, const VectorPlan& plan)
    : OpRun(chip, plan.steps(), plan.stages), plan_(plan) {
  in_base_ = allocate(tensor_bytes(plan.shape.elements_in, plan.shape.dtype));
  out_base_ = allocate(tensor_bytes(plan.shape.elements_out, plan.shape.output_dtype()));
  const VectorShape& v = plan.shape;
  KernelCtas ctas{v.kernel_ctas, v.kernel_ctas_per_unit, v.decode_kernel};
  ctas.per_token = v.per_token_ctas;
  ctas.chain_steps = v.gemv_steps;
  ctas.chain_step_converts = v.gemv_step_converts;
  hold_units_for_ctas(kernel_cta_ps(chip.hw(), chip.vector_units(), ctas, chip.hw().matrix.sustained_clock_hz));  // the SM's clock under load
}

void VectorRun::loads(std::int64_t step, MemRange out[2]) const {
  const VectorStep s = plan_.step(step);
  out[0] = {in_base_ + tensor_bytes(s.first_element, plan_.shape.dtype), s.in_bytes};
  out[1] = {};
}

void VectorRun::dispatch(std::int64_t step) {
  const VectorStep s = plan_.step(step);
  flops += s.flops;
  padded_flops += s.flops;
  const std::int64_t first_in = s.first_element;
  const std::int64_t first_out = static_cast<std::int64_t>(
      static_cast<__int128>(plan_.shape.elements_out) * first_in / plan_.shape.elements_in);
  const MemRange out{out_base_ + tensor_bytes(first_out, plan_.shape.output_dtype()), s.out_bytes};
  const std::size_t units = chip_.vector_units();
  ComputePort& port = chip_.vector_port();
  // Each unit's share of the step: even, or (a last partial wave) as many of the wave's CTAs as
  // it holds, the same units step after step (a CTA stays on its unit). each_share calls
  // f(unit, its parts of the step's `parts`) for every unit with a share, units in turn.
  const bool uneven = s.wave_ctas > 0;
  const std::int64_t n = static_cast<std::int64_t>(units);
  const double parts = static_cast<double>(uneven ? s.wave_ctas : n);
  const std::int64_t active = uneven ? std::min(s.wave_ctas, n) : n;
  auto each_share = [&](auto&& f) {
    for (std::int64_t p = 0; p < active; ++p) {
      if (!uneven) {
        f(chip_.next_vector_unit(), 1.0);
      } else {
        f(static_cast<std::size_t>(p), static_cast<double>(s.wave_ctas / n + (p < s.wave_ctas % n ? 1 : 0)));
      }
    }
  };
  if (chip_.granularity() == Granularity::fine) {
    // The kernel's CTA fixed cost holds every unit first.
    if (cta_step_ps_ > 0) port.hold(cta_step_ps_);
    // Eight pieces per unit, one event each; the chunk's output goes out with the last.
    constexpr int kPieces = 8;
    auto left = std::make_shared<std::size_t>(static_cast<std::size_t>(kPieces * active));
    jobs_added(step, static_cast<std::int64_t>(*left));
    for (int piece = 0; piece < kPieces; ++piece) {
      each_share([&](std::size_t u, double share) {
        const Picoseconds ready = port.job(u, s.flops * share / (parts * kPieces), trace_name);
        chip_.vector_events().at(ready, [this, step, left, out] { job_done(step, --*left == 0 ? out : MemRange{}); });
      });
    }
    return;
  }
  // One wave over the units with a share, from the first in turn; one event when the last is ready.
  unit_flops_.clear();
  std::size_t first = 0;
  each_share([&](std::size_t u, double share) {
    if (unit_flops_.empty()) first = u;
    unit_flops_.push_back(s.flops * share / parts);
  });
  UnitWave& w = port.request();
  w.hold_ps = cta_step_ps_;
  w.work = unit_flops_.data();
  w.first = first;
  w.count = unit_flops_.size();
  w.zero_jobs = true;
  w.label = trace_name;
  jobs_added(step, 1);
  chip_.vector_events().at(port.transport().ready, [this, step, out] { job_done(step, out); });
}

}  // namespace roofsim
