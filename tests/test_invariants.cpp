// The design's invariants on the simulated chip: all of them for H100 and TPU v4, and the
// bound, counts and ridge for every other hardware preset. Each test case is one
// simulation (one process); cases that compare hardware run the chips side by side.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "components/simulation.hpp"
#include "components/sweep.hpp"
#include "core/presets.hpp"
#include "validation/analytic.hpp"
#include "validation/knee.hpp"

using namespace roofsim;

namespace {

OpSpec gemm_op(std::int64_t b, std::int64_t m, std::int64_t n, std::int64_t k, DType a, DType w) {
  OpSpec op;
  op.gemm = GemmShape{b, m, n, k, a, w, a};
  op.name = std::to_string(b) + "x" + std::to_string(m) + "x" + std::to_string(n) + "x" +
            std::to_string(k) + " " + std::string(dtype_name(a)) + "/" + std::string(dtype_name(w));
  return op;
}

OpSpec add_op(std::int64_t n, DType t) {
  OpSpec op;
  op.is_gemm = false;
  op.vector = VectorShape{2 * n, n, 0.5, t};
  op.name = "add " + std::to_string(n);
  return op;
}

double bound_of(const OpSpec& op, const HardwareSpec& hw) {
  return bound_op(op.cost(), hw).bound_time_s;
}

// 200 random GEMMs (some batched, some weight-only quantized) in the dtypes the chip computes.
std::vector<OpSpec> random_gemms(const HardwareSpec& hw, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<DType> dtypes;
  for (const auto& [t, rate] : hw.matrix.dtype_rate) {
    if (t != DType::tf32) dtypes.push_back(t);
  }
  auto dim = [&](int max_log2) {
    std::uniform_real_distribution<double> u(0, max_log2);
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::pow(2.0, u(rng))));
  };
  std::vector<OpSpec> ops;
  for (int i = 0; i < 200; ++i) {
    DType a = dtypes[rng() % dtypes.size()];
    DType w = (rng() % 5 == 0) ? DType::int4 : a;
    std::int64_t batch = (rng() % 4 == 0) ? dim(5) : 1;
    // Drawn one by one: the order in which a call's arguments are evaluated differs between
    // compilers (gcc right to left, clang left to right), and the shapes must not.
    const std::int64_t m = dim(12), n = dim(13), k = dim(13);
    ops.push_back(gemm_op(batch, m, n, k, a, w));
  }
  // Fused attention: (sequences x KV heads) pairs, query rows, head_dim 64-256, keys.
  for (int i = 0; i < 20; ++i) {
    const std::int64_t pairs = dim(8), rows = dim(11), head_dim = 64 << (rng() % 3), keys = dim(13);
    OpSpec op = gemm_op(pairs, rows, head_dim, keys, dtypes[0], dtypes[0]);
    op.gemm.fused_attention = true;
    op.name += " fused attention";
    ops.push_back(op);
  }
  // MLA's attentions: prefill (qk 192, v 128) and decode over the shared latent (576, 512),
  // with the query heads of a sequence as its rows.
  for (int i = 0; i < 10; ++i) {
    const bool decode = i % 2 == 1;
    const std::int64_t sequences = dim(7);
    const std::int64_t rows = decode ? 16 << (rng() % 4) : dim(11);
    const std::int64_t keys = dim(13);
    OpSpec op = gemm_op(sequences, rows, decode ? 576 : 192, keys, dtypes[0], dtypes[0]);
    op.gemm.fused_attention = true;
    op.gemm.v_n = decode ? 512 : 128;
    op.gemm.shared_kv = decode;
    op.name += decode ? " MLA decode attention" : " MLA prefill attention";
    ops.push_back(op);
  }
  return ops;
}

