// What a GPU GEMM library's kernels add to the tiles (components/tiling.cpp, components/chip.cpp,
// components/op_run.cpp): split-K's second kernel that reduces the fp32 partial tiles, the
// per-block promotion of block-scaled fp8 on the CUDA cores, HBM writes, resident operands,
// clusters and fixed CUTLASS tiles. Quantized kernels: tests/test_quantized_gemm_kernels.cpp.
#include <catch2/catch.hpp>

#include <array>

#include "components/matrix_unit.hpp"
#include "components/unit_model.hpp"
#include "tests/gemm_test_helpers.hpp"
#include "tests/test_util.hpp"
#include "validation/analytic.hpp"
#include "workloads/moe_kernels.hpp"

using namespace roofsim;
using namespace roofsim::gemm_test;

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

TEST_CASE("block-scaled fp8 GEMMs tile as DeepGEMM chooses: 64- or 128-row blocks, whole at the edges, A and B swapped below 32 rows", "[systemc][gemm]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  // 129 rows take two 128-row blocks; 2 x 48 tiles of 16 columns fill one wave of 132 SMs
  // best (block_n 16 ... 128: the fewest waves, then the fullest last wave).
  const OpResult just_over = run_one(hw, gemm(129, 768, 51200, DType::fp8, 128));
  CHECK(just_over.plan.find("unit tile 128x16") != std::string::npos);
  CHECK(just_over.plan.find("whole tiles at the edges") != std::string::npos);
  // The second block's single row costs as much as a full one: with loads past the edge free,
  // 129 rows take as long as 256.
  HardwareSpec free_edge = hw;
  free_edge.matrix.block_scaled_oob_row_cycles = 0;
  const OpResult full = run_one(free_edge, gemm(256, 768, 51200, DType::fp8, 128));
  CHECK(run_one(free_edge, gemm(129, 768, 51200, DType::fp8, 128)).seconds() == Approx(full.seconds()).epsilon(0.02));
  // Up to 64 rows, 64-row blocks.
  CHECK(run_one(hw, gemm(64, 1024, 4096, DType::fp8, 128)).plan.find("unit tile 64x16") != std::string::npos);
  // Below 32 rows the tokens run across the MMA's N in a block of 16 and the weights down its M
  // in blocks of 128: 8 tokens cost a quarter of a 64-row tile's MMAs, not a whole one.
  const OpResult swapped = run_one(hw, gemm(8, 8192, 8192, DType::fp8, 128));
  CHECK(swapped.plan.find("unit tile 16x128") != std::string::npos);
  CHECK(swapped.plan.find("A and B swapped") != std::string::npos);
  // Per-tensor fp8 keeps the library menu.
  CHECK(run_one(hw, gemm(129, 768, 51200, DType::fp8)).plan.find("whole tiles") == std::string::npos);
}

TEST_CASE("DeepGEMM's edge tiles pay for the rows of their box past the matrix, per 128 of K, where full boxes, 64-row boxes and the ideal chip pay nothing", "[systemc][gemm]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  REQUIRE(hw.matrix.block_scaled_oob_row_cycles > 0);
  HardwareSpec free_edge = hw;
  free_edge.matrix.block_scaled_oob_row_cycles = 0;
  auto extra = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    return run_one(hw, gemm(m, n, k, DType::fp8, 128)).seconds() - run_one(free_edge, gemm(m, n, k, DType::fp8, 128)).seconds();
  };
  // 129 rows: the second block's box loads 127 rows past the edge on each of 400 steps of 128
  // (measured: 163 us here against 81 us for 128 x 1536 x 51200 on the same tiles and waves;
  // roofsim deals a block's tiles to the units anew at each step, so the 48 edge tiles' cycles
  // spread over the units instead of staying on 48 SMs: the fitted cost is that schedule's).
  const OpResult edge = run_one(hw, gemm(129, 768, 51200, DType::fp8, 128));
  CHECK(edge.seconds() > 1.6 * run_one(hw, gemm(128, 1536, 51200, DType::fp8, 128)).seconds());
  CHECK(extra(129, 768, 51200) > 0);
  // The cost follows the rows past the edge: 31 at 225 rows against 127 at 129 (about a
  // quarter; the tiles' dealing over the units differs a little between the two).
  CHECK(extra(225, 768, 51200) > 0.1 * extra(129, 768, 51200));
  CHECK(extra(225, 768, 51200) < 0.3 * extra(129, 768, 51200));
  CHECK(extra(256, 768, 51200) == 0);
  // The plan says which kernels load past the edge: 128-row dense tiles, not 64-row or grouped ones.
  CHECK(edge.plan.find("edge boxes load past the last row") != std::string::npos);
  CHECK(run_one(hw, gemm(33, 768, 51200, DType::fp8, 128)).plan.find("past the last row") == std::string::npos);
  CHECK(run_one(hw, gemm(129, 768, 5120, DType::fp8, 128, 4, true)).plan.find("past the last row") == std::string::npos);
  CHECK(extra(33, 768, 51200) == 0);
  // Per-tensor fp8 (a library kernel) and the ideal chip pay nothing.
  CHECK(run_one(hw, gemm(129, 768, 51200, DType::fp8)).seconds() == run_one(free_edge, gemm(129, 768, 51200, DType::fp8)).seconds());
  CHECK(make_ideal(hw).matrix.block_scaled_oob_row_cycles == 0);
}

