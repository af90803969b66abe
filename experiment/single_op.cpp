#include "experiment/single_op.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <utility>

#include "components/sweep.hpp"
#include "core/checked.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "workloads/attention_kernel.hpp"
#include "workloads/fp8_linear_kernel.hpp"
#include "workloads/moe_kernels.hpp"
#include "workloads/moe_routing.hpp"

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
                     double max_events, const std::vector<double>& launched_at_s) {
  for (const OpSpec& op : ops) {
    if (op.is_gemm) check_matrix_dtype(hw, op.gemm.a);
  }
  for (const OpSpec& op : ops) {
    // The op's tensors (compulsory traffic: each operand read once, the result written once)
    // live in HBM: more than it holds is no op this chip runs.
    const double bytes = op.cost().bytes();
    if (bytes > hw.hbm.capacity_bytes) {
      throw InputError(op.name + ": its tensors take " + format_si(bytes, "B", 2) + ", more than the " +
                       format_si(hw.hbm.capacity_bytes, "B", 2) + " of HBM of " + hw.name);
    }
  }
  ChipJob job(hw, granularity, ops);
  job.launched_at_s = launched_at_s;
  const SimulationOutcome outcome = simulate({job}, max_events);
  OpsRunResult r;
  r.hw = hw;
  r.ideal = ideal;
  r.speed = {outcome.events, outcome.server_jobs, outcome.wall_s};
  for (std::size_t i = 0; i < ops.size(); ++i) {
    SimulatedOp s;
    s.spec = ops[i];
    s.cost = ops[i].cost();
    s.result = outcome.chips[0].ops[i];
    // A GEMM the near-memory units ran is bound by their roofline (inside the stacks), as a
    // run's ops are: the matrix units' roofline would be beaten (up to 3.5x on h100_pim).
    s.bound = s.result.near_memory ? bound_near_memory(ops[i].gemm, hw) : bound_op(s.cost, hw);
    r.ops.push_back(s);
  }
  return r;
}

namespace {

constexpr double kRopeFlopsPerElement = 3;  // as the graph's rope op (workloads/transformer.cpp)

// The kernels TensorRT-LLM's attention op launches before its attention kernel
// (attentionOp.cpp): in prefill, the decoder-info kernel (cumulative sequence lengths, RoPE
// frequencies, the FMHA's tile counter; one small job per sequence) and the QKV preprocessing
// (RoPE on Q and K, the new K and V into the paged cache in its type); in decode, the
// preprocessing only before XQA on a 16-bit cache (XQA on an fp8 cache and MMHA do it inside).
std::vector<OpSpec> trtllm_call_prologue(const AttentionShape& s) {
  std::vector<OpSpec> ops;
  if (s.prefill) ops.push_back(vector_op(VectorShape{s.sequences, s.sequences + 1, 1.0, DType::fp32, DType::fp32, true}, "decoder info"));
  const bool preprocess = s.prefill || (trtllm_decode_kernel(s) == TrtllmDecodeKernel::xqa && !xqa_applies_rope(s));
  if (preprocess) {
    const std::int64_t qkv = s.rows() * (s.heads + 2 * s.kv_heads) * s.head_dim;
    ops.push_back(vector_op(VectorShape{qkv, qkv, kRopeFlopsPerElement, DType::bf16, s.precision.kv, s.precision.kv == DType::bf16},
                            "qkv preprocessing"));
  }
  // On SM90 the paged context FMHA is always the warp-specialized kernel with its dynamic tile
  // scheduler (fmhaRunner.cpp setupLaunchParams: flash attention on SM90 sets
  // warp_specialization and dynamic_scheduler, whatever the length). Its launcher as compiled
  // from fmha_v2's source zeroes the scheduler's counter first (setup.py's Hopper launcher
  // template: cudaMemsetAsync of 4 bytes while SCHEDULING_MODE > 0, 1 by default), one more
  // node of the call; the cubins' launch has none (the decoder-info kernel resets the counter).
  if (s.prefill && !fmha_from_cubin(s, s.precision.kv == DType::fp8)) {
    ops.push_back(vector_op(VectorShape{1, 1, 0.0, DType::fp32}, "fmha tile counter memset"));
  }
  return ops;
}

// The ops an attention kernel builds for one call, captured instead of added to a graph.
class CapturedAttention : public AttentionGraph {
 public:
  OpId gemm(const std::string& name, const std::string&, const GemmShape& shape, const std::vector<OpInput>&) override {
    ops.push_back(gemm_op(shape, name));
    return static_cast<OpId>(ops.size() - 1);
  }
  OpId vector(const std::string& name, const std::string&, std::int64_t in, std::int64_t out, double flops,
              const std::vector<OpInput>&, DType out_dtype, bool convert, std::optional<DType> in_dtype,
              std::int64_t kernel_ctas, std::int64_t ctas_per_unit) override {
    VectorShape v{in, out, flops, in_dtype.value_or(DType::bf16), out_dtype, !convert};
    v.kernel_ctas = kernel_ctas;
    v.kernel_ctas_per_unit = ctas_per_unit;
    v.decode_kernel = kernel_ctas > 0;  // attention kernels on the vector units decode
    ops.push_back(vector_op(v, name));
    return static_cast<OpId>(ops.size() - 1);
  }
  std::vector<OpSpec> ops;
};

}  // namespace