void check_never_beats_bound_and_counts_match(const char* preset) {
  HardwareSpec hw = load_hardware(preset);
  std::vector<OpSpec> ops = random_gemms(hw, 20261121);
  SimulationOutcome out = simulate({ChipJob{hw, Granularity::coarse, ops}});
  const TilingLimits lim = tiling_limits(hw);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const OpResult& r = out.chips[0].ops[i];
    const GemmShape& g = ops[i].gemm;
    INFO(ops[i].name << " plan " << r.plan);
    // Near-memory units (h100_pim) are bound by their own roofline, inside the stacks.
    CHECK(r.seconds() >= (r.near_memory ? bound_near_memory(g, hw).bound_time_s : bound_of(ops[i], hw)));
    // Invariant 5: FLOPs executed are the op's; bytes moved are the plan's (reuse included),
    // never fewer than reading each operand once.
    CHECK(r.flops == Approx(gemm_cost(g).flops).epsilon(1e-12));
    if (r.plan.rfind("near-memory", 0) == 0) {
      // On near-memory units (h100_pim) the weights never cross the chip's interface: what
      // moves is the activations, broadcast to every channel's unit, and the results back.
      CHECK(r.bytes_read == tensor_bytes(g.batch * g.m * g.k, g.a) * static_cast<std::uint64_t>(hw.hbm.channels));
      CHECK(r.bytes_written == tensor_bytes(g.batch * g.m * g.n, g.c));
      continue;
    }
    const GemmPlan plan = plan_gemm(g, hw.matrix, lim);
    if (dtype_whole_bytes(g.a) && dtype_whole_bytes(g.b)) {
      // A split-K reduction kernel reads the fp32 partials and writes the output a second time.
      CHECK(r.bytes_read + r.bytes_written == plan.traffic_bytes() + plan.reduction_traffic_bytes());
      CHECK(r.bytes_written == static_cast<std::uint64_t>(g.batch) * tensor_bytes(g.c_elements_per_batch(), g.c) *
                                   (plan.reduce_parts > 0 ? 2 : 1));
    } else {
      // Packed int4 and fp4 with their scales: each load or write-back rounds its part bytes
      // up, the closed form rounds per matrix, so they may differ by under a byte per operand
      // load and per output matrix.
      const double diff = std::abs(static_cast<double>(r.bytes_read + r.bytes_written) -
                                   static_cast<double>(plan.traffic_bytes() + plan.reduction_traffic_bytes()));
      CHECK(diff <= 2.0 * static_cast<double>(plan.steps()) + static_cast<double>(g.batch));
      const double written = static_cast<double>(g.batch) * static_cast<double>(tensor_bytes(g.c_elements_per_batch(), g.c)) *
                             (plan.reduce_parts > 0 ? 2.0 : 1.0);
      CHECK(std::abs(static_cast<double>(r.bytes_written) - written) <= static_cast<double>(g.batch));
    }
    CHECK(static_cast<double>(r.bytes_read + r.bytes_written) >= gemm_cost(g).bytes() * (1 - 1e-9));
  }
}

void check_ideal_near_bound_far_from_ridge(const char* preset) {
  HardwareSpec hw = make_ideal(load_hardware(preset));
  const double ridge = roofline_for(hw, DType::bf16).ridge();
  std::vector<OpSpec> ops = {
      gemm_op(1, 16384, 16384, 16384, DType::bf16, DType::bf16),  // compute-bound
      gemm_op(1, 1, 16384, 16384, DType::bf16, DType::bf16),      // GEMV, memory-bound
      gemm_op(1, 8, 16384, 16384, DType::bf16, DType::bf16),
      add_op(1 << 28, DType::fp32)};
  SimulationOutcome out = simulate({ChipJob{hw, Granularity::coarse, ops}});
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const OpSpec& op = ops[i];
    OpBound b = bound_op(op.cost(), hw);
    INFO(op.name << ": intensity " << b.intensity);
    REQUIRE((b.intensity < ridge / 8 || b.intensity > 8 * ridge));
    const double sim = out.chips[0].ops[i].seconds();
    CHECK(sim >= b.bound_time_s);
    CHECK(sim <= 1.01 * b.bound_time_s);
  }
}

void check_emergent_ridge(const char* preset) {
  HardwareSpec hw = make_ideal(load_hardware(preset));
  std::vector<OpSpec> ops = roofline_sweep_ops(hw, DType::bf16, 25);
  // The matrix units' and HBM's roofline: near-memory units (h100_pim) would take the GEMVs
  // below the HBM roof's reach and move the knee.
  SimulationOutcome out = simulate({ChipJob{hw, Granularity::coarse, ops, NearMemory::off}});
  std::vector<RooflinePoint> pts;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    OpCost c = gemm_cost(ops[i].gemm);
    pts.push_back({c.intensity(), c.flops / out.chips[0].ops[i].seconds()});
  }
  REQUIRE(pts.front().intensity < 2);
  REQUIRE(pts.back().intensity > 2000);
  const double analytic = roofline_for(hw, DType::bf16).ridge();
  CHECK(find_knee(pts).ridge() == Approx(analytic).epsilon(0.05));
}