TEST_CASE("an MoE layer's grouped GEMM plans as a GPU kernel over every expert's tiles, K not split", "[systemc][gemm]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  auto grouped = [](std::int64_t experts, std::int64_t rows, std::int64_t n, std::int64_t k, bool is_grouped) {
    return gemm(rows, n, k, DType::bf16, 0, experts, is_grouped);
  };
  // Many experts: the kernel menu's CTA tile (128 x 256 at 128 rows), all experts side by side.
  const OpResult wide = run_one(hw, grouped(8, 128, 4096, 4096, true));
  CHECK(wide.plan.find("unit tile 128x256") != std::string::npos);
  // Two experts of 64 rows, narrow and deep: a handful of tiles walk all of K on a handful of
  // SMs, where the batched planner (attention's) cuts the tiles down to fill the units.
  const OpResult few_tiles = run_one(hw, grouped(2, 64, 256, 16384, true));
  const OpResult batched = run_one(hw, grouped(2, 64, 256, 16384, false));
  CHECK(few_tiles.plan.find("split-K") == std::string::npos);
  CHECK(few_tiles.seconds() > 1.5 * batched.seconds());
  CHECK(few_tiles.flops == batched.flops);
}

TEST_CASE("HBM writes stream at hbm.write_efficiency", "[systemc][gemm]") {
  HardwareSpec hw = load_hardware("h100_sxm5");
  REQUIRE(hw.hbm.write_efficiency < hw.hbm.efficiency);
  HardwareSpec no_write_cost = hw;
  no_write_cost.hbm.write_efficiency = hw.hbm.efficiency;
  // A short-K GEMM is its output's write: 1 GiB of bf16 output.
  const OpSpec big = gemm(65536, 8192, 64);
  const double slow = run_one(hw, big).seconds(), fast = run_one(no_write_cost, big).seconds();
  // Nearly all of the time is the write, so it stretches by nearly efficiency / write_efficiency.
  CHECK(slow / fast > 1.0 + 0.8 * (hw.hbm.efficiency / hw.hbm.write_efficiency - 1.0));
  CHECK(slow / fast < hw.hbm.efficiency / hw.hbm.write_efficiency + 1e-9);
  // A GEMM with long K reads and computes: only its last tiles' write (the tail) feels the write rate.
  const OpSpec square = gemm(4096, 4096, 4096);
  CHECK(run_one(hw, square).seconds() / run_one(no_write_cost, square).seconds() < 1.02);
}

TEST_CASE("coarse events write a GEMM's output tiles as the units finish them, as one event per tile does", "[systemc][gemm]") {
  const HardwareSpec hw = load_hardware("h200_sxm");
  // Write-bound (short K, one or few steps, several rounds of tiles per unit) and compute-bound
  // shapes. Before the writes left in parts, the coarse events wrote a step's whole output after
  // the last unit's last tile: 2048x8192x64 took 15.8 us coarse against 13.7 us per tile.
  for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
           {2048, 8192, 64}, {65536, 8192, 64}, {1024, 8192, 128}, {4096, 4096, 256}, {8192, 8192, 256}, {4096, 4096, 4096}}) {
    INFO(m << "x" << n << "x" << k);
    const OpSpec op = gemm(m, n, k);
    const double coarse = run_ops(hw, false, {op}).ops.front().result.seconds();
    const double fine = run_ops(hw, false, {op}, Granularity::fine).ops.front().result.seconds();
    CHECK(coarse == Approx(fine).epsilon(0.03));
  }
}

