// Systolic dataflows against a cycle-stepped array (tests/systolic_reference.hpp): roofsim's
// per-fold tile cost, run through the event simulation, gives the cycle counts of an array
// that moves operands PE by PE, and of SCALE-Sim v2's accounting.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "core/hardware.hpp"
#include "experiment/single_op.hpp"
#include "tests/systolic_reference.hpp"
#include "tests/test_util.hpp"

using namespace roofsim;
using namespace roofsim::test;

namespace {

IntMatrix random_matrix(std::int64_t rows, std::int64_t cols, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(-4, 4);
  IntMatrix x(rows, cols);
  for (auto& v : x.v) v = d(rng);
  return x;
}

IntMatrix naive_product(const IntMatrix& a, const IntMatrix& b) {
  IntMatrix c(a.rows, b.cols);
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t t = 0; t < a.cols; ++t)
      for (std::int64_t j = 0; j < b.cols; ++j) c.at(i, j) += a.at(i, t) * b.at(t, j);
  return c;
}

// Cycles of the reference array for an m x n x k GEMM; checks the product it computed.
std::int64_t reference_cycles(ReferenceFlow flow, std::int64_t m, std::int64_t n, std::int64_t k, int rows, int cols) {
  std::mt19937 rng(static_cast<unsigned>(m * 1000003 + n * 1009 + k));
  const IntMatrix a = random_matrix(m, k, rng), b = random_matrix(k, n, rng);
  IntMatrix c;
  SystolicArrayReference array(rows, cols);
  const std::int64_t cycles = array.run(flow, a, b, c);
  REQUIRE(c.v == naive_product(a, b).v);
  return cycles;
}

const char* flow_name(ReferenceFlow f) {
  switch (f) {
    case ReferenceFlow::weight_stationary: return "weight_stationary";
    case ReferenceFlow::output_stationary: return "output_stationary";
    case ReferenceFlow::input_stationary: return "input_stationary";
  }
  return "";
}

// roofsim's simulated time of the GEMM on one array of this dataflow, in cycles (1 GHz).
double roofsim_cycles(ReferenceFlow flow, std::int64_t m, std::int64_t n, std::int64_t k, int rows = 128, int cols = 128) {
  const std::string path = write_temp(single_array_hardware(flow_name(flow), rows, cols), "systolic");
  const HardwareSpec hw = load_hardware_file(path);
  std::remove(path.c_str());
  const OpsRunResult r = run_ops(hw, false, {gemm_op(GemmShape{1, m, n, k}, "gemm")});
  return r.ops.front().result.seconds() * 1e9;
}

struct Shape {
  std::int64_t m, n, k;
};

}  // namespace

TEST_CASE("the reference array counts by hand on tiny arrays", "[systemc][systolic]") {
  // 1x1 weight-stationary, 1x1x1: clock 0 loads the weight; clock 1 the input enters, is
  // multiplied and leaves as the result.
  CHECK(reference_cycles(ReferenceFlow::weight_stationary, 1, 1, 1, 1, 1) == 2);
  // 1x1 weight-stationary, 5 rows through K = 3, N = 2: 6 folds of (load 1 + 5 rows).
  CHECK(reference_cycles(ReferenceFlow::weight_stationary, 5, 2, 3, 1, 1) == 6 * 6);
  // 2x2 weight-stationary, one row, K = N = 2: clocks 0-1 shift the two weight rows in; clock 2
  // a[0] meets PE (0,0); clock 3 a[1] meets PE (1,0) under it (sum of column 0 out) and a[0]
  // reaches PE (0,1); clock 4 PE (1,1) (sum of column 1 out): 5 clocks.
  CHECK(reference_cycles(ReferenceFlow::weight_stationary, 1, 2, 2, 2, 2) == 5);
  // 2x2, three rows, K = 4: two folds of 2 (load) + 3 rows + 2 (the last row crosses a
  // column and a row more) = 7, 14 in all.
  CHECK(reference_cycles(ReferenceFlow::weight_stationary, 3, 2, 4, 2, 2) == 14);
  // 2x3 output-stationary, M = 2, N = 3, K = 4: no load; b[3][2] enters PE (0,2) at clock 3 + 2
  // and reaches PE (1,2) at clock 6: 7 clocks.
  CHECK(reference_cycles(ReferenceFlow::output_stationary, 2, 3, 4, 2, 3) == 7);
  // ... and with M = 3 on 2 rows: two such folds.
  CHECK(reference_cycles(ReferenceFlow::output_stationary, 3, 3, 4, 2, 3) == 14);
  // 3x2 input-stationary, A 2x3 held (K = 3 rows, M = 2 columns), 5 columns of B stream:
  // 3 clocks to load, then b's last column enters row 2 at clock 4 + 2 and leaves column 1 at 7:
  // 3 + 8 = 11.
  CHECK(reference_cycles(ReferenceFlow::input_stationary, 2, 5, 3, 3, 2) == 11);
}