std::vector<OpSpec> attention_call_ops(const AttentionShape& s, const std::string& kernel) {
  CapturedAttention captured;
  if (kernel == "trtllm") captured.ops = trtllm_call_prologue(s);
  attention_kernels().get(kernel, "attention").build(captured, s);
  return captured.ops;
}

void check_moe_call(const MoeCall& m) {
  const auto n = [](std::int64_t v) { return std::to_string(v); };
  if (m.experts > 65536) throw InputError(n(m.experts) + " experts is beyond any MoE layer (at most 65536)");
  if (m.topk > m.experts) throw InputError("top-k " + n(m.topk) + " is more than the " + n(m.experts) + " experts");
  if (m.ep > m.experts) throw InputError("EP " + n(m.ep) + " is more than the " + n(m.experts) + " experts: a rank without an expert");
  if (static_cast<double>(m.tokens) * static_cast<double>(m.topk) * static_cast<double>(m.hidden) > static_cast<double>(kMaxSize) ||
      static_cast<double>(m.experts) * static_cast<double>(m.inter) * static_cast<double>(m.hidden) > static_cast<double>(kMaxSize)) {
    throw InputError("tokens x top-k x hidden or experts x inter x hidden beyond 2^48 elements");
  }
}

int moe_routing_draws(const MoeCall& m) { return m.power_law > 0 ? kPowerLawDraws : 1; }

std::vector<std::int64_t> moe_local_loads(const MoeCall& m, int draw) {
  const MoeRouting routing = m.power_law > 0 ? MoeRouting{MoeRouting::Kind::power_law, m.power_law} : MoeRouting{MoeRouting::Kind::balanced, 0};
  return routed_loads(routing, {m.tokens, m.experts, m.topk, m.ep}, static_cast<std::uint64_t>(draw));
}

namespace {

OpSpec quantize_1x128_op(std::int64_t rows, std::int64_t cols, std::int64_t warps_per_sm, const std::string& name) {
  return vector_op(quantize_1x128_shape(rows, cols, warps_per_sm), name + " " + std::to_string(rows) + "x" + std::to_string(cols));
}

}  // namespace

MoeLayerShape moe_layer_shape(const MoeCall& m) {
  return MoeLayerShape{m.tokens, m.hidden, m.inter, m.experts, m.topk, m.tp, m.ep, m.gated, m.dtype, m.scale_block_k, m.weight_only};
}

std::vector<OpSpec> moe_layer_ops(const MoeCall& m, int draw) {
  std::vector<OpSpec> ops;
  for (const MoeKernelOp& k : trtllm_cutlass_moe_ops(moe_layer_shape(m), moe_local_loads(m, draw))) {
    ops.push_back(OpSpec{k.label, k.is_gemm, k.gemm, k.vector});
  }
  return ops;
}

OpSpec gemm_op(const GemmShape& g, const std::string& label) {
  OpSpec op;
  op.gemm = g;
  op.name = "gemm " + label + " " + std::string(dtype_name(g.a));
  return op;
}

OpSpec vector_op(const VectorShape& v, const std::string& name) {
  OpSpec op;
  op.is_gemm = false;
  op.vector = v;
  op.name = name;
  return op;
}

// A linear's GEMM on quantized operands (activations and weights in `t`), into bf16.
OpSpec quantized_gemm_op(std::int64_t m, std::int64_t n, std::int64_t k, DType t, std::int64_t scale_block_k) {
  GemmShape g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = g.b = t;
  g.c = DType::bf16;
  g.scale_block_k = scale_block_k;
  return gemm_op(g, std::to_string(m) + "," + std::to_string(n) + "," + std::to_string(k));
}

