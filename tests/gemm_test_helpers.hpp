#pragma once
// What the GEMM kernel tests share (tests/test_gemm_kernels.cpp,
// tests/test_quantized_gemm_kernels.cpp): one GEMM op, one op run alone, and the H200's matrix
// unit as a stack sets it.
#include "experiment/single_op.hpp"
#include "experiment/stack.hpp"

namespace roofsim::gemm_test {

inline OpSpec gemm(std::int64_t m, std::int64_t n, std::int64_t k, DType t = DType::bf16, std::int64_t scale_block_k = 0,
                   std::int64_t batch = 1, bool grouped = false) {
  GemmShape g;
  g.batch = batch;
  g.grouped = grouped;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = g.b = t;
  g.c = DType::bf16;
  g.scale_block_k = scale_block_k;
  return gemm_op(g, "gemm");
}

inline OpResult run_one(const HardwareSpec& hw, const OpSpec& op) { return run_ops(hw, false, {op}).ops.front().result; }

// The H200's matrix unit as a software stack's [hardware] table sets it.
inline MatrixSpec stack_matrix(const char* stack) {
  Experiment e;
  e.hw = "h200_sxm";
  apply_stack(load_stack(stack), e, false, false);
  return e.hardware ? e.hardware->matrix : load_hardware(e.hw).matrix;
}

}  // namespace roofsim::gemm_test