void check_more_hardware_never_slower(const char* preset) {
  HardwareSpec base = load_hardware(preset);
  HardwareSpec more_bw = base, more_flops = base, more_both = base;
  more_bw.hbm.bandwidth *= 2;
  more_flops.matrix.macs_per_clock *= 2;
  more_flops.vector.flops_per_clock *= 2;
  more_both.hbm.bandwidth *= 2;
  more_both.matrix.macs_per_clock *= 2;
  std::vector<OpSpec> ops = random_gemms(base, 7);
  ops.resize(60);
  ops.push_back(add_op(1 << 24, DType::bf16));
  SimulationOutcome out = simulate({ChipJob{base, Granularity::coarse, ops},
                                    ChipJob{more_bw, Granularity::coarse, ops},
                                    ChipJob{more_flops, Granularity::coarse, ops},
                                    ChipJob{more_both, Granularity::coarse, ops}});
  for (std::size_t i = 0; i < ops.size(); ++i) {
    INFO(ops[i].name);
    const double t0 = out.chips[0].ops[i].seconds();
    CHECK(out.chips[1].ops[i].seconds() <= t0);
    CHECK(out.chips[2].ops[i].seconds() <= t0);
    CHECK(out.chips[3].ops[i].seconds() <= out.chips[1].ops[i].seconds());
    CHECK(out.chips[3].ops[i].seconds() <= out.chips[2].ops[i].seconds());
  }
}

void check_granularity_agrees(const char* preset) {
  HardwareSpec hw = load_hardware(preset);
  std::vector<OpSpec> ops = {gemm_op(1, 8192, 8192, 8192, DType::bf16, DType::bf16),
                             gemm_op(1, 1, 16384, 16384, DType::bf16, DType::bf16),
                             gemm_op(8, 4096, 4096, 4096, DType::bf16, DType::bf16),
                             add_op(1 << 26, DType::bf16)};
  SimulationOutcome out = simulate({ChipJob{hw, Granularity::coarse, ops},
                                    ChipJob{hw, Granularity::fine, ops}});
  for (std::size_t i = 0; i < ops.size(); ++i) {
    INFO(ops[i].name);
    const OpResult& coarse = out.chips[0].ops[i];
    const OpResult& fine = out.chips[1].ops[i];
    CHECK(fine.seconds() == Approx(coarse.seconds()).epsilon(0.01));
    CHECK(fine.events > coarse.events);
  }
}

}  // namespace

TEST_CASE("H100: no simulated GEMM beats its bound, and FLOPs and bytes match the counts", "[systemc][invariant]") {
  check_never_beats_bound_and_counts_match("h100_sxm5");
}
TEST_CASE("TPU v4: no simulated GEMM beats its bound, and FLOPs and bytes match the counts", "[systemc][invariant]") {
  check_never_beats_bound_and_counts_match("tpu_v4");
}
TEST_CASE("H100 ideal: within 1% of the bound far from the ridge", "[systemc][invariant]") {
  check_ideal_near_bound_far_from_ridge("h100_sxm5");
}
TEST_CASE("TPU v4 ideal: within 1% of the bound far from the ridge", "[systemc][invariant]") {
  check_ideal_near_bound_far_from_ridge("tpu_v4");
}
TEST_CASE("H100 ideal: the emergent ridge is within 5% of 295 FLOP/byte", "[systemc][invariant]") {
  check_emergent_ridge("h100_sxm5");
}
TEST_CASE("TPU v4 ideal: the emergent ridge is within 5% of 229 FLOP/byte", "[systemc][invariant]") {
  check_emergent_ridge("tpu_v4");
}
TEST_CASE("H100: more bandwidth or more FLOP/s never makes an op slower", "[systemc][invariant]") {
  check_more_hardware_never_slower("h100_sxm5");
}
TEST_CASE("TPU v4: more bandwidth or more FLOP/s never makes an op slower", "[systemc][invariant]") {
  check_more_hardware_never_slower("tpu_v4");
}
TEST_CASE("H100: coarse and fine granularity agree within 1%", "[systemc][invariant]") {
  check_granularity_agrees("h100_sxm5");
}
TEST_CASE("TPU v4: coarse and fine granularity agree within 1%", "[systemc][invariant]") {
  check_granularity_agrees("tpu_v4");
}

