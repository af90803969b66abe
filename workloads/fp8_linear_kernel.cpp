#include "workloads/fp8_linear_kernel.hpp"

namespace roofsim {

const std::vector<std::string>& fp8_linear_kernel_names() {
  static const std::vector<std::string> names{"library", "cutlass_scaled_mm"};
  return names;
}

std::optional<Fp8LinearKernel> parse_fp8_linear_kernel(const std::string& name) {
  const std::vector<std::string>& names = fp8_linear_kernel_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<Fp8LinearKernel>(i);
  }
  return std::nullopt;
}

// vLLM's CUTLASS scaled_mm on Hopper (csrc/quantization/w8a8/cutlass/c3x/
// scaled_mm_sm90_fp8_dispatch.cuh, the dispatch since the kernels moved under w8a8/): by M,
// - at most 16 tokens: A and B swapped, 64 weight columns x 16 tokens x 256 bytes of K;
// - 17 to 64: swapped, 64 x 16 x 256 up to N = 1280, else 64 x 64 x 256;
// - 65 to 128: 64 tokens x 128 columns x 128 bytes; above, 128 x 128 x 128; both on the
//   ping-pong schedule (KernelTmaWarpSpecializedPingpongFP8FastAccum), the swapped ones not.
// Clusters along the tokens (the swapped configurations' cluster N is the tokens' dimension):
// 1x2 at most 16 tokens and N <= 1280, 1x4 at 17-64 tokens and N <= 1280, 2x1 above 64.
ScaledMmTile vllm_fp8_tile(std::int64_t m, std::int64_t n) {
  if (m <= 16) return {16, 64, true, 256, false, n <= 1280 ? 2 : 1};
  if (m <= 64) return {n <= 1280 ? 16 : 64, 64, true, 256, false, n <= 1280 ? 4 : 1};
  if (m <= 128) return {64, 128, false, 128, true, 2};
  return {128, 128, false, 128, true, 2};
}

void apply_fp8_linear_kernel(GemmShape& g, Fp8LinearKernel k) {
  if (k != Fp8LinearKernel::cutlass_scaled_mm) return;
  g.kernel_no_split_k = true;  // its persistent schedule gives each CTA a tile's whole K
  const ScaledMmTile t = vllm_fp8_tile(g.m, g.n);
  g.kernel_tile_m = t.rows;
  g.kernel_tile_n = t.cols;
  g.kernel_swap_ab = t.swap_ab;
  g.kernel_k_bytes = t.k_bytes;
  g.kernel_pingpong = t.pingpong;
  g.kernel_cluster_m = t.cluster_m;
}

}  // namespace roofsim
