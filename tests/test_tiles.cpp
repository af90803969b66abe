// Tile timing and tiling plans: plain arithmetic, no kernel.
#include <catch2/catch.hpp>

#include "components/matrix_tile.hpp"
#include "components/tiling.hpp"

using namespace roofsim;

TEST_CASE("systolic tile cycles, padding included", "[tiles]") {
  MatrixSpec mxu = load_hardware("tpu_v4").matrix;
  CHECK(matrix_tile_cycles(mxu, {512, 128, 128}, DType::bf16) == 512);   // one pass, 512 rows
  CHECK(matrix_tile_cycles(mxu, {512, 128, 256}, DType::bf16) == 1024);  // two k passes
  CHECK(matrix_tile_cycles(mxu, {512, 256, 256}, DType::bf16) == 2048);  // 2 x 2 passes
  CHECK(matrix_tile_cycles(mxu, {8, 128, 128}, DType::bf16) == 128);     // weight load binds
  CHECK(matrix_tile_cycles(mxu, {100, 128, 128}, DType::bf16) == 128);   // 100 -> 104 rows < 128
  CHECK(matrix_tile_cycles(mxu, {130, 128, 128}, DType::bf16) == 136);   // 130 -> 136 rows
  CHECK(matrix_tile_cycles(mxu, {512, 100, 200}, DType::bf16) == 1024);  // n 100 -> 128, k 200 -> 256
}

TEST_CASE("tensor-core tile cycles, padding included", "[tiles]") {
  MatrixSpec sm = load_hardware("h100_sxm5").matrix;  // 2048 bf16 MACs/clk, granule 64 x 8 x 16
  CHECK(matrix_tile_cycles(sm, {128, 256, 64}, DType::bf16) == 128.0 * 256 * 64 / 2048);
  CHECK(matrix_tile_cycles(sm, {1, 256, 64}, DType::bf16) == 64.0 * 256 * 64 / 2048);  // m pads to 64
  // fp8 runs at twice the bf16 rate times its calibrated efficiency.
  CHECK(matrix_tile_cycles(sm, {128, 256, 64}, DType::fp8) ==
        Approx(128.0 * 256 * 64 / (4096 * sm.dtype_efficiency.at(DType::fp8))));
  CHECK(matrix_tile_cycles(sm, {64, 5, 10}, DType::bf16) == 64.0 * 8 * 16 / 2048);
}

TEST_CASE("GEMM plans fit the buffer and their traffic is what their steps load", "[tiles]") {
  for (const char* name : {"h100_sxm5", "tpu_v4", "a100_sxm4_80gb"}) {
    HardwareSpec hw = load_hardware(name);
    TilingLimits lim = tiling_limits(hw);
    for (GemmShape g : {GemmShape{1, 1, 4096, 4096}, GemmShape{1, 512, 4096, 11008},
                        GemmShape{1, 4096, 4096, 4096}, GemmShape{32, 512, 512, 128},
                        GemmShape{1, 300, 1000, 700},
                        GemmShape{1, 16, 8192, 8192, DType::bf16, DType::int4, DType::bf16}}) {
      INFO(name << " " << g.batch << "x" << g.m << "x" << g.n << "x" << g.k);
      GemmPlan p = plan_gemm(g, hw.matrix, lim);
      CHECK(p.footprint_bytes() <= lim.buffer_bytes);
      CHECK(p.stages >= 2);
      std::uint64_t loaded = 0, written = 0;
      for (std::int64_t i = 0; i < p.steps(); ++i) {
        GemmStep s = p.step(i);
        loaded += s.a_bytes + s.b_bytes;
        if (s.last_k) written += tensor_bytes(s.batch_count * s.m * s.n, g.c);
      }
      CHECK(loaded + written == p.traffic_bytes());
      CHECK(written == static_cast<std::uint64_t>(g.batch) * tensor_bytes(g.m * g.n, g.c));
      // Never less than reading every operand once.
      CHECK(static_cast<double>(p.traffic_bytes()) >= gemm_cost(g).bytes());
    }
  }
}

