#pragma once
// What an operator costs, independent of any hardware: FLOPs and the bytes it must move if each
// operand is read once and each output written once. The analytic model divides these by peak
// rates; the simulator must arrive at (at least) the same counts by moving tiles.
#include <cstdint>
#include <string>

#include "core/dtype.hpp"
#include "core/hardware.hpp"

namespace roofsim {

// C[batch][m x n] = A[batch][m x k] * B[batch][k x n]. A holds activations, B weights (or the
// second activation of attention), C the result. The math runs in compute_dtype on the matrix
// units; weight-only quantized B (int4 weights, bf16 activations) is dequantized to A's type.
//
// A fused (flash-attention style) attention computes softmax(Q K^T) V for each of `batch`
// (sequence, KV head) pairs as a GEMM whose reduction runs over the keys: m query rows,
// n = head_dim output columns, k = keys. B holds both K and V (2 x k x n), C is the output
// (m x n), and the m x k scores never leave the chip: two matmuls of m x n x k each.
struct GemmShape {
  std::int64_t batch = 1;
  std::int64_t m = 0, n = 0, k = 0;
  DType a = DType::bf16, b = DType::bf16, c = DType::bf16;
  bool fused_attention = false;
  // A fused attention whose values are narrower or wider than its queries and keys (MLA:
  // qk 192 and v 128 in prefill; 576 and 512 over the latent in decode): `v_n` value columns
  // (0: n). C is m x v_n. With `shared_kv` the values are the first v_n columns of the keys
  // (MLA's cached latent serves as both), so B is read once: k x n, not k x (n + v_n).
  std::int64_t v_n = 0;
  bool shared_kv = false;
  // The CTAs a library's fused attention kernel launches for this op (a context FMHA: one per
  // sequence, query head and query tile), each paying the units' matrix.attention_cta_cycles
  // once; 0: not counted (the tiles alone).
  std::int64_t kernel_ctas = 0;
  // A decode kernel that splits each (sequence, KV head)'s keys over this many CTAs (XQA's
  // multi-block mode), whose partial results merge on chip: the units share the keys.
  std::int64_t kernel_k_splits = 1;
  // CTAs of that kernel resident on one unit at once: their fixed cycles overlap, so the units
  // pay them once per wave of units x this many CTAs.
  std::int64_t kernel_ctas_per_unit = 1;
  // Those CTAs are a decode kernel's (matrix.decode_attention_cta_cycles each).
  bool decode_kernel = false;
  // ... a GQA decode kernel's on the tensor cores (TensorRT-LLM's XQA): each wave of resident
  // CTAs pays matrix.gqa_decode_cta_cycles instead, and each CTA
  // matrix.gqa_decode_cycles_per_query_element for every element of its query tile (this many:
  // the group's query rows padded to the kernel's MMA tile, times the head dim).
  bool gqa_decode_kernel = false;
  bool gqa_decode_qgmma = false;  // its Hopper variant on an fp8 cache (matrix.gqa_decode_qgmma_cta_cycles)
  std::int64_t kernel_cta_query_elements = 0;
  // Block-scaled operands (fp8 with one scale per this many values of K, e.g. 128; 0: none):
  // the kernel scales and adds its accumulators into fp32 after every such block of K on the
  // CUDA cores (promotion), between the MMAs.
  std::int64_t scale_block_k = 0;
  // A fused attention kernel that computes whole key tiles across the causal diagonal and a
  // window's edge: the keys per query it computes, masked ones included (0: k). The units'
  // time counts them; the op's FLOPs stay k's.
  std::int64_t kernel_keys = 0;
  // The keys such a kernel takes per step of its key loop (fmha_v2's STEP_KV): after each step
  // the online softmax rescales the output accumulators on the CUDA cores (0: not counted).
  std::int64_t kernel_key_tile = 0;
  // An fp8 context FMHA built for a sliding window (the window shorter than the sequence): its
  // CTAs' key-loop steps, all CTAs together, each costing the unit that runs it
  // matrix.fp8_window_key_tile_cycles beside the tiles' work (0: not that kernel).
  std::int64_t kernel_window_key_steps = 0;
  // A fused decode kernel on an fp8 cache: its CTAs' 128-key tiles of the cache, all CTAs
  // together, each costing the unit matrix.fp8_cache_decode_key_tile_cycles (0: not that kernel).
  std::int64_t kernel_fp8_cache_key_tiles = 0;
  // A fused attention kernel whose MMAs run at a wider head than the data's (fmha_v2 pads the
  // head in shared memory, e.g. fp8 192 to 256; XQA's tiles span headElems, 192 at 256): the query/key head QK^T runs at and the value
  // head AV runs at (0: n and out_n()). The units' time counts them; the op's FLOPs and bytes
  // stay the data's.
  std::int64_t kernel_head_dim = 0, kernel_value_dim = 0;
  // A grouped GEMM kernel (an MoE layer's experts: one problem per batch element, as CUTLASS's
  // grouped GEMM runs them): planned as a GPU GEMM kernel over all the problems' tiles, K not
  // split. Other batched GEMMs (attention's) keep the batched planner.
  bool grouped = false;
  // A grouped GEMM of weight-only experts: 4-bit or int8 weights converted to the 16-bit
  // activations' type in the kernel (gpt-oss's mxfp4 on Hopper). Block-scaled fp8 experts with
  // 16-bit inputs are not: their kernels quantize the activations and compute in fp8.
  bool weight_only_grouped() const { return grouped && weight_only_formats(a, b); }
  // A library kernel that never splits K (vLLM's CUTLASS scaled_mm, TensorRT-LLM's SmoothQuant
  // GEMM as its profiler keeps it): one CTA walks the whole of K for its tile, however few
  // tiles there are.
  bool kernel_no_split_k = false;
  // A kernel built on the previous generation's warp-level MMA (mma.sync: a CUTLASS 2.x kernel,
  // TensorRT-LLM's SmoothQuant int8 GEMM on every GPU): its tiles run at matrix.mma_sync_rate.
  bool kernel_mma_sync = false;
  // A library path that fixes its CTA tile for the shape (vLLM's CUTLASS scaled_mm dispatches
  // on M and N buckets): the work tile's rows and columns (0: the library's heuristic picks).
  std::int64_t kernel_tile_m = 0, kernel_tile_n = 0;
  // That tile with A and B swapped (vLLM's scaled_mm for few tokens): the weights' columns run
  // down the MMA's M, the tokens across its N, so few tokens are not padded to the MMA's rows.
  bool kernel_swap_ab = false;
  // The token count the path chose its kernel at (0: the call's own m). TensorRT-LLM's GEMM
  // plugins profile their tactics at powers of two of the tokens and run a call with the tactic
  // of the next one up (GemmPluginProfiler::getBestConfig: min(nextPowerOfTwo(m), 8192)), so 160
  // tokens run the tile chosen for 256.
  std::int64_t kernel_tuned_m = 0;
  // That path's kernel is a ping-pong one (matrix.pingpong_mma_share).
  bool kernel_pingpong = false;
  // Bytes of K that path's k-tile holds per row (0: the chip's matrix.kernel_k_bytes).
  std::int64_t kernel_k_bytes = 0;
  // That path launches its CTAs in clusters of this many along the tokens (M): CUTLASS's
  // persistent scheduler rounds the tiles along M up to a multiple of it, and the padding
  // tiles run their MMAs on zero-filled operands (TMA reads nothing out of bounds, the
  // epilogue stores nothing), so an odd tile count pays one more row of tiles.
  std::int64_t kernel_cluster_m = 1;
  // The operands are already in the tile buffer (an L2 that holds them from an earlier call, as
  // a benchmark replaying one call over a working set that fits keeps them): its reads are
  // served there, at that memory's bandwidth and latency. Writes still go to HBM.
  bool reads_resident = false;
  // A gated MLP's up GEMM with its activation in the epilogue (Fusion::activation):
  // each gate column and its up column make one output, act(gate) x up, so C has n / 2 columns.
  bool gated_output = false;
  DType compute() const { return a; }
  int matmuls() const { return fused_attention ? 2 : 1; }
  // Output columns: the value head dim of a fused attention, half of n for a gated epilogue, n
  // otherwise.
  std::int64_t out_n() const { return fused_attention && v_n > 0 ? v_n : gated_output ? n / 2 : n; }
  // Columns of B per reduction row: K and V (n + v_n) for a fused attention, n otherwise.
  std::int64_t b_cols() const { return fused_attention ? n + (shared_kv ? 0 : out_n()) : n; }
  // Multiply-adds per (row, reduction step): n, or n + v_n for QK^T and AV together.
  std::int64_t mac_cols() const { return fused_attention ? n + out_n() : n; }
  // Q of a fused attention is m x head_dim (= m x n); a plain A is m x k.
  std::int64_t a_elements_per_batch() const { return fused_attention ? m * n : m * k; }
  std::int64_t b_elements_per_batch() const { return k * b_cols(); }
  std::int64_t c_elements_per_batch() const { return m * out_n(); }
};

// Element-wise and row-wise work for the vector units: reads elements_in values, writes
// elements_out, and does flops_per_element operations per input element, in fp32 registers.
struct VectorShape {
  std::int64_t elements_in = 0;
  std::int64_t elements_out = 0;
  double flops_per_element = 1;
  DType dtype = DType::bf16;      // storage type of the inputs
  DType out_dtype = DType::bf16;  // storage type of the outputs (e.g. an fp8 KV cache)
  bool out_same_as_in = true;     // out_dtype is ignored unless this is false
  // A library kernel that counts its CTAs (a decode attention on the CUDA cores), as in
  // GemmShape: each pays matrix.attention_cta_cycles (decode_kernel: decode_attention_cta_cycles),
  // once per wave of units x kernel_ctas_per_unit resident CTAs (0: not counted).
  std::int64_t kernel_ctas = 0;
  std::int64_t kernel_ctas_per_unit = 1;
  bool decode_kernel = false;
  // A kernel of one CTA per token row (vLLM's fp8 quantization): each wave of resident CTAs
  // costs vector.token_cta_cycles instead of an attention kernel's.
  bool per_token_ctas = false;
  // A kernel whose warps each wait for their own loads before issuing more: the input bytes
  // the warps resident on one unit keep in flight (warps x bytes each loads per iteration).
  // It streams in rounds of units x that many bytes, each computed before the next is loaded,
  // so its bandwidth is that window over the memory latency (Little's law). 0: the DMA window's.
  std::int64_t inflight_bytes_per_unit = 0;
  // A GEMV on the CUDA cores (TensorRT-LLM's batched weight-only and SmoothQuant GEMV, below 5
  // tokens; workloads/gemv_kernel.hpp): the steps each thread takes along K, each waiting for
  // its loads (a memory round trip) and then converting gemv_step_converts weight elements one
  // after another. Its CTAs resident on a unit run their chains side by side, so each wave of
  // them holds its units that long, beside the FMAs and the streaming (0: not such a kernel).
  double gemv_steps = 0;
  std::int64_t gemv_step_converts = 0;
  bool reads_resident = false;  // as GemmShape::reads_resident
  DType output_dtype() const { return out_same_as_in ? dtype : out_dtype; }
};

enum class Engine { matrix, vector };

struct OpCost {
  Engine engine = Engine::matrix;
  DType compute_dtype = DType::bf16;
  double flops = 0;
  double read_bytes = 0;
  double write_bytes = 0;
  bool reads_resident = false;  // the reads come from the tile buffer (GemmShape::reads_resident)
  double bytes() const { return read_bytes + write_bytes; }
  double intensity() const { return flops / bytes(); }
};

OpCost gemm_cost(const GemmShape& g);
OpCost vector_cost(const VectorShape& v);

// Which GEMMs a chip's near-memory units take (when it has them): none, unbatched GEMMs with
// at most pim.max_rows rows (decode GEMVs), or every unbatched GEMM.
enum class NearMemory { off, small_rows, all };
bool runs_near_memory(const HardwareSpec& hw, NearMemory policy, const GemmShape& g);

// Throws InputError for zero or negative dimensions; `what` names the op for the message.
void check_shape(const GemmShape& g, const std::string& what);
void check_shape(const VectorShape& v, const std::string& what);

// Parses "M,N,K" or "B,M,N,K" (batched) as given to --gemm.
GemmShape parse_gemm(const std::string& text, DType dtype);

}  // namespace roofsim
