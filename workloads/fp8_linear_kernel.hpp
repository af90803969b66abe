#pragma once
// Which kernel runs a per-tensor fp8 linear (fp8 weights and activations, one scale each): a
// software stack's choice (configs/stacks, key fp8_linear), read by the forward graph and by the
// kernel tables' reader alike, so a serving run and a measured call of the same stack plan the
// same GEMM.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/op_cost.hpp"

namespace roofsim {

enum class Fp8LinearKernel {
  // A GEMM library's heuristic (cuBLASLt, as TensorRT-LLM's fp8 linear calls it): its tiles and
  // split-K as roofsim's kernel planner chooses them for the chip.
  library,
  // vLLM's CUTLASS scaled_mm on Hopper (csrc/quantization/w8a8/cutlass/c3x): one CTA tile per
  // bucket of M and N, a persistent schedule that never splits K.
  cutlass_scaled_mm,
};

// The names a stack file gives them (fp8_linear = NAME), in the enum's order.
const std::vector<std::string>& fp8_linear_kernel_names();
std::optional<Fp8LinearKernel> parse_fp8_linear_kernel(const std::string& name);

// The CTA tile a path fixes: token rows x weight columns, whether A and B are swapped (the
// weights then run down the MMA's M), and the bytes of K per k-tile.
struct ScaledMmTile {
  std::int64_t rows = 0, cols = 0;
  bool swap_ab = false;
  std::int64_t k_bytes = 0;
  bool pingpong = false;  // KernelTmaWarpSpecializedPingpong (matrix.pingpong_mma_share)
  std::int64_t cluster_m = 1;  // CTAs per cluster along the tokens (the ClusterShape's)
};
// vLLM's CTA tile for an M x N scaled_mm.
ScaledMmTile vllm_fp8_tile(std::int64_t m, std::int64_t n);

// Plans `g` (an fp8 x fp8 GEMM with per-tensor scales) as kernel `k` launches it.
void apply_fp8_linear_kernel(GemmShape& g, Fp8LinearKernel k);

}  // namespace roofsim