// The same invariants over every hardware preset (configs/hardware/): no simulated op beats
// its bound, FLOPs and bytes match the counts, and the emergent ridge of the ideal chip lies
// within 5% of the analytic one. H100 and TPU v4 have their cases above; each other preset
// has its own two cases here, so that ctest runs them side by side. The last case fails when
// a preset is added without them.
namespace {
const std::vector<std::string> kOtherPresets = {"a100_sxm4_80gb", "b200",    "gb200_nvl72", "h100_2xbw", "h100_pim",
                                                "h200_sxm",       "mi300x",  "tpu_v5e",     "tpu_v5p",   "tpu_v6e"};
}  // namespace

#define ROOFSIM_PRESET_INVARIANTS(preset)                                                                              \
  TEST_CASE(preset ": no simulated GEMM beats its bound, and FLOPs and bytes match the counts", "[systemc][invariant]") { \
    check_never_beats_bound_and_counts_match(preset);                                                                  \
  }                                                                                                                    \
  TEST_CASE(preset " ideal: the emergent ridge is within 5% of the analytic ridge", "[systemc][invariant]") {          \
    check_emergent_ridge(preset);                                                                                      \
  }
ROOFSIM_PRESET_INVARIANTS("a100_sxm4_80gb")
ROOFSIM_PRESET_INVARIANTS("b200")
ROOFSIM_PRESET_INVARIANTS("gb200_nvl72")
ROOFSIM_PRESET_INVARIANTS("h100_2xbw")
ROOFSIM_PRESET_INVARIANTS("h100_pim")
ROOFSIM_PRESET_INVARIANTS("h200_sxm")
ROOFSIM_PRESET_INVARIANTS("mi300x")
ROOFSIM_PRESET_INVARIANTS("tpu_v5e")
ROOFSIM_PRESET_INVARIANTS("tpu_v5p")
ROOFSIM_PRESET_INVARIANTS("tpu_v6e")
#undef ROOFSIM_PRESET_INVARIANTS

TEST_CASE("every hardware preset is in the invariant suite", "[systemc][invariant]") {
  std::vector<std::string> covered = kOtherPresets;
  covered.push_back("h100_sxm5");
  covered.push_back("tpu_v4");
  std::sort(covered.begin(), covered.end());
  CHECK(list_presets("hardware") == covered);
}

TEST_CASE("an op the host launches late starts when launched, not before, and takes as long as launched at once", "[systemc][invariants]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  OpSpec gemm;
  gemm.gemm = GemmShape{1, 64, 64, 64};
  gemm.name = "small gemm";
  const SimulationOutcome at_once = simulate({ChipJob{hw, Granularity::coarse, {gemm, gemm}}});
  ChipJob late(hw, Granularity::coarse, {gemm, gemm});
  late.launched_at_s = {0.0, 50e-6};  // the second op launched 50 us in, long after the first ended
  const SimulationOutcome waited = simulate({late});
  const OpResult& first = at_once.chips[0].ops[1];
  const OpResult& second = waited.chips[0].ops[1];
  CHECK(to_seconds(second.start_ps) == Approx(50e-6).epsilon(1e-9));
  CHECK(second.seconds() == Approx(first.seconds()).epsilon(1e-9));
  CHECK(to_seconds(waited.chips[0].ops[0].end_ps) < 50e-6);
  // Launch times for some ops only are a programming error.
  late.launched_at_s = {0.0};
  CHECK_THROWS_AS(simulate({late}), std::logic_error);
}

TEST_CASE("one chip plans a GEMM without split-K apart from the same shape with it", "[systemc][invariants]") {
  // The chip caches plans by shape: a library that never splits K (vLLM's CUTLASS scaled_mm)
  // must not reuse the split plan of the same narrow, deep shape run just before.
  const HardwareSpec hw = load_hardware("h100_sxm5");
  OpSpec split;
  split.gemm = GemmShape{1, 16, 32, 65536};
  split.name = "split";
  OpSpec whole = split;
  whole.gemm.kernel_no_split_k = true;
  whole.name = "whole";
  const SimulationOutcome both = simulate({ChipJob{hw, Granularity::coarse, {split, whole}}});
  const SimulationOutcome alone = simulate({ChipJob{hw, Granularity::coarse, {whole}}});
  CHECK(both.chips[0].ops[1].plan == alone.chips[0].ops[0].plan);
  CHECK(both.chips[0].ops[1].seconds() == Approx(alone.chips[0].ops[0].seconds()).epsilon(1e-9));
  CHECK(both.chips[0].ops[1].seconds() > 2 * both.chips[0].ops[0].seconds());
}
