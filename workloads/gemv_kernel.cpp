// TensorRT-LLM's CUDA-core GEMVs as vector ops (declared in gemv_kernel.hpp).
#include "workloads/gemv_kernel.hpp"

#include "core/checked.hpp"

namespace roofsim {

namespace {

constexpr std::int64_t kThreads = 128;
// 128-thread CTAs with few registers: the SM's 2,048 threads hold 16 of them.
constexpr std::int64_t kResidentCtas = 16;
// Each thread loads 16 bytes of a column's weights per step (an int4 vector access).
constexpr double kAccessBytes = 16;

VectorShape gemv_shape(std::int64_t m, std::int64_t n, std::int64_t k, DType weights, std::int64_t columns, bool converts) {
  const auto step_k = static_cast<std::int64_t>(kAccessBytes / dtype_bytes(weights));
  VectorShape v;
  v.elements_in = checked_mul(n, k, "a GEMV's weights (n x k)");
  v.elements_out = checked_mul(m, n, "a GEMV's outputs (m x n)");
  v.flops_per_element = 2.0 * static_cast<double>(m);  // a multiply-add per token
  v.dtype = weights;
  v.out_dtype = DType::bf16;
  v.out_same_as_in = false;
  v.kernel_ctas = (n + columns - 1) / columns;
  v.kernel_ctas_per_unit = kResidentCtas;
  // K over what one step of all the CTA's threads covers; a K shorter than one step keeps only
  // some threads busy and is counted as the fraction it is.
  v.gemv_steps = static_cast<double>(k) / static_cast<double>(step_k * kThreads);
  v.gemv_step_converts = converts ? step_k * columns : 0;
  return v;
}

}  // namespace

VectorShape weight_only_gemv_shape(std::int64_t m, std::int64_t n, std::int64_t k, DType weights) {
  return gemv_shape(m, n, k, weights, 8, true);
}

VectorShape smoothquant_gemv_shape(std::int64_t m, std::int64_t n, std::int64_t k) {
  return gemv_shape(m, n, k, DType::int8, 2, false);
}

}  // namespace roofsim
