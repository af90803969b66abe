// The kernels GPU GEMM libraries launch, as tile plans (declared in gemm_kernel_plan.hpp).
#include "components/gemm_kernel_plan.hpp"

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "core/format.hpp"

namespace roofsim {

using namespace tiling_detail;

// TensorRT-LLM's weight-only plugin runs its CUTLASS GEMM from this many tokens (below, its
// batched GEMV), and CUTLASS 2.x kernels load 64 bytes of K per stage.
constexpr std::int64_t kMixedInputMinTokens = 5;
constexpr double kAmpereKernelKBytes = 64;

bool mixed_input_kernel(const GemmShape& g, const MatrixSpec& spec) {
  // Below 5 tokens TensorRT-LLM runs its batched GEMV on the CUDA cores instead
  // (WeightOnlyQuantMatmulPlugin's SMALL_M_FAST_PATH), planned as a library GEMM.
  return !g.grouped && !g.fused_attention && g.m >= kMixedInputMinTokens && weight_only_formats(g.a, g.b) && spec.warpgroup_mma() &&
         spec.kernel_k_bytes > 0;
}

double weight_convert_cycles(const GemmShape& g, const MatrixSpec& spec, std::int64_t weight_cols, std::int64_t k) {
  if (!mixed_input_kernel(g, spec)) return 0;
  return static_cast<double>(weight_cols) * static_cast<double>(k) * spec.mixed_input_convert_cycles;
}

std::int64_t padding_tile_rows(const GemmShape& g, std::int64_t tm) {
  if (g.kernel_cluster_m <= 1 || tm <= 0) return 0;
  const std::int64_t rows = ceil_div(g.m, tm);
  return round_up(rows, g.kernel_cluster_m) - rows;
}

namespace {

// CUTLASS's Hopper kernels built with StageCountAutoCarveout (TensorRT-LLM's mixed-input
// fpA_intB launcher) give their main loop as many stages as the SM's shared memory holds: one
// CTA's k-tile of A and of B each. Small tiles keep many k-tiles in flight, which is what
// streams a long K through few CTAs. Never fewer than two; never more than the op's buffer holds.
GemmPlan carveout_pipeline(GemmPlan plan, const TilingLimits& lim) {
  plan.k_on_one_unit = true;
  if (lim.unit_buffer_bytes == 0) return deepest_pipeline(plan, lim);
  const GemmShape& g = plan.shape;
  const std::int64_t kc = plan.tk > 0 ? plan.tk : plan.bk;
  const std::uint64_t stage = tensor_bytes(plan.tm * kc, g.a) + tensor_bytes(kc * plan.tn, g.b);
  plan.stages = static_cast<int>(std::max<std::uint64_t>(2, lim.unit_buffer_bytes / std::max<std::uint64_t>(stage, 1)));
  while (plan.stages > 2 && plan.footprint_bytes() > lim.buffer_bytes) --plan.stages;
  return plan;
}

// TensorRT-LLM's block-scaled fp8 GEMM on Hopper runs DeepGEMM's kernel (fp8_blockscale_gemm
// `gemm_dispatch`, `deep_gemm::jit::get_best_gemm_config`): block_m is 64 up to 64 rows, else
// 128; block_n one of 16, 24, ... 128, the fewest waves over the SMs, then the fullest last
// wave, then the narrower; K is never split. Below 32 rows it swaps the operands (the weights
// run down the MMA's M in blocks of 128, the tokens across its N in a block_n). `groups`:
// problems of a grouped GEMM, each with its own tiles.
struct KernelTile {
  std::int64_t tm = 0, tn = 0;
  std::int64_t split = 1;  // parts of K (split-K)
  bool swap_ab = false, whole_tiles = false, edge_rows_loaded = false;
};
KernelTile block_scaled_tile(std::int64_t m, std::int64_t n, std::int64_t groups, bool grouped, std::int64_t sms) {
  const bool swap = m < 32;
  const std::int64_t rows = swap ? n : m, cols = swap ? m : n;
  const std::int64_t block_m = rows <= 64 ? 64 : 128;
  std::int64_t best_n = 0, best_waves = 0, best_util = 0;
  for (std::int64_t block_n = 16; block_n <= 128; block_n += 8) {
    const std::int64_t tiles = ceil_div(rows, block_m) * ceil_div(cols, block_n) * groups;
    const std::int64_t waves = ceil_div(tiles, sms), util = tiles % sms == 0 ? sms : tiles % sms;
    if (best_n == 0 || waves < best_waves || (waves == best_waves && util > best_util)) {
      best_n = block_n;
      best_waves = waves;
      best_util = util;
    }
  }
  KernelTile t;
  t.tm = swap ? best_n : block_m;
  t.tn = swap ? block_m : best_n;
  t.swap_ab = swap;
  t.whole_tiles = true;  // TMA fills zeros beyond the matrix; the MMAs span the block
  // The dense kernel's 128-row boxes past the last row are slow to load (measured: 129 rows take
  // twice as long as 128); 64-row boxes show no such cost, and the grouped kernel's boxes read
  // the next expert's rows, in bounds.
  t.edge_rows_loaded = !swap && !grouped && block_m == 128;
  return t;
}

// A library's tile (cuBLAS, CUTLASS): from a menu (the configured work tile, halved) by how
// evenly its tiles fill the units: waves x the tile's padded k-loop, as a heuristic picks a
// kernel. When the tiles are fewer than the units, K is split over units (split-K) up to what
// the k-tiles allow; a grouped GEMM's problems are not split.
KernelTile library_tile(const GemmShape& g, const MatrixSpec& spec, const TilingLimits& lim, std::int64_t kc) {
  // Weight-only experts' kernels go down to their smallest row blocks.
  const std::int64_t granule_m = tile_granule_m(spec, g.weight_only_grouped());
  const std::int64_t k_tiles = ceil_div(g.k, kc);
  struct Choice {
    KernelTile tile;
    double makespan;
  };
  // The menu: the configured work tile and its halvings, rows down to the granule, columns
  // down to 64 (narrower tiles starve the tensor cores of operand bandwidth, which is not
  // modelled, so libraries offer them only for matrices that narrow).
  const std::int64_t tm_max = round_up(lim.work_tile_m, granule_m), tn_max = round_up(lim.work_tile_n, spec.granule_n);
  const std::int64_t tn_min = std::min({tn_max, round_up(64, spec.granule_n), round_up(g.n, spec.granule_n)});
  std::vector<std::int64_t> tms, tns;
  const bool mixed_input = mixed_input_kernel(g, spec);
  const bool swap = mixed_input || (g.kernel_swap_ab && g.kernel_tile_m > 0 && g.kernel_tile_n > 0);
  if (mixed_input) {
    // CUTLASS's Hopper mixed-input kernel (TensorRT-LLM's fpA_intB on sm90,
    // get_candidate_tiles_sm90): the converted weights are the MMA's register operand, so they
    // run down its M in tiles of 64 or 128 and the tokens across its N in tiles of 16 to 256;
    // one CTA per tile walks the whole of K.
    tms = {256, 128, 64, 32, 16};
    tns = {128, 64};
  } else if (g.kernel_tile_m > 0 && g.kernel_tile_n > 0) {
    // The path fixes its tile for this shape: the menu is that tile alone. Swapped, the
    // tokens run across the MMA's N and the weights' columns down its M.
    tms.push_back(round_up(g.kernel_tile_m, g.kernel_swap_ab ? spec.granule_n : granule_m));
    tns.push_back(round_up(g.kernel_tile_n, g.kernel_swap_ab ? granule_m : spec.granule_n));
  } else {
    for (std::int64_t tm = tm_max; tm > granule_m; tm = round_up(tm / 2, granule_m)) tms.push_back(tm);
    tms.push_back(granule_m);
    for (std::int64_t tn = tn_max; tn > tn_min; tn = round_up(tn / 2, spec.granule_n)) tns.push_back(tn);
    tns.push_back(tn_min);
  }
  // The choice is made at the token count the path tuned its kernel at; the call runs it at its own.
  const std::int64_t choice_m = g.kernel_tuned_m > 0 ? g.kernel_tuned_m : g.m;
  std::vector<Choice> menu;
  for (std::int64_t tm : tms) {
    for (std::int64_t tn : tns) {
      const std::int64_t tiles = g.batch * ceil_div(choice_m, tm) * ceil_div(g.n, tn);
      const bool short_k = static_cast<double>(k_tiles) < spec.split_k_min_k_tiles;
      const std::int64_t split = tiles >= lim.units || g.batch > 1 || short_k || g.kernel_no_split_k || mixed_input
                                     ? 1
                                     : std::min(lim.units / tiles, k_tiles);
      const std::int64_t waves = ceil_div(tiles * split, lim.units);
      const TileShape mma = swap ? TileShape{tn, tm, kc} : TileShape{tm, tn, kc};
      const double tile_cycles =
          std::max(matrix_tile_cycles(spec, mma, g.compute(), granule_m), weight_convert_cycles(g, spec, tn, kc));
      KernelTile t;
      t.tm = tm;
      t.tn = tn;
      t.split = split;
      t.swap_ab = swap;
      // TMA fills zeros beyond the matrix and the MMAs span the tile: a CUTLASS kernel's tile is
      // fixed at compile time, so where the path fixes it (vLLM's scaled_mm: 128 x 128 above 128
      // tokens whatever N) a 32-column edge costs a whole tile. A library's menu (cuBLAS) holds
      // narrower kernels for narrow edges, so its edges cost their columns.
      t.whole_tiles = swap || (g.kernel_tile_m > 0 && g.kernel_tile_n > 0);
      menu.push_back({t, static_cast<double>(waves * ceil_div(k_tiles, split)) * tile_cycles});
    }
  }
  double best = menu.front().makespan;
  for (const Choice& c : menu) best = std::min(best, c.makespan);
  // Within 5% of the most even, the largest tile: fewer operand re-reads per FLOP.
  const Choice* pick = nullptr;
  for (const Choice& c : menu) {
    if (c.makespan > 1.05 * best) continue;
    if (!pick || c.tile.tm * c.tile.tn > pick->tile.tm * pick->tile.tn) pick = &c;
  }
  return pick->tile;
}

}  // namespace

// A GPU GEMM kernel: every work tile (a CTA tile) steps through K in k-tiles of
// kernel_k_bytes per row. The tile is the library's (library_tile) or DeepGEMM's
// (block_scaled_tile); the simulation then times whatever the plan does. Blocks group tiles
// so the operands stream through the L2 with the least HBM traffic.
// Partial sums of split-K meet on chip unless the parts reach matrix.split_k_reduce_min_parts:
// then a second kernel reduces them (GemmPlan::reduce_parts, run by Chip::run_gemm).
GemmPlan plan_gemm_kernel(const GemmShape& g, const MatrixSpec& spec, const TilingLimits& lim) {
  // A k-tile holds kernel_k_bytes of values; block formats' scales travel beside them.
  const std::int64_t bits = dtype_value_bits(g.compute());
  // A kernel on the previous generation's mma.sync (CUTLASS 2.x) takes Ampere's k-tile of 64
  // bytes (128x128x64 int8, 128x128x32 16-bit tiles).
  // A path may fix its own (GemmShape::kernel_k_bytes).
  const double k_bytes = g.kernel_k_bytes > 0                            ? static_cast<double>(g.kernel_k_bytes)
                         : g.kernel_mma_sync && spec.warpgroup_mma() ? kAmpereKernelKBytes
                                                                     : spec.kernel_k_bytes;
  const std::int64_t kc = std::min(round_up(std::max<std::int64_t>(1, static_cast<std::int64_t>(k_bytes) * 8 / bits), spec.granule_k),
                                   round_up(g.k, spec.granule_k));
  // Block-scaled fp8 runs DeepGEMM's kernel, everything else a library's.
  const KernelTile pick = g.scale_block_k > 0 ? block_scaled_tile(g.m, g.n, g.batch, g.grouped, lim.units) : library_tile(g, spec, lim, kc);
  const std::int64_t bk = std::min(kc * pick.split, round_up(g.k, spec.granule_k));
  std::optional<GemmPlan> chosen;
  std::uint64_t least = UINT64_MAX;
  std::int64_t fewest_steps = INT64_MAX;
  for (std::int64_t bm : block_candidates(g.m, pick.tm)) {
    for (std::int64_t bn : block_candidates(g.n, pick.tn)) {
      for (bool n_outer : {false, true}) {
        GemmPlan p;
        p.shape = g;
        p.bm = bm;
        p.bn = bn;
        p.bk = bk;
        p.tm = pick.tm;
        p.tn = pick.tn;
        p.tk = kc;
        p.n_outer = n_outer;
        p.whole_tiles = pick.whole_tiles;
        p.swap_ab = pick.swap_ab;
        p.edge_rows_loaded = pick.edge_rows_loaded;
        // A grouped GEMM's problems run side by side: as many per step as the buffer holds.
        p.bb = g.batch;
        while (p.bb > 1 && p.footprint_bytes() > lim.buffer_bytes) p.bb = (p.bb + 1) / 2;
        if (p.footprint_bytes() > lim.buffer_bytes) continue;
        const std::uint64_t traffic = p.traffic_bytes();
        if (traffic < least || (traffic == least && p.steps() < fewest_steps)) {
          least = traffic;
          fewest_steps = p.steps();
          chosen = p;
        }
      }
    }
  }
  if (!chosen) {
    throw InputError("GEMM " + std::to_string(g.m) + "x" + std::to_string(g.n) + "x" + std::to_string(g.k) +
                     ": even the smallest tiles do not fit the " + format_bytes(static_cast<double>(lim.buffer_bytes)) +
                     " on-chip buffer (" + lim.buffer_name + ")");
  }
  if (pick.swap_ab && mixed_input_kernel(g, spec)) return carveout_pipeline(*chosen, lim);
  return deepest_pipeline(*chosen, lim);
}

}  // namespace roofsim
