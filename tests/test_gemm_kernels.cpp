// What a GPU GEMM library's kernels add to the tiles (components/tiling.cpp, components/chip.cpp,
// components/op_run.cpp): split-K's second kernel that reduces the fp32 partial tiles, and the
// per-block promotion of block-scaled fp8 on the CUDA cores.
#include <catch2/catch.hpp>

#include "experiment/single_op.hpp"

using namespace roofsim;

namespace {
OpSpec gemm(std::int64_t m, std::int64_t n, std::int64_t k, DType t = DType::bf16, std::int64_t scale_block_k = 0) {
  GemmShape g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = g.b = t;
  g.c = DType::bf16;
  g.scale_block_k = scale_block_k;
  return gemm_op(g, "gemm");
}

OpResult run_one(const HardwareSpec& hw, const OpSpec& op) { return run_ops(hw, false, {op}).ops.front().result; }
}  // namespace

TEST_CASE("split-K over many parts reduces its fp32 partials in a second kernel, few parts meet on chip", "[systemc][gemm]") {
  HardwareSpec hw = load_hardware("h100_sxm5");
  REQUIRE(hw.matrix.split_k_reduce_min_parts > 0);
  // One output tile, deep K: split over the SMs, the partials reduced by a second kernel.
  const OpSpec narrow = gemm(16, 64, 8192);
  const OpResult with = run_one(hw, narrow);
  CHECK(with.plan.find("partials reduced by a second kernel") != std::string::npos);
  HardwareSpec on_chip = hw;
  on_chip.matrix.split_k_reduce_min_parts = 0;
  const OpResult without = run_one(on_chip, narrow);
  CHECK(without.plan.find("second kernel") == std::string::npos);
  // The second kernel costs at least one more kernel start, and reads the partials.
  CHECK(with.seconds() - without.seconds() >= hw.op_overhead_s);
  CHECK(with.bytes_read > without.bytes_read);
  CHECK(with.bytes_written == 2 * without.bytes_written);
  // A GEMM with tiles for every SM is not split, so it pays nothing.
  const OpSpec wide = gemm(4096, 4096, 4096);
  CHECK(run_one(hw, wide).seconds() == run_one(on_chip, wide).seconds());
  // The ideal chip has no second kernel.
  CHECK(run_one(make_ideal(hw), narrow).plan.find("second kernel") == std::string::npos);
}

TEST_CASE("block-scaled fp8 promotes its accumulators per block of K and does not split K", "[systemc][gemm]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  // Compute-bound: the promotions (two FLOPs per accumulator per 128 of K on 256 FLOP/clock
  // CUDA cores) come on top of the MMAs.
  const OpResult per_tensor = run_one(hw, gemm(4096, 4096, 4096, DType::fp8));
  const OpResult block = run_one(hw, gemm(4096, 4096, 4096, DType::fp8, 128));
  CHECK(block.seconds() > 1.1 * per_tensor.seconds());
  CHECK(block.seconds() < 1.5 * per_tensor.seconds());
  CHECK(block.flops == per_tensor.flops);  // the useful work is the same
  // Few tiles, deep K: the block-scaled kernel keeps one CTA per tile, per-tensor fp8 splits K.
  const OpResult split = run_one(hw, gemm(16, 256, 16384, DType::fp8));
  const OpResult serial = run_one(hw, gemm(16, 256, 16384, DType::fp8, 128));
  CHECK(split.plan.find("split-K") != std::string::npos);
  CHECK(serial.plan.find("split-K") == std::string::npos);
  CHECK(serial.seconds() > 2 * split.seconds());
}
