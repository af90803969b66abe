// The kernels of quantized and previous-generation GEMMs (components/gemm_kernel_plan.cpp,
// components/op_run.cpp, workloads/gemv_kernel.cpp): weight-only experts, Hopper's mixed-input
// kernel, TensorRT-LLM's CUDA-core GEMV, and mma.sync kernels on Ampere and Hopper.
#include <catch2/catch.hpp>

#include "tests/gemm_test_helpers.hpp"
#include "tests/test_util.hpp"
#include "workloads/gemv_kernel.hpp"
#include "workloads/moe_kernels.hpp"

using namespace roofsim;
using namespace roofsim::gemm_test;
using roofsim::test::write_temp;

TEST_CASE("weight-only experts' tiles convert their weights at a share of the MMA rate and take 16-row blocks", "[systemc][gemm]") {
  const HardwareSpec plain = load_hardware("h200_sxm");
  HardwareSpec marlin = plain;
  marlin.matrix.weight_only_moe_mma_share = 0.2;
  marlin.matrix.weight_only_moe_min_tile_rows = 16;
  auto experts = [](std::int64_t rows) {
    OpSpec op = gemm(rows, 5760, 2880, DType::bf16, 0, 128, true);  // gpt-oss's gate/up, 128 experts
    op.gemm.b = DType::mxfp4;
    return op;
  };
  auto ratio = [&](const OpSpec& op) { return run_one(marlin, op).seconds() / run_one(plain, op).seconds(); };
  // A prefill's 256 rows per expert: compute-bound, the conversion's share slows it about 1 / 0.2.
  CHECK(ratio(experts(256)) > 3.5);
  // A decode step's 2 rows per expert: 16-row tiles instead of 64 leave it bound by the 4-bit
  // weights' reads, so the share hardly shows (with 64-row tiles it would be compute-bound).
  CHECK(ratio(experts(2)) < 1.3);
  HardwareSpec wide_tiles = marlin;
  wide_tiles.matrix.weight_only_moe_min_tile_rows = 0;
  CHECK(run_one(wide_tiles, experts(2)).seconds() > 1.5 * run_one(marlin, experts(2)).seconds());
  // 16-bit experts, and block-scaled fp8 ones (their kernels compute in fp8), are not weight-only.
  CHECK(ratio(gemm(256, 1536, 4096, DType::bf16, 0, 64, true)) == 1.0);
  OpSpec block_fp8 = gemm(256, 1536, 4096, DType::fp8, 128, 64, true);
  block_fp8.gemm.a = DType::bf16;
  CHECK_FALSE(block_fp8.gemm.weight_only_grouped());
  for (const char* stack : {"vllm", "sglang"}) {
    CHECK(stack_matrix(stack).weight_only_moe_mma_share == Approx(0.2));
    CHECK(stack_matrix(stack).weight_only_moe_min_tile_rows == 16);
  }
  // A row count that is not whole, or beyond the MMA's granule, is refused with the key.
  for (const char* rows : {"8.5", "128"}) {
    const std::string path = write_temp("base = \"h200_sxm\"\n[matrix]\nweight_only_moe_min_tile_rows = " + std::string(rows) +
                                            "\n[provenance]\n\"matrix.weight_only_moe_min_tile_rows\" = \"assumed\"\n",
                                        "hw");
    CHECK_THROWS_WITH(load_hardware(path), Catch::Contains("weight_only_moe_min_tile_rows") && Catch::Contains("whole number"));
  }
}

TEST_CASE("a kernel on the previous generation's mma.sync issues half of Hopper's rate at the boost clock, and Ampere's is native", "[systemc][gemm]") {
  // A large int8 GEMM, compute-bound: TensorRT-LLM's SmoothQuant kernels (CUTLASS 2.x) on Hopper.
  OpSpec wgmma = gemm(8192, 8192, 8192, DType::int8);
  OpSpec legacy = wgmma;
  legacy.gemm.kernel_mma_sync = true;
  const HardwareSpec h200 = load_hardware("h200_sxm");
  REQUIRE(h200.matrix.mma_sync_rate == 0.5);
  const double native = run_one(h200, wgmma).seconds(), sync = run_one(h200, legacy).seconds();
  // Half the MACs per clock, at 1.98 GHz instead of the sustained 1.49: 0.66 of the rate.
  const double share = 0.5 * h200.vector.clock_hz / h200.matrix.sustained_clock_hz;
  CHECK(sync / native == Approx(1 / share).epsilon(0.05));
  // The same GEMM at the datasheet's int8 MACs per clock: about 1,070 TOPS, what the measured
  // SmoothQuant GEMMs reach at their largest (validation/kernels/h200/gemm_weight_only.csv).
  const double tops = 2.0 * 8192.0 * 8192.0 * 8192.0 / sync / 1e12;
  CHECK(tops > 950);
  CHECK(tops < 1100);
  // On an A100 mma.sync is the native instruction: no change.
  const HardwareSpec a100 = load_hardware("a100_sxm4_80gb");
  CHECK(a100.matrix.mma_sync_rate == 1);
  CHECK(run_one(a100, legacy).seconds() == run_one(a100, wgmma).seconds());
}