TEST_CASE("an op whose steps finish out of order loads each step into its own slot and ends after its last job", "[systemc][gemm]") {
  // A prefill attention call whose key steps land on unevenly loaded units: step 88 of 90
  // finishes after step 89. The next load once went into the slot of the oldest step still
  // computing, which counted that step done early; with the output written in parts the op then
  // ended before its last jobs ran (a use after free in the sanitizer build).
  const HardwareSpec hw = load_hardware("h100_sxm5");
  AttentionShape s;
  s.prefill = true;
  s.sequences = 16;
  s.new_tokens = s.context = 4096;
  s.heads = s.kv_heads = 4;
  s.head_dim = 256;
  s.precision.activations = s.precision.kv = DType::fp8;
  const std::vector<OpSpec> ops = attention_call_ops(s, "trtllm");
  const double coarse = run_ops(hw, false, ops).ops.back().result.seconds();
  const double fine = run_ops(hw, false, ops, Granularity::fine).ops.back().result.seconds();
  CHECK(coarse == Approx(fine).epsilon(0.02));
}

TEST_CASE("an op whose operands are resident in the L2 reads them there: faster than from HBM, never past its L2 roof", "[systemc][gemm]") {
  for (bool ideal : {false, true}) {
    const HardwareSpec hw = ideal ? make_ideal(load_hardware("h100_sxm5")) : load_hardware("h100_sxm5");
    // Short K, few columns: the reads of 16384 x 768 activations dominate (25 MB, within the L2's resident share).
    OpSpec from_hbm = gemm(16384, 64, 768);
    OpSpec resident = from_hbm;
    resident.gemm.reads_resident = true;
    const SimulatedOp hbm_run = run_ops(hw, ideal, {from_hbm}).ops.front();
    const SimulatedOp l2_run = run_ops(hw, ideal, {resident}).ops.front();
    INFO("ideal " << ideal << ": HBM " << hbm_run.result.seconds() << " s, L2 " << l2_run.result.seconds() << " s");
    CHECK(l2_run.result.plan.find("operands resident in the l2") != std::string::npos);
    CHECK(l2_run.result.seconds() < 0.7 * hbm_run.result.seconds());
    // The same bytes move, from another place: the L2 roof (9 TB/s) is lower than HBM's.
    CHECK(l2_run.result.bytes_read == hbm_run.result.bytes_read);
    CHECK(l2_run.bound.bound_time_s < hbm_run.bound.bound_time_s);
    CHECK(l2_run.result.seconds() >= l2_run.bound.bound_time_s);
    if (ideal) CHECK(l2_run.result.seconds() < 1.5 * l2_run.bound.bound_time_s);
  }
}

TEST_CASE("a kernel of one CTA per token pays vector.token_cta_cycles per wave of them after the first", "[systemc][gemm]") {
  HardwareSpec hw = load_hardware("h100_sxm5");
  hw.vector.token_cta_cycles = 3000;
  const double wave_s = 3000 / hw.matrix.sustained_clock_hz;
  auto seconds = [&](std::int64_t rows) {
    return run_one(hw, vector_op(fp8_token_quantize_shape(rows, 64), "quantize")).seconds();
  };
  // 132 SMs x 2 resident CTAs: 264 rows are one wave, whose start the op overhead holds; 2,640
  // rows are ten, nine of them paid (the rows' own bytes are a few hundred kilobytes).
  const double one = seconds(264), ten = seconds(2640);
  CHECK(ten - one == Approx(9 * wave_s).epsilon(0.1));
  // Without the stack's cycles the rows cost their bytes alone.
  hw.vector.token_cta_cycles = 0;
  CHECK(seconds(2640) - seconds(264) < 0.2 * 9 * wave_s);
}

