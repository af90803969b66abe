#include "components/tiling.hpp"

#include "components/gemm_kernel_plan.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "core/format.hpp"

namespace roofsim {

namespace tiling_detail {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round_up(std::int64_t v, std::int64_t g) { return ceil_div(v, g) * g; }

std::vector<std::int64_t> block_candidates(std::int64_t extent, std::int64_t granule) {
  std::vector<std::int64_t> out;
  const std::int64_t full = round_up(extent, granule);
  for (std::int64_t b = granule; b < full; b *= 2) out.push_back(b);
  out.push_back(full);
  return out;
}

GemmPlan deepest_pipeline(GemmPlan plan, const TilingLimits& lim) {
  while (plan.stages < 4) {
    GemmPlan deeper = plan;
    ++deeper.stages;
    if (deeper.footprint_bytes() > lim.buffer_bytes) break;
    plan = deeper;
  }
  return plan;
}
}  // namespace tiling_detail

using namespace tiling_detail;

std::uint64_t tensor_bytes(std::int64_t elements, DType t) {
  return dtype_storage_bytes(static_cast<std::uint64_t>(elements), t);
}

std::int64_t GemmPlan::blocks_m() const { return ceil_div(shape.m, bm); }
std::int64_t GemmPlan::blocks_n() const { return ceil_div(shape.n, bn); }
std::int64_t GemmPlan::k_steps() const { return ceil_div(shape.k, bk); }
std::int64_t GemmPlan::batch_groups() const { return ceil_div(shape.batch, bb); }
std::int64_t GemmPlan::steps() const { return batch_groups() * blocks_m() * blocks_n() * k_steps(); }
VectorShape GemmPlan::reduction() const {
  VectorShape v;
  const std::int64_t outputs = shape.batch * shape.c_elements_per_batch();
  v.elements_in = reduce_parts * outputs;
  v.elements_out = outputs;
  v.flops_per_element = 1;
  v.dtype = DType::fp32;
  v.out_dtype = shape.c;
  v.out_same_as_in = false;
  return v;
}

std::uint64_t GemmPlan::reduction_traffic_bytes() const {
  if (reduce_parts == 0) return 0;
  const VectorShape v = reduction();
  return tensor_bytes(v.elements_in, v.dtype) + tensor_bytes(v.elements_out, v.out_dtype);
}

std::int64_t GemmPlan::k_parts() const { return tk > 0 ? ceil_div(std::min(bk, shape.k), tk) : 1; }
std::int64_t GemmPlan::tiles_per_block() const {
  return ceil_div(std::min(bm, shape.m), tm) * ceil_div(std::min(bn, shape.n), tn) * k_parts();
}

GemmStep GemmPlan::step(std::int64_t i) const {
  GemmStep s;
  const std::int64_t ks_n = k_steps(), bm_n = blocks_m(), bn_n = blocks_n();
  s.ks = i % ks_n;
  std::int64_t rest = i / ks_n;
  if (n_outer) {
    s.mb = rest % bm_n;
    rest /= bm_n;
    s.nb = rest % bn_n;
    rest /= bn_n;
  } else {
    s.nb = rest % bn_n;
    rest /= bn_n;
    s.mb = rest % bm_n;
    rest /= bm_n;
  }
  s.batch = rest * bb;
  s.batch_count = std::min(bb, shape.batch - s.batch);
  s.m = std::min(bm, shape.m - s.mb * bm);
  s.n = std::min(bn, shape.n - s.nb * bn);
  s.k = std::min(bk, shape.k - s.ks * bk);
  s.last_k = s.ks == ks_n - 1;
  // With a single k step the operand indexed by the outer loop stays resident while the inner
  // loop walks the other one.
  const bool single_k = ks_n == 1;
  const bool a_resident = single_k && !n_outer && s.nb > 0;
  const bool b_resident = single_k && n_outer && s.mb > 0;
  if (shape.fused_attention) {
    // The Q block (m x head_dim) is loaded with the first key block and stays on chip.
    s.a_bytes = s.ks == 0 ? tensor_bytes(s.batch_count * s.m * s.n, shape.a) : 0;
  } else {
    s.a_bytes = a_resident ? 0 : tensor_bytes(s.batch_count * s.m * s.k, shape.a);
  }
  // A fused attention's block spans all of head_dim (s.n == n): its keys and values together.
  s.b_bytes = b_resident ? 0 : tensor_bytes(s.batch_count * s.k * (shape.fused_attention ? shape.b_cols() : s.n), shape.b);
  return s;
}

std::uint64_t GemmPlan::footprint_bytes() const {
  const std::uint64_t a = tensor_bytes(bb * bm * (shape.fused_attention ? bn : bk), shape.a);
  // A fused attention's block holds all of head_dim (bn: n padded): K and V (or the shared
  // latent), and the output's value columns, in proportion.
  const std::int64_t b_cols = shape.fused_attention ? bn * shape.b_cols() / shape.n : bn;
  const std::int64_t c_cols = shape.out_n() != shape.n ? bn * shape.out_n() / shape.n : bn;
  const std::uint64_t b = tensor_bytes(bb * bk * b_cols, shape.b);
  return static_cast<std::uint64_t>(stages) * (a + b) + tensor_bytes(bb * bm * c_cols, shape.c);
}

std::uint64_t GemmPlan::traffic_bytes() const {
  // Closed form of what step() loads: every block of A is loaded once per n block (once in all
  // when it stays resident), every block of B once per m block, C written once. Exact for
  // whole-byte dtypes; for int4 an odd-sized edge block rounds up by half a byte.
  const bool single_k = k_steps() == 1;
  const std::uint64_t a_loads = (single_k && !n_outer) || shape.fused_attention ? 1 : static_cast<std::uint64_t>(blocks_n());
  const std::uint64_t b_loads = single_k && n_outer ? 1 : static_cast<std::uint64_t>(blocks_m());
  // Steps load bb batch elements at once, so packed (int4) bytes round up per group of bb.
  const std::int64_t full_groups = shape.batch / bb, rest = shape.batch % bb;
  auto grouped = [&](std::int64_t elements_per_batch, DType t) {
    return static_cast<std::uint64_t>(full_groups) * tensor_bytes(bb * elements_per_batch, t) +
           (rest ? tensor_bytes(rest * elements_per_batch, t) : 0);
  };
  return grouped(shape.a_elements_per_batch(), shape.a) * a_loads +
         grouped(shape.b_elements_per_batch(), shape.b) * b_loads + grouped(shape.c_elements_per_batch(), shape.c);
}

TilingLimits tiling_limits(const HardwareSpec& hw) {
  TilingLimits l;
  l.buffer_bytes = static_cast<std::uint64_t>(hw.tile_buffer_memory().capacity_bytes);
  l.units = hw.matrix.units;
  l.vector_units = std::max<std::int64_t>(1, hw.vector.units);
  l.work_tile_m = hw.matrix.work_tile_m;
  l.work_tile_n = hw.matrix.work_tile_n;
  l.target_step_bytes = static_cast<std::uint64_t>(hw.dma.max_inflight_bytes);
  for (const OnChipMemory& m : hw.onchip) {
    if (m.name == "smem" && hw.matrix.units > 0) l.unit_buffer_bytes = static_cast<std::uint64_t>(m.capacity_bytes) / static_cast<std::uint64_t>(hw.matrix.units);
  }
  l.buffer_name = "onchip." + hw.tile_buffer + ".capacity_bytes" + (hw.source_file.empty() ? "" : " of " + hw.source_file);
  return l;
}

namespace {

struct ScoredPlan {
  GemmPlan plan;
  std::uint64_t traffic, step_load;
  std::int64_t tiles, steps;
};

// A unit tile is not split below the rows that keep the array busy: on a weight-stationary
// array, as many rows as it takes to load the weights (a pass of fewer cannot hide the load);
// on an output-stationary one, the array's rows (M runs down them); on an input-stationary one,
// its columns (M runs across them).
std::int64_t min_tile_rows(const MatrixSpec& spec) {
  switch (matrix_dataflow(spec)) {
    case Dataflow::none:
      return spec.granule_m;
    case Dataflow::output_stationary:
      return round_up(spec.granule_k, spec.granule_m);
    case Dataflow::input_stationary:
      return round_up(spec.granule_n, spec.granule_m);
    case Dataflow::weight_stationary:
      break;
  }
  const double rows = spec.weight_load_cycles * spec.macs_per_clock / static_cast<double>(spec.granule_n * spec.granule_k);
  return std::max(spec.granule_m, round_up(static_cast<std::int64_t>(std::ceil(rows)), spec.granule_m));  // 0 cycles: a granule
}

// The plan for one block choice, or nothing when it does not fit the buffer.
std::optional<ScoredPlan> candidate(const GemmShape& g, const MatrixSpec& spec, const TilingLimits& lim,
                                    std::int64_t bm, std::int64_t bn, std::int64_t bk, bool n_outer) {
  GemmPlan p;
  p.shape = g;
  p.bm = bm;
  p.bn = bn;
  p.bk = bk;
  p.n_outer = n_outer;
  if (p.footprint_bytes() > lim.buffer_bytes) return std::nullopt;
  const std::uint64_t step_load =
      tensor_bytes(std::min(bm, g.m) * (g.fused_attention ? g.n : std::min(bk, g.k)), g.a) +
      tensor_bytes(std::min(bk, g.k) * (g.fused_attention ? g.b_cols() : std::min(bn, g.n)), g.b);
  // Small batched matrices: several batch elements per step, up to the target load.
  if (g.batch > 1 && step_load < lim.target_step_bytes) {
    p.bb = std::min<std::int64_t>(g.batch, static_cast<std::int64_t>(lim.target_step_bytes / std::max<std::uint64_t>(step_load, 1)));
    while (p.bb > 1 && p.footprint_bytes() > lim.buffer_bytes) p.bb /= 2;
  }
  // Unit tiles: the configured work tile, halved (n first) until the step has one per unit.
  p.tm = std::min(round_up(lim.work_tile_m, spec.granule_m), round_up(std::min(bm, g.m), spec.granule_m));
  p.tn = std::min(round_up(lim.work_tile_n, spec.granule_n), round_up(std::min(bn, g.n), spec.granule_n));
  const std::int64_t tm_floor = std::min(p.tm, min_tile_rows(spec));
  // A library's prefill attention kernel (a context FMHA, GemmShape::kernel_ctas) gives each CTA
  // a whole query tile and head: its work is not split finer to fill the units.
  const bool whole_ctas = g.fused_attention && g.kernel_ctas > 0 && !g.decode_kernel;
  while (!whole_ctas && p.bb * p.tiles_per_block() < lim.units) {
    if (p.tn > spec.granule_n && (p.tn >= p.tm || p.tm <= tm_floor)) {
      p.tn = round_up(p.tn / 2, spec.granule_n);
    } else if (p.tm > tm_floor) {
      p.tm = round_up(p.tm / 2, spec.granule_m);
    } else {
      break;
    }
  }
  return ScoredPlan{p, p.traffic_bytes(), step_load * static_cast<std::uint64_t>(p.bb), p.bb * p.tiles_per_block(), p.steps()};
}

std::vector<ScoredPlan> candidates(const GemmShape& g, const MatrixSpec& spec, const TilingLimits& lim, bool full_tiles) {
  // Blocks at least one work tile wide where the matrix allows: smaller ones starve the units
  // and pay a step's latency for little work.
  const std::int64_t min_bm = full_tiles ? std::min(round_up(g.m, spec.granule_m), round_up(lim.work_tile_m, spec.granule_m)) : 0;
  const std::int64_t min_bn = full_tiles ? std::min(round_up(g.n, spec.granule_n), round_up(lim.work_tile_n, spec.granule_n)) : 0;
  // A fused attention needs all of head_dim (n) in one block: its softmax spans it.
  const std::vector<std::int64_t> bn_choices =
      g.fused_attention ? std::vector<std::int64_t>{round_up(g.n, spec.granule_n)} : block_candidates(g.n, spec.granule_n);
  std::vector<ScoredPlan> out;
  for (std::int64_t bm : block_candidates(g.m, spec.granule_m)) {
    if (bm < min_bm) continue;
    for (std::int64_t bn : bn_choices) {
      if (bn < min_bn) continue;
      for (std::int64_t bk : block_candidates(g.k, spec.granule_k)) {
        for (bool n_outer : {false, true}) {
          if (auto c = candidate(g, spec, lim, bm, bn, bk, n_outer)) out.push_back(*c);
        }
      }
    }
  }
  return out;
}


}  // namespace

GemmPlan plan_gemm(const GemmShape& g, const MatrixSpec& spec, const TilingLimits& lim) {
  // Batched GEMMs (attention's) and fused attention keep the batched planner below; a grouped
  // GEMM (an MoE layer's experts) plans as a kernel over all its problems' tiles.
  if (spec.kernel_k_bytes > 0 && (g.batch == 1 || g.grouped) && !g.fused_attention) {
    GemmPlan p = plan_gemm_kernel(g, spec, lim);
    if (spec.split_k_reduce_min_parts > 0 && static_cast<double>(p.k_parts()) >= spec.split_k_reduce_min_parts) {
      p.reduce_parts = p.k_parts();
    }
    return p;
  }
  // Candidates are ranked by (1) HBM traffic, within 1% of the least; (2) enough unit tiles
  // per block to occupy every unit; (3) a step load that fills the DMA window, not larger;
  // (4) fewer steps. These are the choices a tiling compiler makes; nothing here times the op.
  std::vector<ScoredPlan> feasible = candidates(g, spec, lim, true);
  if (feasible.empty()) feasible = candidates(g, spec, lim, false);
  if (feasible.empty()) {
    throw InputError("GEMM " + std::to_string(g.m) + "x" + std::to_string(g.n) + "x" +
                     std::to_string(g.k) + ": even the smallest tiles do not fit the " +
                     format_bytes(static_cast<double>(lim.buffer_bytes)) + " on-chip buffer (" + lim.buffer_name + ")");
  }
  std::uint64_t least = UINT64_MAX;
  for (const auto& s : feasible) least = std::min(least, s.traffic);
  std::int64_t most_tiles = 0;
  for (const auto& s : feasible) {
    if (static_cast<double>(s.traffic) <= 1.01 * static_cast<double>(least)) most_tiles = std::max(most_tiles, s.tiles);
  }
  const std::int64_t tiles_wanted = std::min(most_tiles, lim.units);
  auto better = [&](const ScoredPlan& a, const ScoredPlan& b) {
    // Step loads at or above the target beat smaller ones; among those, smaller is better.
    const bool a_full = a.step_load >= lim.target_step_bytes, b_full = b.step_load >= lim.target_step_bytes;
    if (a_full != b_full) return a_full;
    if (a.step_load != b.step_load) return a_full ? a.step_load < b.step_load : a.step_load > b.step_load;
    if (a.steps != b.steps) return a.steps < b.steps;
    return a.traffic < b.traffic;
  };
  const ScoredPlan* best = nullptr;
  for (const auto& s : feasible) {
    if (static_cast<double>(s.traffic) > 1.01 * static_cast<double>(least)) continue;
    if (s.tiles < tiles_wanted) continue;
    if (!best || better(s, *best)) best = &s;
  }
  GemmPlan plan = best->plan;
  // A decode kernel's multi-block mode: each step's keys split over the units.
  if (g.fused_attention && g.kernel_k_splits > 1) {
    plan.tk = ceil_div(std::min(plan.bk, g.k), g.kernel_k_splits);
  }
  return deepest_pipeline(plan, lim);
}

std::int64_t VectorPlan::steps() const {
  return ceil_div(tail_begin, chunk_elements) + ceil_div(shape.elements_in - tail_begin, chunk_elements);
}

VectorStep VectorPlan::step(std::int64_t i) const {
  // Steps of chunk_elements up to tail_begin, then steps of chunk_elements over the tail.
  const std::int64_t head_steps = ceil_div(tail_begin, chunk_elements);
  const bool tail = i >= head_steps;
  const std::int64_t begin = tail ? tail_begin + (i - head_steps) * chunk_elements : i * chunk_elements;
  const std::int64_t end = std::min(tail ? shape.elements_in : tail_begin, begin + chunk_elements);
  // Outputs are apportioned so that the steps' outputs sum exactly to elements_out.
  auto out_before = [&](std::int64_t in) {
    return static_cast<std::int64_t>(static_cast<__int128>(shape.elements_out) * in / shape.elements_in);
  };
  VectorStep s;
  s.first_element = begin;
  s.in_bytes = tensor_bytes(end - begin, shape.dtype);
  s.out_bytes = tensor_bytes(out_before(end) - out_before(begin), shape.output_dtype());
  s.flops = shape.flops_per_element * static_cast<double>(end - begin);
  s.wave_ctas = tail ? tail_ctas : 0;
  return s;
}

std::uint64_t VectorPlan::traffic_bytes() const {
  std::uint64_t total = 0;
  for (std::int64_t i = 0; i < steps(); ++i) {
    VectorStep s = step(i);
    total += s.in_bytes + s.out_bytes;
  }
  return total;
}

VectorPlan plan_vector(const VectorShape& v, const TilingLimits& lim) {
  VectorPlan p;
  p.shape = v;
  const double bytes_per_in = dtype_bytes(v.dtype) + dtype_bytes(v.output_dtype()) *
      static_cast<double>(v.elements_out) / static_cast<double>(v.elements_in);
  // A chunk whose load fills the DMA window, bounded by what `stages` chunks leave room for.
  const double by_target = static_cast<double>(lim.target_step_bytes) / dtype_bytes(v.dtype);
  const double by_buffer = static_cast<double>(lim.buffer_bytes) / (p.stages * bytes_per_in);
  std::int64_t chunk = static_cast<std::int64_t>(std::min(by_target, by_buffer));
  if (v.inflight_bytes_per_unit > 0) {
    // One round of every resident warp's loads per step; the next round waits for this one.
    p.stages = 1;
    const double round = static_cast<double>(v.inflight_bytes_per_unit) * static_cast<double>(lim.vector_units) / dtype_bytes(v.dtype);
    chunk = static_cast<std::int64_t>(std::min(round, static_cast<double>(lim.buffer_bytes) / bytes_per_in));
  }
  chunk = std::max<std::int64_t>(1, std::min(chunk, v.elements_in));
  p.chunk_elements = chunk;
  p.tail_begin = v.elements_in;
  if (v.kernel_ctas > 0) {
    // Full waves of units x resident CTAs keep every unit busy; a last wave with fewer CTAs than
    // units leaves some idle. (Uneven loads among busy units, e.g. 192 CTAs on 132 units, are
    // not counted: with them the generation rows' MAPE went up, 11.1 -> 11.2%; what those
    // calls show instead is each SM's own bandwidth, which roofsim does not model.)
    const std::int64_t slots = lim.vector_units * std::max<std::int64_t>(1, v.kernel_ctas_per_unit);
    const std::int64_t last = v.kernel_ctas - (v.kernel_ctas - 1) / slots * slots;
    if (last < lim.vector_units) {
      p.tail_begin = static_cast<std::int64_t>(static_cast<__int128>(v.elements_in) * (v.kernel_ctas - last) / v.kernel_ctas);
      p.tail_ctas = last;
    }
  }
  return p;
}

}  // namespace roofsim