TEST_CASE("a weight-only GEMM on Hopper runs the mixed-input kernel: weights down the MMA's M, one CTA per tile walking K through a deep pipeline, conversion beside the MMAs", "[systemc][gemm]") {
  const HardwareSpec h200 = load_hardware("h200_sxm");
  auto weight_only = [](std::int64_t m, std::int64_t n, std::int64_t k, DType w = DType::int4) {
    OpSpec op = gemm(m, n, k);
    op.gemm.b = w;
    return op;
  };
  const TilingLimits lim = tiling_limits(h200);
  // TensorRT-LLM's sm90 menu: 64 or 128 weight columns, 16 to 256 tokens, K never split, whole
  // tiles, and as many stages as an SM's shared memory holds.
  const GemmPlan few_tokens = plan_gemm(weight_only(16, 512, 65536).gemm, h200.matrix, lim);
  CHECK(few_tokens.swap_ab);
  CHECK(few_tokens.whole_tiles);
  CHECK(few_tokens.k_on_one_unit);
  CHECK(few_tokens.k_parts() == 1);
  CHECK(few_tokens.reduce_parts == 0);
  CHECK((few_tokens.tn == 64 || few_tokens.tn == 128));
  CHECK(few_tokens.tm == 16);
  CHECK(few_tokens.stages > 4);
  // Below five tokens TensorRT-LLM runs its CUDA-core GEMV: the library plan, split-K allowed.
  const GemmPlan gemv = plan_gemm(weight_only(4, 512, 65536).gemm, h200.matrix, lim);
  CHECK_FALSE(gemv.swap_ab);
  CHECK(gemv.k_parts() > 1);
  // On an A100 mma.sync is native: no Hopper kernel, the library plan.
  const HardwareSpec a100 = load_hardware("a100_sxm4_80gb");
  CHECK_FALSE(mixed_input_kernel(weight_only(16, 512, 65536).gemm, a100.matrix));
  // 16-bit weights are not weight-only.
  CHECK_FALSE(mixed_input_kernel(gemm(16, 512, 65536).gemm, h200.matrix));

  // Eight CTAs of 64 columns each walk 1,024 k-tiles of 64 on their own SMs: with the conversion
  // at c cycles per weight element, longer than its 64 x 64 x c cycles per k-tile at the
  // sustained clock, and longer than the MMAs (64 x 16 x 64 MACs per k-tile) alone.
  HardwareSpec converting = h200;
  converting.matrix.mixed_input_convert_cycles = 0.05;
  const OpSpec narrow = weight_only(16, 512, 65536);
  const double per_k_tile = 64.0 * 64.0 * 0.05 / converting.matrix.sustained_clock_hz;
  const double with_conversion = run_one(converting, narrow).seconds();
  CHECK(with_conversion > 1024 * per_k_tile);
  CHECK(with_conversion < 1024 * per_k_tile * 1.3 + 20e-6);
  CHECK(run_one(h200, narrow).seconds() < with_conversion);
  // Where the tile's MMAs take longer than its conversion (many tokens), the conversion is hidden.
  const OpSpec wide = weight_only(4096, 4096, 4096, DType::int8);
  CHECK(run_one(converting, wide).seconds() == Approx(run_one(h200, wide).seconds()).epsilon(0.02));
  // The trtllm-1.x stack states its kernel's conversion cost.
  CHECK(stack_matrix("trtllm-1.x").mixed_input_convert_cycles > 0);
}