TEST_CASE("a fused-MoE kernel's grouped tiles on 16-bit or fp8 experts run at the stack's share of the MMA rate", "[systemc][gemm]") {
  const HardwareSpec dense_rate = load_hardware("h200_sxm");
  REQUIRE(dense_rate.matrix.fused_moe_mma_share == 1.0);  // the chip's own files leave it to the stacks
  HardwareSpec triton = dense_rate;
  triton.matrix.fused_moe_mma_share = 0.5;
  auto ratio = [&](const OpSpec& op) { return run_one(triton, op).seconds() / run_one(dense_rate, op).seconds(); };
  // 64 experts of 256 rows (a prefill's): compute-bound, so the MMAs' half rate nearly doubles it.
  const OpSpec prefill = gemm(256, 1536, 4096, DType::bf16, 0, 64, true);
  CHECK(ratio(prefill) > 1.7);
  CHECK(ratio(prefill) < 2.05);
  // The FLOPs the units spent stay the tiles' MACs: the waiting is not counted as work.
  CHECK(run_one(triton, prefill).padded_flops == Approx(run_one(dense_rate, prefill).padded_flops).epsilon(1e-9));
  // Two rows per expert (a decode step's): the weights' reads bind, the rate hardly shows.
  CHECK(ratio(gemm(2, 1536, 4096, DType::bf16, 0, 64, true)) < 1.15);
  // Block-scaled fp8 experts run the same kernel.
  CHECK(ratio(gemm(256, 1536, 4096, DType::fp8, 128, 64, true)) > 1.5);
  // A dense GEMM, and experts of 4-bit weights (other kernels: Marlin, mixed-input GEMMs), do not.
  CHECK(ratio(gemm(16384, 1536, 4096)) == 1.0);
  OpSpec weight_only = prefill;
  weight_only.gemm.b = DType::int4;
  CHECK(ratio(weight_only) == 1.0);
  // vLLM and SGLang run their bf16 and fp8 experts through it; TensorRT-LLM's CUTLASS MoE does not.
  for (const char* stack : {"vllm", "sglang"}) CHECK(stack_matrix(stack).fused_moe_mma_share == Approx(0.5));
  CHECK(stack_matrix("trtllm-1.x").fused_moe_mma_share == 1.0);
  // Its weight-only experts run its Triton MoE, at a share of their own (fitted on moe.csv).
  CHECK(stack_matrix("trtllm-1.x").weight_only_moe_mma_share == Approx(0.5));
}

TEST_CASE("a ping-pong kernel's tiles run at the chip's ping-pong share of the rate, other kernels at the whole", "[systemc][gemm]") {
  HardwareSpec hw = load_hardware("h100_sxm5");
  hw.matrix.pingpong_mma_share = 0.8;
  OpSpec pingpong = gemm(4096, 8192, 8192, DType::fp8);  // compute-bound
  pingpong.gemm.kernel_pingpong = true;
  const OpSpec cooperative = gemm(4096, 8192, 8192, DType::fp8);
  CHECK(run_one(hw, pingpong).seconds() / run_one(hw, cooperative).seconds() == Approx(1 / 0.8).epsilon(0.05));
  hw.matrix.pingpong_mma_share = 1;  // the hardware file's own: no change
  CHECK(run_one(hw, pingpong).seconds() == run_one(hw, cooperative).seconds());
}

TEST_CASE("a kernel launched in clusters along M runs a padding row of tiles after an odd count, in both event granularities", "[systemc][gemm]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  // vLLM's scaled_mm above 128 tokens: 128 x 128 tiles in clusters of 2 along M.
  auto scaled_mm = [](std::int64_t m, std::int64_t cluster) {
    OpSpec op = gemm(m, 12288, 4096, DType::fp8);  // 96 columns of tiles: compute-bound waves
    op.gemm.kernel_no_split_k = true;
    op.gemm.kernel_tile_m = op.gemm.kernel_tile_n = 128;
    op.gemm.kernel_k_bytes = 128;
    op.gemm.kernel_cluster_m = cluster;
    return op;
  };
  CHECK(padding_tile_rows(scaled_mm(384, 2).gemm, 128) == 1);  // three rows of tiles, one more
  CHECK(padding_tile_rows(scaled_mm(512, 2).gemm, 128) == 0);
  CHECK(padding_tile_rows(scaled_mm(384, 1).gemm, 128) == 0);
  for (Granularity granularity : {Granularity::coarse, Granularity::fine}) {
    auto result = [&](const OpSpec& op) { return run_ops(hw, false, {op}, granularity).ops.front().result; };
    auto seconds = [&](const OpSpec& op) { return result(op).seconds(); };
    // Three rows of tiles in clusters of two cost what four do; an even count pays nothing.
    CHECK(seconds(scaled_mm(384, 2)) > 1.15 * seconds(scaled_mm(384, 1)));
    CHECK(seconds(scaled_mm(384, 2)) == Approx(seconds(scaled_mm(512, 1))).epsilon(0.05));
    CHECK(seconds(scaled_mm(512, 2)) == seconds(scaled_mm(512, 1)));
    // The padding tiles read and write nothing.
    const OpResult padded = result(scaled_mm(384, 2)), plain = result(scaled_mm(384, 1));
    CHECK(padded.bytes_read == plain.bytes_read);
    CHECK(padded.bytes_written == plain.bytes_written);
    CHECK(padded.flops == plain.flops);
  }
  // The plan says so.
  const OpResult r = run_one(hw, scaled_mm(384, 2));
  CHECK_THAT(r.plan, Catch::Contains("1 padding row of tiles (clusters of 2 along M)"));
}

