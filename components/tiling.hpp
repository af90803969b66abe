#pragma once
// How an op is cut into steps that stream through the on-chip buffer. Plain C++ (no SystemC):
// a plan is a pure function of the op and the hardware, so it is tested without a kernel.
//
// A GEMM step loads one A block (bm x bk) and one B block (bk x bn), computes bm x bn x bk on
// the matrix units as unit tiles (tm x tn), and after its last k step writes C. `stages`
// buffers let the loads of the next steps overlap the compute of the current one. When a GEMM
// needs one k step, the operand that does not change between consecutive blocks stays resident
// and is not loaded again (operand reuse). A batched GEMM whose matrices are small (attention
// of many sequences and heads) processes `bb` batch elements per step, side by side.
#include <cstdint>
#include <string>

#include "components/matrix_tile.hpp"
#include "core/hardware.hpp"
#include "workloads/op_cost.hpp"

namespace roofsim {

struct GemmStep {
  std::int64_t batch = 0, mb = 0, nb = 0, ks = 0;  // block coordinates (batch: first of the group)
  std::int64_t batch_count = 1;                    // batch elements this step covers
  std::int64_t m = 0, n = 0, k = 0;                // this block's extent (edges are smaller)
  std::uint64_t a_bytes = 0, b_bytes = 0;          // loaded before compute, all batch elements
  bool last_k = false;                             // C of this block is complete afterwards
};

struct GemmPlan {
  GemmShape shape;
  std::int64_t bm = 0, bn = 0, bk = 0;  // block
  std::int64_t tm = 0, tn = 0;          // unit work tile
  // K of one unit job; 0 = the whole step. Smaller than bk: a step's K is split over units
  // (split-K), each job computing a partial tile that the last one completes.
  std::int64_t tk = 0;
  std::int64_t bb = 1;                  // batch elements per step (small batched GEMMs)
  bool n_outer = false;                 // loop order: n blocks outside m blocks
  // Split-K whose fp32 partial tiles a second kernel reduces (matrix.split_k_reduce_min_parts):
  // the parts each output element has; 0 when the partial sums meet on chip.
  std::int64_t reduce_parts = 0;
  // A kernel whose MMAs always span the whole work tile (DeepGEMM's block-scaled kernel: TMA
  // fills rows and columns beyond the matrix with zeros): edge tiles cost a full tile.
  bool whole_tiles = false;
  // A and B swapped in the MMA (DeepGEMM below 32 rows): the weights' columns (tn) run down the
  // MMA's M, the tokens (tm) across its N, so the tokens pad to granule_n, not granule_m.
  bool swap_ab = false;
  // DeepGEMM's dense kernel with 128-row tiles: its A TMA descriptor has the true row count, so
  // the last row of tiles loads boxes reaching past the matrix on every step of K
  // (matrix.block_scaled_oob_row_cycles per row beyond it).
  bool edge_rows_loaded = false;
  int stages = 2;
  // Every k step of a block runs on the units its first step took, as a CTA walks the K of its
  // tile on one SM (set for the mixed-input kernel, whose deep pipeline would otherwise let a
  // tile's k steps spread over idle units; the other kernels' parameters were fitted with the
  // steps dealt to the next units in turn).
  bool k_on_one_unit = false;

  std::int64_t blocks_m() const;
  std::int64_t blocks_n() const;
  std::int64_t k_steps() const;
  std::int64_t steps() const;
  GemmStep step(std::int64_t i) const;
  std::uint64_t footprint_bytes() const;  // on-chip bytes the plan holds at once
  std::uint64_t traffic_bytes() const;    // HBM bytes the plan moves (closed form)
  // The split-K reduction kernel (reduce_parts > 0): every part's fp32 partial of each output
  // element in, the output out; and its traffic.
  VectorShape reduction() const;
  std::uint64_t reduction_traffic_bytes() const;
  std::int64_t tiles_per_block() const;   // unit jobs of a full block (k parts included)
  std::int64_t k_parts() const;           // unit jobs per tile and step
  std::int64_t batch_groups() const;
};

struct TilingLimits {
  std::uint64_t buffer_bytes = 0;      // on-chip capacity for tiles
  std::int64_t units = 1;              // matrix units to keep busy
  std::int64_t vector_units = 1;       // vector units (SMs on a GPU) that vector work spreads over
  std::int64_t work_tile_m = 128, work_tile_n = 128;
  std::uint64_t target_step_bytes = 0;  // a step's load should keep the DMA window full
  // Shared memory of one matrix unit (a GPU SM's: onchip.smem over matrix.units; 0: none
  // described): a kernel that sizes its pipeline to it keeps that many k-tiles in flight.
  std::uint64_t unit_buffer_bytes = 0;
  std::string buffer_name;              // for messages: "onchip.l2.capacity_bytes of h100.toml"
};

TilingLimits tiling_limits(const HardwareSpec& hw);

// A dense weight-only GEMM (4- or 8-bit weights, 16-bit activations) on a chip with a
// warpgroup MMA runs CUTLASS's mixed-input kernel: weights down the MMA's M, tokens across
// its N, K never split (library_tile's menu for it).
bool mixed_input_kernel(const GemmShape& g, const MatrixSpec& spec);
// Cycles a mixed-input kernel's tile spends converting its weights (`weight_cols` x `k`
// elements) in the MMA warps (matrix.mixed_input_convert_cycles each); 0 for other GEMMs.
double weight_convert_cycles(const GemmShape& g, const MatrixSpec& spec, std::int64_t weight_cols, std::int64_t k);
// Rows of padding tiles a kernel launched in clusters along M runs after its last real row of
// `tm`-row tiles (GemmShape::kernel_cluster_m): the tile rows rounded up to a whole cluster.
std::int64_t padding_tile_rows(const GemmShape& g, std::int64_t tm);
// Throws InputError when not even the smallest block fits the buffer. A matrix spec with
// kernel_k_bytes plans as a GPU GEMM kernel does (work tiles from a menu, K in k-tiles,
// split-K when the tiles cannot occupy the units); without, as a tiling compiler does.
GemmPlan plan_gemm(const GemmShape& g, const MatrixSpec& m, const TilingLimits& lim);

// Element-wise / row-wise work, streamed in chunks.
struct VectorStep {
  std::int64_t first_element = 0;  // the step's first input element
  std::uint64_t in_bytes = 0, out_bytes = 0;
  double flops = 0;
  // CTAs of the wave the step belongs to, when they do not spread evenly over the units (a
  // last partial wave): unit i of n computes (wave_ctas / n, one more for i < wave_ctas % n) of
  // them, its share of the step. 0: the units share it evenly.
  std::int64_t wave_ctas = 0;
};
struct VectorPlan {
  VectorShape shape;
  std::int64_t chunk_elements = 0;  // input elements per step
  int stages = 2;
  // A kernel that counts its CTAs (VectorShape::kernel_ctas) splits its input evenly over
  // them, in waves of units x resident CTAs. A last wave with fewer CTAs (tail_ctas) starts at
  // input element tail_begin; otherwise tail_begin = elements_in.
  std::int64_t tail_begin = 0;
  std::int64_t tail_ctas = 0;
  std::int64_t steps() const;
  VectorStep step(std::int64_t i) const;
  std::uint64_t traffic_bytes() const;
};
VectorPlan plan_vector(const VectorShape& v, const TilingLimits& lim);

// Bytes of `elements` values of a dtype, rounded up to whole bytes (int4 packs two per byte).
std::uint64_t tensor_bytes(std::int64_t elements, DType t);

}  // namespace roofsim