TEST_CASE("TensorRT-LLM's CUDA-core GEMV walks K in each CTA's threads: its time grows with K, not with the columns while the CTAs fit the SMs, and many small CTAs pay each its start", "[systemc][gemm]") {
  // The kernels as their sources lay them out: 128-thread CTAs of 8 columns (weight-only) or 2
  // (SmoothQuant's int8_sq), 16 bytes of a column's weights per thread and step.
  const VectorShape int4 = weight_only_gemv_shape(1, 256, 65536, DType::int4);
  CHECK(int4.kernel_ctas == 32);
  CHECK(int4.kernel_ctas_per_unit == 16);
  CHECK(int4.gemv_steps == Approx(16));  // 65,536 / (128 threads x 32 weights)
  CHECK(int4.gemv_step_converts == 8 * 32);
  CHECK(int4.flops_per_element == 2);
  const VectorShape sq = smoothquant_gemv_shape(4, 256, 65536);
  CHECK(sq.kernel_ctas == 128);
  CHECK(sq.gemv_steps == Approx(32));
  CHECK(sq.gemv_step_converts == 0);  // dp4a multiplies the int8 weights as they are

  Experiment e;
  e.hw = "h200_sxm";
  apply_stack(load_stack("trtllm-1.x"), e, false, false);
  REQUIRE(e.hardware);
  const HardwareSpec hw = *e.hardware;
  REQUIRE(hw.vector.gemv_convert_cycles > 0);
  REQUIRE(hw.vector.gemv_cta_cycles > 0);
  auto seconds = [](const HardwareSpec& h, const VectorShape& v) { return run_one(h, vector_op(v, "gemv")).seconds(); };
  // 32 or 64 CTAs each on its own SM: the same chain, whatever the columns (measured: 36-42 us
  // for 32 to 512 columns at K = 65,536).
  const double narrow = seconds(hw, int4);
  CHECK(seconds(hw, weight_only_gemv_shape(1, 512, 65536, DType::int4)) == Approx(narrow).epsilon(0.02));
  // Each of the 16 steps waits a memory round trip and converts 256 weights after it.
  const double chain = 16 * (hw.hbm.access_latency_s + 256 * hw.vector.gemv_convert_cycles / hw.matrix.sustained_clock_hz);
  CHECK(narrow > chain);
  CHECK(narrow < chain + 10e-6);
  // A quarter of K, a quarter of the chain.
  CHECK(seconds(hw, weight_only_gemv_shape(1, 256, 16384, DType::int4)) < narrow / 2);
  // Without the conversion the chain is the round trips alone.
  HardwareSpec free_convert = hw;
  free_convert.vector.gemv_convert_cycles = 0;
  CHECK(seconds(free_convert, int4) < narrow - 0.9 * 16 * 256 * hw.vector.gemv_convert_cycles / hw.matrix.sustained_clock_hz);
  // 8,192 CTAs of little work (K = 128): 63 on each SM, each paying its start after the last.
  const VectorShape many = weight_only_gemv_shape(1, 65536, 128, DType::int4);
  HardwareSpec free_ctas = hw;
  free_ctas.vector.gemv_cta_cycles = 0;
  const double per_sm = 63 * hw.vector.gemv_cta_cycles / hw.matrix.sustained_clock_hz;
  CHECK(seconds(hw, many) - seconds(free_ctas, many) == Approx(per_sm).epsilon(0.05));
}

TEST_CASE("an mma.sync kernel on Hopper takes Ampere's 64-byte k-tile, and a kernel that does not split K walks it whole", "[systemc][gemm]") {
  const HardwareSpec h200 = load_hardware("h200_sxm");
  const TilingLimits lim = tiling_limits(h200);
  OpSpec sq = gemm(32, 256, 16384, DType::int8);
  const GemmPlan wgmma_plan = plan_gemm(sq.gemm, h200.matrix, lim);
  CHECK(wgmma_plan.tk == 128);  // 128 bytes of int8 per k-tile, as the chip's own kernels
  CHECK(wgmma_plan.k_parts() > 1);  // two tiles on 132 SMs: K split
  sq.gemm.kernel_mma_sync = true;
  CHECK(plan_gemm(sq.gemm, h200.matrix, lim).tk == 64);
  sq.gemm.kernel_no_split_k = true;
  const GemmPlan whole = plan_gemm(sq.gemm, h200.matrix, lim);
  CHECK(whole.k_parts() == 1);
  CHECK(whole.reduce_parts == 0);
  // One CTA per tile walks 256 k-tiles: far longer than the split call.
  OpSpec split = sq;
  split.gemm.kernel_no_split_k = false;
  CHECK(run_one(h200, sq).seconds() > 2 * run_one(h200, split).seconds());
  // On an A100 mma.sync is the native path: its own k-tile.
  const HardwareSpec a100 = load_hardware("a100_sxm4_80gb");
  CHECK_FALSE(a100.matrix.warpgroup_mma());
}