TEST_CASE("a path that fixes its CUTLASS tile runs whole tiles of MMAs at the edges, as TMA fills the rest with zeros", "[systemc][gemm]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  // vLLM's scaled_mm above 128 tokens: 128 x 128 tiles whatever N; 32 columns fill a quarter of one.
  auto scaled_mm = [](std::int64_t m, std::int64_t n, bool fixed) {
    OpSpec op = gemm(m, n, 8192, DType::fp8);
    op.gemm.kernel_no_split_k = true;
    op.gemm.kernel_k_bytes = 128;
    if (fixed) op.gemm.kernel_tile_m = op.gemm.kernel_tile_n = 128;
    return op;
  };
  const OpResult narrow = run_one(hw, scaled_mm(4096, 32, true)), full = run_one(hw, scaled_mm(4096, 128, true));
  CHECK_THAT(narrow.plan, Catch::Contains("whole tiles at the edges"));
  // A 32-column tile's MMAs take what a 128-column one's do: a quarter of the FLOPs, the same cycles.
  CHECK(narrow.flops == Approx(full.flops / 4));
  CHECK(narrow.padded_flops == Approx(full.padded_flops));
  // The edge column of a wider matrix costs a whole column of tiles: 33 columns of tiles,
  // the last a quarter full, cost what 33 full ones do.
  const OpResult edge = run_one(hw, scaled_mm(4096, 4096 + 32, true)), whole = run_one(hw, scaled_mm(4096, 4096 + 128, true));
  CHECK(edge.padded_flops == Approx(whole.padded_flops));
  CHECK(edge.seconds() == Approx(whole.seconds()).epsilon(0.02));
  // A library picking its tile from its menu charges its edge tiles their own columns.
  const OpResult library = run_one(hw, scaled_mm(4096, 32, false));
  CHECK(library.plan.find("whole tiles") == std::string::npos);
  CHECK(library.padded_flops < 0.5 * narrow.padded_flops);
}


namespace {
// Matrix units at half the rate: each job takes twice its cycles' time (a model of a test's own,
// registered under a name as a library's would be).
class HalfRateUnits final : public UnitArray {
 public:
  HalfRateUnits(const sc_core::sc_module_name& name, const MatrixSpec& spec)
      : UnitArray(name, static_cast<std::size_t>(spec.units), MatrixUnits::cycles_to_ps(spec, matrix_job_latency_cycles(spec))), spec_(spec) {}

 private:
  Picoseconds service_ps(double cycles) const override { return MatrixUnits::cycles_to_ps(spec_, 2 * cycles); }
  const MatrixSpec& spec_;
};
class HalfRate : public UnitModel {
 public:
  std::string name() const override { return "test_half_rate"; }
  std::string summary() const override { return "matrix units at half the rate (a test's)"; }
  std::unique_ptr<ComputeTarget> build(const char* module_name, UnitFamily family, const HardwareSpec& hw) const override {
    if (family != UnitFamily::matrix) return nullptr;
    return std::make_unique<HalfRateUnits>(module_name, hw.matrix);
  }
  double peak_flops(UnitFamily family, const HardwareSpec& hw, DType t) const override {
    return family == UnitFamily::matrix ? hw.array_matrix_peak_flops(t) / 2 : 0;
  }
};
// Matrix units twice the file's rate that say so: the bound must follow them.
class DoubleRateUnits final : public UnitArray {
 public:
  DoubleRateUnits(const sc_core::sc_module_name& name, const MatrixSpec& spec)
      : UnitArray(name, static_cast<std::size_t>(spec.units), MatrixUnits::cycles_to_ps(spec, matrix_job_latency_cycles(spec))), spec_(spec) {}

