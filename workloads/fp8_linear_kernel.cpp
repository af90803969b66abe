#include "workloads/fp8_linear_kernel.hpp"

#include <array>
#include <tuple>
#include <vector>

namespace roofsim {

const char* fp8_linear_kernel_names() { return "library, cutlass_scaled_mm"; }

std::optional<Fp8LinearKernel> parse_fp8_linear_kernel(const std::string& name) {
  if (name == "library") return Fp8LinearKernel::library;
  if (name == "cutlass_scaled_mm") return Fp8LinearKernel::cutlass_scaled_mm;
  return std::nullopt;
}

const char* fp8_linear_kernel_name(Fp8LinearKernel k) { return k == Fp8LinearKernel::library ? "library" : "cutlass_scaled_mm"; }

// vLLM's CUTLASS scaled_mm on Hopper picks its CTA tile by M and N buckets
// (csrc/quantization/cutlass_w8a8/c3x/scaled_mm_sm90_fp8_dispatch.cuh): M <= 64: 64x64 below
// N 8192, else 64x128; M <= 128: 64x64 to N 4096, 64x128 to 8192, 128x128 to 16384, else
// 128x64; M <= 256: 64x128 to N 4096, 128x128 to 8192, 128x256 to 16384, 128x128 to 24576,
// else 256x128; M <= 3072: 128x128 to N 4096, 128x256 to 8192, 128x128 to 16384, 128x256 to
// 24576, else 64x256; above, 128x128.
std::pair<std::int64_t, std::int64_t> vllm_fp8_tile(std::int64_t m, std::int64_t n) {
  struct Bucket {
    std::int64_t m_max;  // the M bucket's upper bound (inclusive)
    std::vector<std::array<std::int64_t, 3>> by_n;  // {N upper bound (inclusive), tile rows, tile columns}
  };
  constexpr std::int64_t K = 1024, any = INT64_MAX;
  static const std::vector<Bucket> buckets = {
      {64, {{8 * K - 1, 64, 64}, {any, 64, 128}}},
      {128, {{4 * K, 64, 64}, {8 * K, 64, 128}, {16 * K, 128, 128}, {any, 128, 64}}},
      {256, {{4 * K, 64, 128}, {8 * K, 128, 128}, {16 * K, 128, 256}, {24 * K, 128, 128}, {any, 256, 128}}},
      {3072, {{4 * K, 128, 128}, {8 * K, 128, 256}, {16 * K, 128, 128}, {24 * K, 128, 256}, {any, 64, 256}}},
      {any, {{any, 128, 128}}},
  };
  for (const Bucket& b : buckets) {
    if (m > b.m_max) continue;
    for (const auto& [n_max, tm, tn] : b.by_n) {
      if (n <= n_max) return {tm, tn};
    }
  }
  return {128, 128};
}

void apply_fp8_linear_kernel(GemmShape& g, Fp8LinearKernel k) {
  if (k != Fp8LinearKernel::cutlass_scaled_mm) return;
  g.kernel_no_split_k = true;  // its persistent schedule gives each CTA a tile's whole K
  std::tie(g.kernel_tile_m, g.kernel_tile_n) = vllm_fp8_tile(g.m, g.n);
}

}  // namespace roofsim
