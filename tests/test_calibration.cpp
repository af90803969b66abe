// With default (non-ideal) parameters the H100 preset lands near published measurements
// (../shared/validation/public-cases.csv). The sustained clock and the HBM efficiency were
// calibrated on these same cases, so this checks that the calibration holds in the full model.
#include <catch2/catch.hpp>

#include "components/simulation.hpp"

using namespace roofsim;

TEST_CASE("H100: large bf16 GEMM and streaming bandwidth match public measurements", "[systemc][validation]") {
  HardwareSpec hw = load_hardware("h100_sxm5");
  OpSpec gemm;  // MB-H100-MAMF-BF16: best of a sweep, 2048 x 2048 x 13312, 794.5 TFLOP/s
  gemm.gemm = GemmShape{1, 2048, 2048, 13312};
  gemm.name = "MB-H100-MAMF-BF16";
  OpSpec vadd;  // MB-H100-VADD: fp32 c = a + b, N = 1024^3, 4.1 ms
  vadd.is_gemm = false;
  vadd.vector = VectorShape{2ll << 30, 1ll << 30, 0.5, DType::fp32};
  vadd.name = "MB-H100-VADD";
  SimulationOutcome out = simulate({ChipJob{hw, Granularity::coarse, {gemm, vadd}}});
  const OpResult& g = out.chips[0].ops[0];
  const OpResult& v = out.chips[0].ops[1];
  CHECK(g.flops / g.seconds() == Approx(794.5e12).epsilon(0.10));
  CHECK(v.seconds() == Approx(4.1e-3).epsilon(0.10));
}