TEST_CASE("a 128x128 weight-stationary array without overlapped loads: roofsim within 3% of the cycle-stepped array and of SCALE-Sim",
          "[systemc][systolic]") {
  const std::vector<Shape> shapes = {{1, 128, 128},  {1, 300, 1000}, {8, 1, 1},      {64, 5, 7},     {128, 128, 128},
                                     {200, 129, 257}, {300, 700, 1000}, {16, 1024, 2048}, {1000, 64, 40}, {2048, 256, 384}};
  for (const Shape& s : shapes) {
    INFO(s.m << " x " << s.n << " x " << s.k);
    const double reference = static_cast<double>(reference_cycles(ReferenceFlow::weight_stationary, s.m, s.n, s.k, 128, 128));
    const double scale_sim = static_cast<double>(scale_sim_cycles(ReferenceFlow::weight_stationary, s.m, s.n, s.k, 128, 128));
    const double ours = roofsim_cycles(ReferenceFlow::weight_stationary, s.m, s.n, s.k);
    INFO("reference " << reference << ", SCALE-Sim " << scale_sim << ", roofsim " << ours);
    CHECK(std::abs(ours - reference) <= 0.03 * reference);
    CHECK(std::abs(ours - scale_sim) <= 0.03 * scale_sim);
  }
}

TEST_CASE("output- and input-stationary arrays without overlapped loads: roofsim within 3% of the cycle-stepped array",
          "[systemc][systolic]") {
  const std::vector<Shape> shapes = {{1, 128, 128}, {8, 1, 1}, {64, 5, 7}, {200, 129, 257}, {300, 700, 1000}, {512, 64, 1536}};
  for (ReferenceFlow flow : {ReferenceFlow::output_stationary, ReferenceFlow::input_stationary}) {
    for (const Shape& s : shapes) {
      INFO(flow_name(flow) << " " << s.m << " x " << s.n << " x " << s.k);
      const double reference = static_cast<double>(reference_cycles(flow, s.m, s.n, s.k, 128, 128));
      const double scale_sim = static_cast<double>(scale_sim_cycles(flow, s.m, s.n, s.k, 128, 128));
      const double ours = roofsim_cycles(flow, s.m, s.n, s.k);
      INFO("reference " << reference << ", SCALE-Sim " << scale_sim << ", roofsim " << ours);
      CHECK(std::abs(ours - reference) <= 0.03 * reference);
      CHECK(std::abs(ours - scale_sim) <= 0.03 * scale_sim);
    }
  }
}

TEST_CASE("each fold's fill and drain: without them small-M GEMMs would miss the array by far more than 3%", "[systemc][systolic]") {
  // Load + streamed rows alone, per fold, is what a model without fill and drain would give.
  for (const Shape& s : std::vector<Shape>{{1, 256, 256}, {32, 128, 512}, {128, 384, 128}}) {
    INFO(s.m << " x " << s.n << " x " << s.k);
    const std::int64_t folds = ((s.k + 127) / 128) * ((s.n + 127) / 128);
    const double without = static_cast<double>(folds * (128 + s.m));
    const double reference = static_cast<double>(reference_cycles(ReferenceFlow::weight_stationary, s.m, s.n, s.k, 128, 128));
    const double ours = roofsim_cycles(ReferenceFlow::weight_stationary, s.m, s.n, s.k);
    CHECK(reference - without > 0.3 * reference);
    CHECK(std::abs(ours - reference) <= 0.03 * reference);
  }
}

TEST_CASE("overlapped loads: folds pipeline, the same GEMM is faster, and a job's fill and drain is paid once", "[systemc][systolic]") {
  const std::string text = single_array_hardware("weight_stationary");
  const std::string overlapped = replace_once(replace_once(text, "weight_load_overlap = false", "weight_load_overlap = true"),
                                              "pipeline_latency_cycles = 0", "pipeline_latency_cycles = 254");
  const std::string path = write_temp(overlapped, "systolic");
  const HardwareSpec hw = load_hardware_file(path);
  std::remove(path.c_str());
  // 512 x 512 x 512: 16 folds of 512 rows, each hiding the next fold's 128-cycle load.
  const OpsRunResult r = run_ops(hw, false, {gemm_op(GemmShape{1, 512, 512, 512}, "gemm")});
  const double ours = r.ops.front().result.seconds() * 1e9;
  CHECK(ours == Approx(16.0 * 512 + 254).epsilon(0.01));
  CHECK(ours < 0.8 * roofsim_cycles(ReferenceFlow::weight_stationary, 512, 512, 512));
}
