#include "experiment/single_op.hpp"

#include "components/sweep.hpp"
#include "core/error.hpp"
#include "core/format.hpp"

namespace roofsim {

HardwareSpec hardware_for_run(const HardwareSpec& hw, bool ideal) { return ideal ? make_ideal(hw) : hw; }

namespace {
// A GEMM in a dtype the matrix units have no rate for is refused, naming the setting (--dtype)
// and the chip, with what it does compute in.
void check_matrix_dtype(const HardwareSpec& hw, DType t) {
  if (hw.matrix_supports(t)) return;
  std::string supported;
  for (const auto& [d, rate] : hw.matrix.dtype_rate) supported += (supported.empty() ? "" : ", ") + std::string(dtype_name(d));
  throw InputError("${dtype} " + std::string(dtype_name(t)) + ": the matrix units of " + hw.name +
                   " do not compute in it; supported: " + supported);
}
}  // namespace

OpsRunResult run_ops(const HardwareSpec& hw, bool ideal, const std::vector<OpSpec>& ops, Granularity granularity,
                     double max_events) {
  for (const OpSpec& op : ops) {
    if (op.is_gemm) check_matrix_dtype(hw, op.gemm.a);
  }
  for (const OpSpec& op : ops) {
    // The op's tensors (compulsory traffic: each operand read once, the result written once)
    // live in HBM: more than it holds is no op this chip runs.
    const double bytes = (op.is_gemm ? gemm_cost(op.gemm) : vector_cost(op.vector)).bytes();
    if (bytes > hw.hbm.capacity_bytes) {
      throw InputError(op.name + ": its tensors take " + format_si(bytes, "B", 2) + ", more than the " +
                       format_si(hw.hbm.capacity_bytes, "B", 2) + " of HBM of " + hw.name);
    }
  }
  const SimulationOutcome outcome = simulate({ChipJob{hw, granularity, ops}}, max_events);
  OpsRunResult r;
  r.hw = hw;
  r.ideal = ideal;
  r.speed = {outcome.events, outcome.server_jobs, outcome.wall_s};
  for (std::size_t i = 0; i < ops.size(); ++i) {
    SimulatedOp s;
    s.spec = ops[i];
    s.cost = ops[i].is_gemm ? gemm_cost(ops[i].gemm) : vector_cost(ops[i].vector);
    s.result = outcome.chips[0].ops[i];
    // A GEMM the near-memory units ran is bound by their roofline (inside the stacks), as a
    // run's ops are: the matrix units' roofline would be beaten (up to 3.5x on h100_pim).
    s.bound = s.result.near_memory ? bound_near_memory(ops[i].gemm, hw) : bound_op(s.cost, hw);
    r.ops.push_back(s);
  }
  return r;
}

OpSpec gemm_op(const GemmShape& g, const std::string& label) {
  OpSpec op;
  op.gemm = g;
  op.name = "gemm " + label + " " + std::string(dtype_name(g.a));
  return op;
}

std::vector<OpSpec> fp8_dynamic_linear_ops(std::int64_t m, std::int64_t n, std::int64_t k, Fp8Scaling scaling) {
  std::vector<OpSpec> ops;
  if (scaling == Fp8Scaling::per_tensor) {
    OpSpec amax = row_sum_op(1, m * k, DType::bf16);  // one pass over m x k, one value out
    amax.name = "fp8 amax " + std::to_string(m) + "x" + std::to_string(k);
    ops.push_back(amax);
  }
  OpSpec quantize;
  quantize.is_gemm = false;
  quantize.vector = VectorShape{m * k, m * k, 2.0, DType::bf16, DType::fp8, false};  // scale and convert
  quantize.name = "fp8 quantize " + std::to_string(m) + "x" + std::to_string(k);
  ops.push_back(quantize);
  GemmShape g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = g.b = DType::fp8;
  g.c = DType::bf16;
  ops.push_back(gemm_op(g, std::to_string(m) + "," + std::to_string(n) + "," + std::to_string(k)));
  return ops;
}

OpSpec elementwise_add_op(std::int64_t n, DType dtype) {
  OpSpec op;
  op.is_gemm = false;
  op.vector = VectorShape{2 * n, n, 0.5, dtype};  // c = a + b
  op.name = "add " + std::to_string(n) + " " + std::string(dtype_name(dtype));
  return op;
}

OpSpec row_sum_op(std::int64_t rows, std::int64_t cols, DType dtype) {
  OpSpec op;
  op.is_gemm = false;
  op.vector = VectorShape{rows * cols, rows, 1.0, dtype};
  op.name = "row sum " + std::to_string(rows) + "," + std::to_string(cols) + " " + std::string(dtype_name(dtype));
  return op;
}

RooflineSweepResult run_roofline_sweep(const HardwareSpec& hw, bool ideal, DType dtype, int points) {
  check_matrix_dtype(hw, dtype);
  if (points < 6) throw InputError("${points} must be at least 6");
  RooflineSweepResult r;
  r.dtype = dtype;
  r.run = run_ops(hw, ideal, roofline_sweep_ops(hw, dtype, points));
  std::vector<RooflinePoint> pts;
  for (const auto& o : r.run.ops) pts.push_back({o.bound.intensity, o.achieved_flops()});
  r.knee = find_knee(pts);
  r.analytic = roofline_for(hw, dtype);
  return r;
}

}  // namespace roofsim