 private:
  Picoseconds service_ps(double cycles) const override { return MatrixUnits::cycles_to_ps(spec_, cycles / 2); }
  const MatrixSpec& spec_;
};
class DoubleRate : public UnitModel {
 public:
  std::string name() const override { return "test_double_rate"; }
  std::string summary() const override { return "matrix units at twice the rate (a test's)"; }
  std::unique_ptr<ComputeTarget> build(const char* module_name, UnitFamily family, const HardwareSpec& hw) const override {
    if (family == UnitFamily::matrix) return std::make_unique<DoubleRateUnits>(module_name, hw.matrix);
    return unit_models().find("array")->build(module_name, family, hw);
  }
  double peak_flops(UnitFamily family, const HardwareSpec& hw, DType t) const override {
    return family == UnitFamily::matrix ? 2 * hw.array_matrix_peak_flops(t) : hw.array_vector_peak_flops();
  }
};
}  // namespace

TEST_CASE("the hardware file's [matrix] model builds the units the GEMMs run on", "[systemc][gemm]") {
  if (!unit_models().find("test_half_rate")) unit_models().add(std::make_unique<HalfRate>());
  HardwareSpec hw = load_hardware("h100_sxm5");
  const OpSpec square = gemm(8192, 8192, 8192);  // compute-bound: about 1 ms of array time
  const double array = run_ops(hw, false, {square}).ops.front().result.seconds();
  hw.matrix.model.name = "test_half_rate";
  const double half = run_ops(hw, false, {square}).ops.front().result.seconds();
  CHECK(half / array == Approx(2.0).epsilon(0.03));
  // A model without the family, or none of that name, is refused naming the key.
  hw.vector.model.name = "test_half_rate";
  CHECK_THROWS_WITH(run_ops(hw, false, {square}), Catch::Contains("vector.model") && Catch::Contains("has no vector units"));
  hw.vector.model.name = "array";
  hw.matrix.model.name = "nope";
  CHECK_THROWS_WITH(run_ops(hw, false, {square}), Catch::Contains("matrix.model") && Catch::Contains("expected one of") &&
                                                      Catch::Contains("array"));
  // A model's peak is the bound's: half-rate units lower it (none for the family it lacks).
  hw.matrix.model.name = "test_half_rate";
  CHECK(hw.matrix_peak_flops(DType::bf16) == Approx(hw.array_matrix_peak_flops(DType::bf16) / 2));
  hw.vector.model.name = "test_half_rate";
  CHECK_THROWS_WITH(hw.vector_peak_flops(), Catch::Contains("vector.model") && Catch::Contains("has no vector units"));
  hw.vector.model.name = "array";
  hw.matrix.model.name = "array";
  // A file naming no model at all is refused at its line, not run as the default.
  for (const char* table : {"matrix", "vector", "links"}) {
    const std::string text = std::string("base = \"h100_sxm5\"\n[") + table + "]\nmodel = \"\"\n";
    CHECK_THROWS_WITH(load_hardware(test::write_temp(text, "units.toml")),
                      Catch::Contains(".toml:3: " + std::string(table) + ".model") && Catch::Contains("empty"));
  }
}

TEST_CASE("matrix units faster than the file's rates raise the roofline with them: no op beats its bound", "[systemc][gemm]") {
  if (!unit_models().find("test_double_rate")) unit_models().add(std::make_unique<DoubleRate>());
  HardwareSpec hw = load_hardware("h100_sxm5");
  hw.matrix.model.name = "test_double_rate";
  CHECK(hw.matrix_peak_flops(DType::bf16) == Approx(2 * hw.array_matrix_peak_flops(DType::bf16)));
  CHECK(hw.vector_peak_flops() == Approx(hw.array_vector_peak_flops()));
  const OpSpec square = gemm(8192, 8192, 8192);  // compute-bound
  const OpResult fast = run_ops(hw, false, {square}).ops.front().result;
  const OpBound bound = bound_op(square.cost(), hw);
  CHECK(bound.roof == Roof::compute);
  CHECK(fast.seconds() >= bound.bound_time_s);
  // The units do run faster, and the file's rates give a bound twice as long.
  hw.matrix.model.name = "array";
  const OpResult array = run_ops(hw, false, {square}).ops.front().result;
  CHECK(fast.seconds() < 0.6 * array.seconds());
  CHECK(bound_op(square.cost(), hw).bound_time_s == Approx(2 * bound.bound_time_s));
}
