#include "components/op_run.hpp"

#include <algorithm>

#include "components/chip.hpp"

namespace roofsim {

OpRun::OpRun(Chip& chip, std::int64_t steps, int stages)
    : chip_(chip), steps_(steps), stages_(stages),
      loaded_(static_cast<std::size_t>(stages), 0), in_use_(static_cast<std::size_t>(stages), 0),
      jobs_left_(static_cast<std::size_t>(stages), 0) {}

void OpRun::start(Callback done) {
  done_ = std::move(done);
  issue_loads();
  finish_if_done();
}

std::uint64_t OpRun::allocate(std::uint64_t bytes) { return chip_.allocate(bytes); }

// Loads go out in step order, each into its step's slot once the step `stages` earlier has left
// it. Steps may finish out of order (their jobs sit on differently loaded units), so a slot
// freed is not always the next load's.
void OpRun::issue_loads() {
  while (next_load_ < steps_ && !in_use_[static_cast<std::size_t>(next_load_ % stages_)]) issue_load();
}

void OpRun::issue_load() {
  const std::int64_t step = next_load_++;
  in_use_[static_cast<std::size_t>(step % stages_)] = 1;
  MemRange ranges[2];
  loads(step, ranges);
  // The step may compute when both of its blocks have arrived.
  auto left = std::make_shared<int>(2);
  for (const MemRange& r : ranges) {
    bytes_read += r.bytes;
    if (reads_resident_) onchip_bytes_read += r.bytes;
    auto arrived = [this, step, left] {
      ++events;
      if (--*left > 0) return;
      loaded_[static_cast<std::size_t>(step % stages_)] = 1;
      try_dispatch();
    };
    if (reads_resident_) {
      chip_.dma().read_resident(r.address, r.bytes, trace_name, std::move(arrived));
    } else if (tile_loads()) {
      chip_.dma().read_tile(r.address, r.bytes, trace_name, std::move(arrived));
    } else {
      chip_.dma().read(r.address, r.bytes, trace_name, std::move(arrived));
    }
  }
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

void OpRun::job_done(std::int64_t step, MemRange write) {
  ++events;
  if (write.bytes > 0) {
    ++writes_pending_;
    bytes_written += write.bytes;
    chip_.dma().write(write.address, write.bytes, trace_name, [this] {
      ++events;
      --writes_pending_;
      finish_if_done();
    });
  }
  const std::size_t slot = static_cast<std::size_t>(step % stages_);
  if (--jobs_left_[slot] > 0) return;
  // The step's buffer is free: the load `stages` steps ahead may use it.
  loaded_[slot] = 0;
  in_use_[slot] = 0;
  ++steps_done_;
  issue_loads();
  finish_if_done();
}

void OpRun::finish_if_done() {
  if (finished_ || steps_done_ < steps_ || writes_pending_ > 0) return;
  finished_ = true;
  if (!done_) return;
  if (tail_ps_ == 0) {
    done_();
    return;
  }
  chip_.matrix_events().at(now_ps() + tail_ps_, [this] {
    ++events;
    done_();
  });
}

void OpRun::hold_units_for_ctas(Picoseconds per_unit) {
  cta_step_ps_ = steps_ > 0 ? (per_unit + static_cast<Picoseconds>(steps_) - 1) / static_cast<Picoseconds>(steps_) : 0;
}

Picoseconds kernel_cta_ps(const HardwareSpec& hw, std::size_t units, const KernelCtas& k, double clock_hz) {
  if (k.ctas <= 0 || units == 0) return 0;
  const MatrixSpec& m = hw.matrix;
  // XQA's mha_sm90 is built on wgmma: elsewhere mha.cu's costs.
  const double gqa_wave =
      k.qgmma && m.arch.wgmma && m.gqa_decode_qgmma_cta_cycles > 0 ? m.gqa_decode_qgmma_cta_cycles : m.gqa_decode_cta_cycles;
  // A CUDA-core GEMV's wave lasts its threads' chain: each step a memory round trip, then the
  // step's weight elements converted one after another.
  const double chain_cycles =
      k.chain_steps * (hw.hbm.access_latency_s * clock_hz + static_cast<double>(k.chain_step_converts) * hw.vector.gemv_convert_cycles);
  const double wave_cycles = k.chain_steps > 0 ? chain_cycles
                             : k.per_token    ? hw.vector.token_cta_cycles
                             : k.gqa_decode ? gqa_wave
                             : k.decode     ? m.decode_attention_cta_cycles
                                            : m.attention_cta_cycles;
  // Work each CTA does on its unit, one CTA after another: a GQA decode CTA's query tile; a
  // CUDA-core GEMV CTA's launch, its partial sums reduced across warps, and its retirement.
  const double cta_cycles = k.gqa_decode    ? m.gqa_decode_cycles_per_query_element * static_cast<double>(k.query_elements)
                            : k.chain_steps > 0 ? hw.vector.gemv_cta_cycles
                                                : 0.0;
  const std::int64_t n = static_cast<std::int64_t>(units);
  const std::int64_t resident = n * std::max<std::int64_t>(1, k.per_unit);
  // A token kernel's first wave is the kernel's start, which chip.op_overhead_ns holds (fitted
  // on one-wave kernels); each later wave adds its own CTAs' round trips.
  const double waves = static_cast<double>((k.ctas + resident - 1) / resident) - (k.per_token ? 1.0 : 0.0);
  const double ctas_per_unit = static_cast<double>((k.ctas + n - 1) / n);
  const double window_steps_per_unit = static_cast<double>((k.window_key_steps + n - 1) / n);
  const double fp8_cache_tiles_per_unit = static_cast<double>((k.fp8_cache_key_tiles + n - 1) / n);
  return ceil_ps((wave_cycles * waves + cta_cycles * ctas_per_unit + m.fp8_window_key_tile_cycles * window_steps_per_unit +
                  m.fp8_cache_decode_key_tile_cycles * fp8_cache_tiles_per_unit) /
                 clock_hz);
}

GemmRun::GemmRun(Chip& chip, const GemmPlan& plan)
    : OpRun(chip, plan.steps(), plan.stages), plan_(plan), unit_cycles_(chip.matrix_units(), 0.0) {
  const GemmShape& g = plan.shape;
  a_base_ = allocate(tensor_bytes(g.batch * g.m * g.k, g.a));
  b_base_ = allocate(tensor_bytes(g.batch * g.b_elements_per_batch(), g.b));
  c_base_ = allocate(tensor_bytes(g.batch * g.c_elements_per_batch(), g.c));
  convert_cycles_per_element_ = weight_convert_cycles(g, chip.hw().matrix, 1, 1);
  hold_units_for_ctas(kernel_cta_ps(chip.hw(), chip.matrix_units(),
                                    {g.kernel_ctas, g.kernel_ctas_per_unit, g.decode_kernel, g.gqa_decode_kernel,
                                     g.kernel_cta_query_elements, g.gqa_decode_qgmma, g.kernel_window_key_steps, false,
                                     g.kernel_fp8_cache_key_tiles},
                                    chip.hw().matrix.sustained_clock_hz));
  // XQA's multi-block mode: once a (sequence, KV head)'s blocks are done, its last CTA folds
  // their partial results one after another (GemmShape::kernel_k_splits).
  if (g.gqa_decode_kernel && g.kernel_k_splits > 1) {
    tail_ps_ = ceil_ps(chip.hw().matrix.gqa_decode_merge_cycles_per_block * static_cast<double>(g.kernel_k_splits) /
                       chip.hw().matrix.sustained_clock_hz);
  }
}

void GemmRun::loads(std::int64_t step, MemRange out[2]) const {
  const GemmStep s = plan_.step(step);
  const GemmShape& g = plan_.shape;
  // Block-major layout: the block (mb, ks) of A starts after all the blocks before it.
  const std::int64_t a_block = (s.batch * plan_.blocks_m() + s.mb) * plan_.k_steps() + s.ks;
  const std::int64_t b_block = (s.batch * plan_.blocks_n() + s.nb) * plan_.k_steps() + s.ks;
  out[0] = {a_base_ + tensor_bytes(a_block * plan_.bm * plan_.bk, g.a), s.a_bytes};
  out[1] = {b_base_ + tensor_bytes(b_block * plan_.bk * (g.fused_attention ? g.b_cols() : plan_.bn), g.b), s.b_bytes};
}

void GemmRun::dispatch(std::int64_t step) {
  const GemmStep s = plan_.step(step);
  const GemmShape& g = plan_.shape;
  const DType compute = g.compute();
  const bool fine = chip_.granularity() == Granularity::fine;
  const MatrixSpec& spec = chip_.hw().matrix;
  ComputePort& units = chip_.matrix_port();
  // The kernel's CTA fixed cost holds every unit first (a coarse wave sends it with its work).
  if (cta_step_ps_ > 0 && fine) units.hold(cta_step_ps_);
  // A block has at most eight job shapes: full, short at the right edge, short at the bottom,
  // the corner, each with a full or short last k part. Their cycles are worked out once.
  const std::int64_t edge_m = s.m % plan_.tm ? s.m % plan_.tm : plan_.tm;
  const std::int64_t edge_n = s.n % plan_.tn ? s.n % plan_.tn : plan_.tn;
  const std::int64_t tk = plan_.tk > 0 ? std::min(plan_.tk, s.k) : s.k;
  const std::int64_t parts = (s.k + tk - 1) / tk, edge_k = s.k - (parts - 1) * tk;
  const std::int64_t tiles_m = (s.m + plan_.tm - 1) / plan_.tm, tiles_n = (s.n + plan_.tn - 1) / plan_.tn;
  // A kernel launched in clusters along M (GemmShape::kernel_cluster_m) runs padding rows of
  // tiles after the last block's real ones: whole tiles of MMAs on zeros, nothing written.
  const std::int64_t padding_m = s.mb == plan_.blocks_m() - 1 ? padding_tile_rows(g, plan_.tm) : 0;
  const std::int64_t slots_m = tiles_m + padding_m;          // rows of tiles per batch element
  const std::int64_t rows_of_tiles = slots_m * s.batch_count;  // the batch elements side by side
  // A fused attention's output has v_n columns for its n query/key columns: column x of n
  // maps to x * v_n / n (exact at the block's ends, so the tiles' writes sum to the output).
  // A gated epilogue's output column x / 2 likewise (its gate and up columns side by side).
  auto out_col = [&](std::int64_t x) { return g.out_n() != g.n ? x * g.out_n() / g.n : x; };
  auto value_cols = [&](std::int64_t cols) { return std::max<std::int64_t>(1, (cols * g.out_n() + g.n - 1) / g.n); };
  // Block-scaled operands: after each scale block of K, every accumulator of the tile is scaled
  // and added in fp32 (two FLOPs) on the SM's CUDA cores, at the vector units' rate per clock of
  // the same SM, between the MMAs.
  auto promotion_cycles = [&](std::int64_t accumulators, std::int64_t k) {
    if (g.scale_block_k <= 0) return 0.0;
    const double blocks = static_cast<double>((k + g.scale_block_k - 1) / g.scale_block_k);
    return 2.0 * static_cast<double>(accumulators) * blocks / chip_.hw().vector.flops_per_clock;
  };
  // A kernel whose last row of tiles loads boxes reaching past the matrix (GemmPlan::
  // edge_rows_loaded: DeepGEMM's): the rows beyond it (zero-filled) still cost the load, per
  // scale block of K.
  auto out_of_bounds_cycles = [&](bool bottom, std::int64_t k) {
    if (!bottom || !plan_.edge_rows_loaded || edge_m == plan_.tm) return 0.0;
    const double blocks = static_cast<double>((k + g.scale_block_k - 1) / g.scale_block_k);
    return static_cast<double>(plan_.tm - edge_m) * spec.block_scaled_oob_row_cycles * blocks;
  };
  // Whole key tiles across the causal or window edge: the units also compute the masked keys.
  const double masked_keys = g.fused_attention && g.kernel_keys > g.k ? static_cast<double>(g.kernel_keys) / static_cast<double>(g.k) : 1.0;
  // Heads padded in the kernel: QK^T runs at the padded query/key head, AV at the padded value
  // head (the exponentials, one per score, do not grow).
  const double padded_head = g.fused_attention && g.kernel_head_dim > g.n ? static_cast<double>(g.kernel_head_dim) / static_cast<double>(g.n) : 1.0;
  const double padded_value =
      g.fused_attention && g.kernel_value_dim > g.out_n() ? static_cast<double>(g.kernel_value_dim) / static_cast<double>(g.out_n()) : 1.0;
  // A fused attention's softmax: one exponential per score on the SFUs, between the tile's two
  // matmuls, and the accumulators' rescaling, of which the MMAs wait for the exposed share only (the rest runs under another
  // warpgroup's MMAs). `elements`: rows x keys x columns; a tile along the head dim carries its
  // share of its rows' scores.
  auto exposed_softmax_cycles = [&](double elements) {
    if (!g.fused_attention || spec.exp_per_clock <= 0) return 0.0;
    const double scores = elements / static_cast<double>(g.n);
    // After each step of the kernel's key loop (GemmShape::kernel_key_tile) the online softmax
    // rescales every output accumulator (one FMA, two FLOPs, on the CUDA cores, at the padded
    // value head): hidden under the other warpgroup's MMAs in the same share as the exponentials.
    const double value_head = static_cast<double>(std::max(g.out_n(), g.kernel_value_dim));
    const double rescale = g.kernel_key_tile > 0
                               ? scores / static_cast<double>(g.kernel_key_tile) * value_head * 2.0 / chip_.hw().vector.flops_per_clock
                               : 0.0;
    return (scores / spec.exp_per_clock + rescale) * spec.exp_exposed_share;
  };
  // A fused-MoE kernel's grouped tiles keep the units busy a share of their time: one share for
  // 16-bit and fp8 experts, another for weight-only ones (their kernels convert the weights).
  const bool fused_moe_tiles = g.grouped && (g.b == DType::bf16 || g.b == DType::fp16 || g.b == DType::fp8);
  const double kernel_share = fused_moe_tiles                ? spec.fused_moe_mma_share
                              : g.weight_only_grouped()      ? spec.weight_only_moe_mma_share
                              : g.kernel_pingpong            ? spec.pingpong_mma_share
                                                             : 1.0;
  // A kernel on the previous generation's MMA issues a share of the rate per clock, at the SMs'
  // boost clock where that share leaves the tensor cores below their power-limited sustained
  // clock; never more than the native rate.
  const double mma_sync_share =
      g.kernel_mma_sync && spec.mma_sync_rate < 1
          ? std::min(1.0, spec.mma_sync_rate * chip_.hw().vector.clock_hz / spec.sustained_clock_hz)
          : 1.0;
  const double mma_share = kernel_share * mma_sync_share;
  // Weight-only experts' tiles may take fewer rows than the MMA's granule.
  const std::int64_t granule_m = tile_granule_m(spec, g.weight_only_grouped());
  double cycles[2][2][2];
  // A mixed-input kernel converts its weights in the warps that issue the MMAs while the other
  // warpgroup's MMAs keep the tensor cores busy: a tile takes the longer of the two, and the
  // conversion's excess is not MAC work (padded_flops).
  double convert_excess[2][2][2];
  for (int bottom = 0; bottom < 2; ++bottom) {
    for (int right = 0; right < 2; ++right) {
      for (int last = 0; last < 2; ++last) {
        // Edge tiles cost their rows and columns, or a whole tile where the kernel's MMAs span it.
        const bool part_m = bottom && !plan_.whole_tiles, part_n = right && !plan_.whole_tiles;
        const TileShape t{part_m ? edge_m : plan_.tm, part_n ? edge_n : plan_.tn, last ? edge_k : tk};
        // A fused attention: QK^T on the tile, then AV on its share of the value columns.
        const TileShape tv{t.m, g.fused_attention ? value_cols(t.n) : t.n, t.k};
        const double exps = exposed_softmax_cycles(static_cast<double>(t.m) * static_cast<double>(t.k) * static_cast<double>(t.n));
        const TileShape mma = plan_.swap_ab ? TileShape{t.n, t.m, t.k} : t;
        const double mma_cycles = (matrix_tile_cycles(spec, mma, compute, granule_m) * padded_head / mma_share +
                                   (g.fused_attention ? matrix_tile_cycles(spec, tv, compute) * padded_value + exps : 0.0)) *
                                  masked_keys;
        const double convert = convert_cycles_per_element_ * static_cast<double>(t.n) * static_cast<double>(t.k);
        convert_excess[bottom][right][last] = std::max(0.0, convert - mma_cycles);
        cycles[bottom][right][last] =
            mma_cycles + promotion_cycles(t.m * t.n, t.k) + out_of_bounds_cycles(bottom, t.k) + convert_excess[bottom][right][last];
      }
    }
  }
  const double step_flops = 2.0 * static_cast<double>(s.batch_count) * static_cast<double>(s.m) *
                            static_cast<double>(s.n + (g.fused_attention ? value_cols(s.n) : 0)) * static_cast<double>(s.k);
  flops += step_flops;
  // The units' cycles spent on MACs (padded_flops) leave out the softmax's exponentials and rescaling.
  const double step_exp_cycles = exposed_softmax_cycles(static_cast<double>(s.batch_count) * static_cast<double>(s.m) *
                                                    static_cast<double>(s.k) * static_cast<double>(s.n)) *
                                 masked_keys;
  // ... and the promotions (at least this many: per step, where the jobs pay per part of K).
  const double step_promotion_cycles = promotion_cycles(s.batch_count * s.m * s.n, s.k);
  // ... and the out-of-bounds loads of the bottom row of tiles.
  const double step_oob_cycles = out_of_bounds_cycles(true, s.k) * static_cast<double>(tiles_n * s.batch_count);
  // ... and the conversion's excess over the MMAs, tile by tile.
  double step_convert_cycles = 0;
  for (int bottom = 0; bottom < 2 && convert_cycles_per_element_ > 0; ++bottom) {
    for (int right = 0; right < 2; ++right) {
      for (int last = 0; last < 2; ++last) {
        const std::int64_t rows = bottom ? s.batch_count : s.batch_count * (slots_m - 1);
        const std::int64_t jobs = rows * (right ? 1 : tiles_n - 1) * (last ? 1 : parts - 1);
        step_convert_cycles += convert_excess[bottom][right][last] * static_cast<double>(jobs);
      }
    }
  }
  auto mac_flops = [&](double cycles) {
    return 2.0 * (cycles - step_exp_cycles - step_promotion_cycles - step_oob_cycles - step_convert_cycles) * mma_share *
           spec.macs_per_clock *
           spec.dtype_rate.at(compute);
  };
  double padded_cycles = 0;
  // A step's jobs go to the next units in turn; where a CTA walks K on one unit
  // (GemmPlan::k_on_one_unit), a block's later k steps go to the units its first step took.
  if (s.ks == 0 || !plan_.k_on_one_unit) block_first_unit_ = chip_.take_matrix_units(static_cast<std::uint64_t>(rows_of_tiles * tiles_n * parts));
  // C is row-major; a tile's write starts at its first element.
  auto c_address = [&](std::int64_t batch, std::int64_t m0, std::int64_t n0) {
    const std::int64_t row = batch * g.m + s.mb * plan_.bm + m0;
    return c_base_ + tensor_bytes(row * g.out_n() + out_col(s.nb * plan_.bn + n0), g.c);
  };
  if (!fine) {
    const WaveCycles wave = coarse_wave(block_first_unit_, rows_of_tiles, tiles_m, padding_m, tiles_n, parts, cycles);
    padded_flops += mac_flops(wave.padded_cycles);
    const MemRange out{c_address(s.batch, 0, 0), s.last_k ? tensor_bytes(s.batch_count * s.m * out_col(s.n), g.c) : 0};
    // One wave: every unit works through its share; one event when the last is ready.
    UnitWave& w = units.request();
    w.hold_ps = cta_step_ps_;
    w.work = unit_cycles_.data();
    w.count = unit_cycles_.size();
    w.every_unit = wave.every_unit;
    w.label = trace_name;
    const UnitWave& reply = units.transport();
    std::fill(unit_cycles_.begin(), unit_cycles_.end(), 0.0);
    // The last unit's end, and when its share began.
    const Picoseconds ready = reply.ready, last_started = reply.last_started;
    // The tiles' writes: a unit writes each output tile when it finishes it, so with several
    // rounds of tiles per unit the output leaves in as many parts over the units' work on this
    // step, the last at `ready`, not all at once at the end (which would leave a write-bound
    // GEMM's writes behind all its compute). At most kMaxWriteParts events per step.
    constexpr std::int64_t kMaxWriteParts = 16;
    const std::int64_t units = static_cast<std::int64_t>(unit_cycles_.size());
    const std::int64_t rounds = (rows_of_tiles * tiles_n + units - 1) / units;
    const std::int64_t parts_out = out.bytes > 0 ? std::max<std::int64_t>(1, std::min(rounds, kMaxWriteParts)) : 1;
    jobs_added(step, parts_out);
    std::uint64_t written = 0;
    for (std::int64_t p = 1; p <= parts_out; ++p) {
      const std::uint64_t upto = out.bytes * static_cast<std::uint64_t>(p) / static_cast<std::uint64_t>(parts_out);
      const MemRange part{out.address + written, upto - written};
      written = upto;
      const Picoseconds at = last_started + (ready - last_started) * static_cast<Picoseconds>(p) / static_cast<Picoseconds>(parts_out);
      chip_.matrix_events().at(at, [this, step, part] { job_done(step, part); });
    }
    return;
  }
  std::size_t u = block_first_unit_;
  for (std::int64_t r = 0; r < rows_of_tiles; ++r) {
    const std::int64_t i = r % slots_m;
    const bool padding = i >= tiles_m;  // a whole tile, not the bottom edge
    const int bottom = i == tiles_m - 1;
    for (std::int64_t j = 0; j < tiles_n; ++j) {
      const int right = j == tiles_n - 1;
      // Split-K: the tile's k parts go to different units; the last part completes the tile.
      for (std::int64_t part = 0; part < parts; ++part) {
        const int last = part == parts - 1;
        const double c = cycles[bottom][right][last];
        padded_cycles += c;
        // One event per job; the C tile is written when its last part of the last k step is done.
        const std::int64_t m0 = i * plan_.tm, n0 = j * plan_.tn;
        const std::int64_t tm = bottom ? edge_m : plan_.tm, tn = right ? edge_n : plan_.tn;
        const MemRange out{c_address(s.batch + r / slots_m, padding ? 0 : m0, n0),
                           s.last_k && last && !padding ? tensor_bytes(tm * (out_col(n0 + tn) - out_col(n0)), g.c) : 0};
        jobs_added(step, 1);
        chip_.matrix_events().at(units.job(u, c, trace_name), [this, step, out] { job_done(step, out); });
        if (++u == chip_.matrix_units()) u = 0;
      }
    }
  }
  padded_flops += mac_flops(padded_cycles);
}

// The jobs of a step go to the units in turn, row of tiles by row, tile by tile, k part by
// part. Instead of dealing them one by one, deal runs of jobs with equal cycles: a run of L
// jobs gives every unit L / U of them and the next L % U units one more. The units end with
// exactly the jobs they would have got one at a time.
GemmRun::WaveCycles GemmRun::coarse_wave(std::size_t first_unit, std::int64_t rows_of_tiles, std::int64_t tiles_m, std::int64_t padding_m,
                                         std::int64_t tiles_n, std::int64_t parts, const double (&cycles)[2][2][2]) {
  const std::size_t units = unit_cycles_.size();
  WaveCycles wave;
  std::size_t unit = first_unit;
  double run_cycles = 0;
  std::int64_t run_length = 0;
  auto deal = [&] {
    if (run_length == 0) return;
    wave.padded_cycles += run_cycles * static_cast<double>(run_length);
    const std::int64_t rounds = run_length / static_cast<std::int64_t>(units);
    wave.every_unit += run_cycles * static_cast<double>(rounds);
    for (std::int64_t left = run_length % static_cast<std::int64_t>(units); left > 0; --left) {
      unit_cycles_[unit] += run_cycles;
      if (++unit == units) unit = 0;
    }
    run_length = 0;
  };
  auto add = [&](double c, std::int64_t n) {
    if (n <= 0) return;
    if (run_length > 0 && c != run_cycles) deal();
    run_cycles = c;
    run_length += n;
  };
  // One row of tiles: the k parts of each tile, the right edge last.
  auto add_row = [&](int bottom, std::int64_t rows) {
    const double (&c)[2][2] = cycles[bottom];
    const bool uniform = c[0][0] == c[0][1] && c[0][0] == c[1][0] && c[0][0] == c[1][1];
    if (uniform || (parts == 1 && c[0][1] == c[1][1])) {
      add(c[1][1], rows * tiles_n * parts);
      return;
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t j = 0; j < tiles_n; ++j) {
        const int right = j == tiles_n - 1;
        if (parts == 1) {
          add(c[right][1], 1);
          continue;
        }
        add(c[right][0], parts - 1);
        add(c[right][1], 1);
      }
    }
  };
  for (std::int64_t first = 0; first < rows_of_tiles; first += tiles_m + padding_m) {
    add_row(0, tiles_m - 1);
    add_row(1, 1);
    add_row(0, padding_m);
  }
  deal();
  return wave;
}

}  // namespace roofsim
