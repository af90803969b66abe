#include "components/op_run.hpp"

#include <algorithm>

#include "components/chip.hpp"

namespace roofsim {

OpRun::OpRun(Chip& chip, std::int64_t steps, int stages)
    : chip_(chip), steps_(steps), stages_(stages),
      loaded_(static_cast<std::size_t>(stages), 0), jobs_left_(static_cast<std::size_t>(stages), 0) {}

void OpRun::start(Server::Callback done) {
  done_ = std::move(done);
  for (int i = 0; i < stages_ && next_load_ < steps_; ++i) issue_load();
  finish_if_done();
}

void OpRun::issue_load() {
  const std::int64_t step = next_load_++;
  chip_.dma().read(load_bytes(step), [this, step] {
    loaded_[static_cast<std::size_t>(step % stages_)] = 1;
    try_dispatch();
  });
}

void OpRun::try_dispatch() {
  // Compute runs in step order: a step whose load overtook an earlier one waits for it.
  while (next_dispatch_ < next_load_ && loaded_[static_cast<std::size_t>(next_dispatch_ % stages_)]) {
    const std::int64_t step = next_dispatch_++;
    jobs_left_[static_cast<std::size_t>(step % stages_)] = 0;
    dispatch(step);
  }
}

void OpRun::jobs_added(std::int64_t step, std::int64_t n) {
  jobs_left_[static_cast<std::size_t>(step % stages_)] += n;
}

void OpRun::job_done(std::int64_t step, std::uint64_t write_bytes) {
  if (write_bytes > 0) {
    ++writes_pending_;
    chip_.dma().write(write_bytes, [this] {
      --writes_pending_;
      finish_if_done();
    });
  }
  const std::size_t slot = static_cast<std::size_t>(step % stages_);
  if (--jobs_left_[slot] > 0) return;
  // The step's buffer is free: the load `stages` steps ahead may use it.
  loaded_[slot] = 0;
  ++steps_done_;
  if (next_load_ < steps_) issue_load();
  finish_if_done();
}

void OpRun::finish_if_done() {
  if (finished_ || steps_done_ < steps_ || writes_pending_ > 0) return;
  finished_ = true;
  if (done_) done_();
}

GemmRun::GemmRun(Chip& chip, const GemmPlan& plan)
    : OpRun(chip, plan.steps(), plan.stages), plan_(plan),
      unit_cycles_(chip.matrix_units(), 0.0), unit_out_bytes_(chip.matrix_units(), 0) {}

std::uint64_t GemmRun::load_bytes(std::int64_t step) const {
  GemmStep s = plan_.step(step);
  return s.a_bytes + s.b_bytes;
}

void GemmRun::dispatch(std::int64_t step) {
  const GemmStep s = plan_.step(step);
  const DType compute = plan_.shape.compute();
  const bool fine = chip_.granularity() == Granularity::fine;
  std::vector<std::size_t> touched;
  for (std::int64_t m0 = 0; m0 < s.m; m0 += plan_.tm) {
    for (std::int64_t n0 = 0; n0 < s.n; n0 += plan_.tn) {
      const TileShape t{std::min(plan_.tm, s.m - m0), std::min(plan_.tn, s.n - n0), s.k};
      const std::size_t u = chip_.next_matrix_unit();
      MatrixUnit& unit = chip_.matrix_unit(u);
      const double cycles = unit.tile_cycles(t, compute);
      const std::uint64_t out = s.last_k ? tensor_bytes(t.m * t.n, plan_.shape.c) : 0;
      SimStats& st = chip_.stats();
      st.matrix_flops += 2.0 * static_cast<double>(t.m * t.n * t.k);
      st.matrix_padded_flops += 2.0 * cycles * chip_.hw().matrix.macs_per_clock *
                                chip_.hw().matrix.dtype_rate.at(compute);
      if (fine) {
        jobs_added(step, 1);
        unit.run(cycles, [this, step, out] { job_done(step, out); });
      } else {
        if (unit_cycles_[u] == 0) touched.push_back(u);
        unit_cycles_[u] += cycles;
        unit_out_bytes_[u] += out;
      }
    }
  }
  if (fine) return;
  jobs_added(step, static_cast<std::int64_t>(touched.size()));
  for (std::size_t u : touched) {
    const std::uint64_t out = unit_out_bytes_[u];
    chip_.matrix_unit(u).run(unit_cycles_[u], [this, step, out] { job_done(step, out); });
    unit_cycles_[u] = 0;
    unit_out_bytes_[u] = 0;
  }
}

VectorRun::VectorRun(Chip& chip, const VectorPlan& plan)
    : OpRun(chip, plan.steps(), plan.stages), plan_(plan) {}

std::uint64_t VectorRun::load_bytes(std::int64_t step) const { return plan_.step(step).in_bytes; }

void VectorRun::dispatch(std::int64_t step) {
  const VectorStep s = plan_.step(step);
  chip_.stats().vector_flops += s.flops;
  const std::size_t units = chip_.vector_units();
  const std::size_t pieces = chip_.granularity() == Granularity::fine ? 8 * units : units;
  // The chunk's flops are spread evenly; its output is written once, by the last piece.
  auto left = std::make_shared<std::size_t>(pieces);
  const std::uint64_t out = s.out_bytes;
  jobs_added(step, static_cast<std::int64_t>(pieces));
  for (std::size_t p = 0; p < pieces; ++p) {
    chip_.vector_unit(chip_.next_vector_unit())
        .run(s.flops / static_cast<double>(pieces), [this, step, left, out] {
          job_done(step, --*left == 0 ? out : 0);
        });
  }
}

}  // namespace roofsim