TEST_CASE("a GEMV reads each weight exactly once", "[tiles]") {
  HardwareSpec hw = load_hardware("h100_sxm5");
  GemmShape g{1, 1, 8192, 8192};
  GemmPlan p = plan_gemm(g, hw.matrix, tiling_limits(hw));
  CHECK(static_cast<double>(p.traffic_bytes()) == Approx(gemm_cost(g).bytes()).epsilon(0.01));
}

TEST_CASE("GPU GEMMs are planned as kernels: k-tiles, full work tiles, split-K for narrow deep shapes", "[tiles]") {
  HardwareSpec hw = load_hardware("h100_sxm5");
  REQUIRE(hw.matrix.kernel_k_bytes == 128);
  const TilingLimits lim = tiling_limits(hw);
  // Large: the configured 128 x 256 work tile, K in k-tiles of 64 bf16 elements (128 bytes).
  GemmPlan big = plan_gemm({1, 4096, 4096, 4096}, hw.matrix, lim);
  CHECK(big.tm == 128);
  CHECK(big.tn == 256);
  CHECK(big.tk == 64);
  CHECK(big.bk == 64);
  // fp8 k-tiles hold 128 elements: the same 128 bytes per row.
  GemmShape fp8{1, 4096, 4096, 4096, DType::fp8, DType::fp8, DType::bf16};
  CHECK(plan_gemm(fp8, hw.matrix, lim).tk == 128);
  // Narrow and deep: one tile of output, so K is split over the SMs (each job one k-tile).
  GemmPlan narrow = plan_gemm({1, 16, 32, 65536}, hw.matrix, lim);
  CHECK(narrow.tk == 64);
  CHECK(narrow.k_parts() > 100);
  // A library that never splits K (vLLM's CUTLASS scaled_mm): one CTA walks all of K.
  GemmShape unsplit{1, 16, 32, 65536};
  unsplit.kernel_no_split_k = true;
  CHECK(plan_gemm(unsplit, hw.matrix, lim).k_parts() == 1);
  // A path that fixes its tile for the shape (vLLM's scaled_mm by M and N bucket) gets it.
  GemmShape fixed{1, 4096, 4096, 4096, DType::fp8, DType::fp8, DType::bf16};
  fixed.kernel_tile_m = 64;
  fixed.kernel_tile_n = 128;
  const GemmPlan fixed_plan = plan_gemm(fixed, hw.matrix, lim);
  CHECK(fixed_plan.tm == 64);
  CHECK(fixed_plan.tn == 128);
  // Swapped (vLLM's scaled_mm for few tokens): 16 tokens stay 16 across the MMA's N, the weights'
  // 64 columns run down its M, and the path's k-tile of 256 bytes holds 256 fp8 values.
  GemmShape swapped{1, 16, 4096, 8192, DType::fp8, DType::fp8, DType::bf16};
  swapped.kernel_tile_m = 16;
  swapped.kernel_tile_n = 64;
  swapped.kernel_swap_ab = true;
  swapped.kernel_k_bytes = 256;
  swapped.kernel_no_split_k = true;
  const GemmPlan swapped_plan = plan_gemm(swapped, hw.matrix, lim);
  CHECK(swapped_plan.swap_ab);
  CHECK(swapped_plan.tm == 16);
  CHECK(swapped_plan.tn == 64);
  CHECK(swapped_plan.tk == 256);
  swapped.kernel_swap_ab = false;  // unswapped, the tokens pad to the MMA's 64 rows
  CHECK(plan_gemm(swapped, hw.matrix, lim).tm == 64);
  CHECK(narrow.tiles_per_block() <= lim.units);
  CHECK(static_cast<double>(narrow.traffic_bytes()) == Approx(gemm_cost(narrow.shape).bytes()).epsilon(0.01));
  // A TPU compiler's tiling is untouched: no k-tiles.
  HardwareSpec tpu = load_hardware("tpu_v4");
  CHECK(plan_gemm({1, 4096, 4096, 4096}, tpu.matrix, tiling_limits(tpu)).tk == 0);
}

TEST_CASE("a GEMM that cannot be tiled into the buffer is refused", "[tiles]") {
  HardwareSpec hw = load_hardware("h100_sxm5");
  TilingLimits lim = tiling_limits(hw);
  lim.buffer_bytes = 1000;
  CHECK_THROWS_WITH(plan_gemm({1, 64, 64, 64}, hw.matrix, lim), Catch::Contains("do not fit"));
}