std::vector<OpSpec> fp8_dynamic_linear_ops(std::int64_t m, std::int64_t n, std::int64_t k, Fp8Scaling scaling) {
  std::vector<OpSpec> ops;
  if (scaling == Fp8Scaling::per_tensor) {
    // TensorRT-LLM's quantize_e4m3_per_tensor (quantization.cu,
    // invokeComputeScalesAndQuantizeMatrix, PER_TENSOR): zero the scale (cudaMemsetAsync), find
    // the absolute maximum (computeFP8QuantizeScale, atomic max), quantize; its Linear then
    // converts the bf16 scale to fp32 (a one-element kernel) for the scaled GEMM.
    ops.push_back(vector_op(VectorShape{1, 1, 0.0, DType::fp32}, "fp8 scale memset"));
    OpSpec amax = row_sum_op(1, m * k, DType::bf16);  // one pass over m x k, one value out
    amax.name = "fp8 amax " + std::to_string(m) + "x" + std::to_string(k);
    ops.push_back(amax);
  }
  if (scaling == Fp8Scaling::block) {
    ops.push_back(quantize_1x128_op(m, k, kDenseQuantWarpsPerSm, "fp8 quantize"));
  } else {
    ops.push_back(vector_op(VectorShape{m * k, m * k, 2.0, DType::bf16, DType::fp8, false},  // scale and convert
                            "fp8 quantize " + std::to_string(m) + "x" + std::to_string(k)));
  }
  if (scaling == Fp8Scaling::per_tensor) {
    ops.push_back(vector_op(VectorShape{1, 1, 1.0, DType::bf16, DType::fp32, false}, "fp8 scale to fp32"));
  }
  // Block scaling: activations in 1x128 groups, weights in 128x128 blocks (DeepSeek-V3's recipe).
  ops.push_back(quantized_gemm_op(m, n, k, DType::fp8, scaling == Fp8Scaling::block ? 128 : 0));
  return ops;
}

std::vector<OpSpec> fp8_static_linear_ops(std::int64_t m, std::int64_t n, std::int64_t k) {
  OpSpec gemm = quantized_gemm_op(m, n, k, DType::fp8, 0);
  apply_fp8_linear_kernel(gemm.gemm, Fp8LinearKernel::cutlass_scaled_mm);
  return {vector_op(fp8_token_quantize_shape(m, k), "fp8 quantize " + std::to_string(m) + "x" + std::to_string(k)), gemm};
}

std::vector<OpSpec> nvfp4_linear_ops(std::int64_t m, std::int64_t n, std::int64_t k) {
  std::vector<OpSpec> ops;
  ops.push_back(vector_op(VectorShape{m * k, m * k, 2.0, DType::bf16, DType::nvfp4, false},  // scale and convert
                          "fp4 quantize " + std::to_string(m) + "x" + std::to_string(k)));
  ops.push_back(quantized_gemm_op(m, n, k, DType::nvfp4, 0));
  return ops;
}

OpSpec elementwise_add_op(std::int64_t n, DType dtype) {
  return vector_op(VectorShape{2 * n, n, 0.5, dtype}, "add " + std::to_string(n) + " " + std::string(dtype_name(dtype)));  // c = a + b
}

OpSpec row_sum_op(std::int64_t rows, std::int64_t cols, DType dtype) {
  return vector_op(VectorShape{rows * cols, rows, 1.0, dtype},
                   "row sum " + std::to_string(rows) + "," + std::to_string(cols) + " " + std::string(dtype_name(dtype)));
}

void make_reads_resident(OpSpec& op, const HardwareSpec& hw, const std::string& what) {
  const OpCost cost = op.cost();
  const OnChipMemory& buffer = hw.tile_buffer_memory();
  if (cost.bytes() > buffer.resident_capacity()) {
    throw InputError(what + ": the op touches " + format_si(cost.bytes(), "B", 3) + ", more than the " +
                     format_si(buffer.resident_capacity(), "B", 3) + " of onchip." + buffer.name +
                     " a replayed working set keeps (" + hw.source_file + ": capacity_bytes x resident_share)");
  }
  op.set_reads_resident();
}

RooflineSweepResult run_roofline_sweep(const HardwareSpec& hw, bool ideal, DType dtype, int points) {
  check_matrix_dtype(hw, dtype);
  // The CLI's range: each point is a simulated GEMM, and a billion of them run for hours.
  if (points < 6 || points > 1000) throw InputError("${points} must be between 6 and 1000");
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
