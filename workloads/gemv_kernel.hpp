#pragma once
// TensorRT-LLM's GEMVs on the CUDA cores, which its weight-only and SmoothQuant plugins run for
// at most four tokens instead of a tensor-core GEMM: as vector ops whose CTAs each own a few
// weight columns and walk the whole of K, one dependent step after another.
#include <cstdint>

#include "workloads/op_cost.hpp"

namespace roofsim {

// The most tokens those plugins give their GEMV (WeightOnlyQuantMatmulPlugin's
// SMALL_M_FAST_PATH = 5 runs it below 5; the SmoothQuant plugin's int8_sq dispatches m = 1..4).
inline constexpr std::int64_t kGemvMaxTokens = 4;
// The most tokens the weight-only GEMV's dispatcher runs (kernelDispatcher.h: m = 1 to 15). Its
// plugin's profiler times it beside the CUTLASS tactics (cutlass_heuristic.cpp adds an
// enableCudaKernel config to a weight-only runner's candidates), so up to this many tokens the
// faster of the two at the tuned count runs.
inline constexpr std::int64_t kGemvDispatchMaxTokens = 15;

// The weight-only plugin's batched GEMV (kernels/weightOnlyBatchedGemv, per-channel scales,
// Hopper's interleaved layout): 128-thread CTAs of 8 weight columns; each thread loads 16 bytes
// of weights per column per step and converts them to 16 bits before its multiply-adds, so a
// step covers 128 x (16 bytes of weights) of K. `weights`: int4 or int8.
VectorShape weight_only_gemv_shape(std::int64_t m, std::int64_t n, std::int64_t k, DType weights);

// The SmoothQuant plugin's int8_sq kernel: 128-thread CTAs of 2 columns, 16 int8 weights per
// column and thread per step, multiplied with dp4a as they are (nothing converted).
VectorShape smoothquant_gemv_shape(std::int64_t m, std::int64_t n, std::int64_t k);

}  // namespace roofsim