TEST_CASE("vector plans cover every element once", "[tiles]") {
  HardwareSpec hw = load_hardware("h100_sxm5");
  VectorShape v{3'000'001, 1'000, 2.0, DType::bf16};
  VectorPlan p = plan_vector(v, tiling_limits(hw));
  std::uint64_t in = 0, out = 0;
  double flops = 0;
  for (std::int64_t i = 0; i < p.steps(); ++i) {
    VectorStep s = p.step(i);
    in += s.in_bytes;
    out += s.out_bytes;
    flops += s.flops;
  }
  CHECK(in == 3'000'001ull * 2);
  CHECK(out == 1'000ull * 2);
  CHECK(flops == Approx(6'000'002.0));
}

TEST_CASE("systolic dataflows fold a tile as SCALE-Sim does, with loads overlapped or not", "[tiles]") {
  MatrixSpec mxu = load_hardware("tpu_v4").matrix;  // 128 x 128, loads 128 cycles, overlapped
  REQUIRE(matrix_dataflow(mxu) == Dataflow::weight_stationary);
  CHECK(matrix_job_latency_cycles(mxu) == 256);  // one fill and drain per job
  // Output-stationary: M over the rows, N over the columns, K streams: 4 folds of 128.
  mxu.dataflow = "output_stationary";
  CHECK(matrix_tile_cycles(mxu, {512, 128, 128}, DType::bf16) == 4 * 128);
  CHECK(matrix_tile_cycles(mxu, {100, 128, 128}, DType::bf16) == 128);  // 100 rows fill one fold
  // Input-stationary: K over the rows, M over the columns, N streams: 4 folds of 128.
  mxu.dataflow = "input_stationary";
  CHECK(matrix_tile_cycles(mxu, {512, 128, 128}, DType::bf16) == 4 * 128);
  CHECK(matrix_tile_cycles(mxu, {128, 8, 128}, DType::bf16) == 128);  // 8 columns of B cannot hide the load
  // Not overlapped: every fold loads, streams, then fills and drains (128 + 128 - 2).
  mxu.weight_load_overlap = false;
  CHECK(matrix_job_latency_cycles(mxu) == 0);
  CHECK(matrix_tile_cycles(mxu, {512, 128, 128}, DType::bf16) == 4 * (128 + 128 + 254));
  mxu.dataflow = "output_stationary";
  CHECK(matrix_tile_cycles(mxu, {512, 128, 128}, DType::bf16) == 4 * (128 + 254));
  mxu.dataflow = "weight_stationary";
  CHECK(matrix_tile_cycles(mxu, {512, 128, 128}, DType::bf16) == 128 + 512 + 254);
  CHECK(matrix_tile_cycles(mxu, {1, 256, 256}, DType::bf16) == 4 * (128 + 8 + 254));  // 1 row pads to 8
  // The older key alone still means weight-stationary.
  mxu.dataflow.clear();
  mxu.weight_stationary = true;
  CHECK(matrix_dataflow(mxu) == Dataflow::weight_stationary);
  mxu.weight_stationary = false;
  CHECK(matrix_dataflow(mxu) == Dataflow::none);
}

TEST_CASE("a context FMHA's CTAs keep a whole query tile and head, a plain fused attention is split to fill the units", "[tiles]") {
  HardwareSpec hw = load_hardware("h100_sxm5");
  const TilingLimits lim = tiling_limits(hw);
  // One sequence, one KV head of one query head, 1024 tokens, head dim 128: 8 query tiles of
  // 128 rows, fewer than the 132 SMs.
  GemmShape g{1, 1024, 128, 512, DType::bf16, DType::bf16, DType::bf16, true};
  const GemmPlan split = plan_gemm(g, hw.matrix, lim);
  CHECK(split.tm * split.tn < 128 * 128);  // halved to give more units a tile
  g.kernel_ctas = 8;
  const GemmPlan whole = plan_gemm(g, hw.matrix, lim);
  CHECK(whole.tm == 128);
  CHECK(whole.tn == 128);
  CHECK(whole.bb * whole.tiles_per_block() <= 8);
}
