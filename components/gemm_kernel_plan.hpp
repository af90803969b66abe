#pragma once
// How a GPU GEMM library's kernel tiles a GEMM (components/gemm_kernel_plan.cpp): cuBLAS's and
// CUTLASS's tile menus and split-K, DeepGEMM's block-scaled tiles, Hopper's mixed-input
// weight-only kernel. Internal to the tiler (components/tiling.cpp), with the helpers they share.
#include <cstdint>
#include <vector>

#include "components/tiling.hpp"

namespace roofsim {

// A GEMM planned as the GPU kernel a library launches for it (matrix.kernel_k_bytes set).
GemmPlan plan_gemm_kernel(const GemmShape& g, const MatrixSpec& spec, const TilingLimits& lim);

namespace tiling_detail {
std::int64_t ceil_div(std::int64_t a, std::int64_t b);
std::int64_t round_up(std::int64_t v, std::int64_t g);
// Block sizes to try along one dimension: granule x 2^i, and the whole (padded) extent.
std::vector<std::int64_t> block_candidates(std::int64_t extent, std::int64_t granule);
// More stages let loads run further ahead of compute (as multistage GEMM kernels do): as many
// as the buffer holds, up to four.
GemmPlan deepest_pipeline(GemmPlan plan, const TilingLimits& lim);
}  // namespace tiling_detail

}  // namespace roofsim
