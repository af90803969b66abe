#include "experiment/single_op.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "components/sweep.hpp"
#include "core/checked.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "workloads/attention_kernel.hpp"
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

// TensorRT-LLM's 1x128 fp8 quantization of a block-scaled GEMM's bf16 input (scale_1x128_kernel
// in fp8_blockscale_gemm_kernel.cuh): each warp quantizes one 128-element group per iteration -
// four 2-byte loads per lane, a warp max, the scale, the stores - so it keeps 256 B of loads in
// flight and waits for them before its next group. Blocks have 256 threads (8 warps). The dense
// GEMM's launch (fp8_1x128_cs) is SMs x 8 blocks, 64 warps per SM; the grouped GEMM's
// (fp8_grouped_gemm_run) is min(SMs, groups / 8) blocks, 8 warps per SM. On an H100 the same
// access pattern moves 2.6 TB/s at the first launch and 0.6 TB/s at the second
// (bench/gpu/results/h100_hbm_inflight.csv).
constexpr std::int64_t kQuantWarpBytes = 4 * 32 * 2;

// fusedBuildExpertMapsSortFirstToken's limits (moe_kernels.cu): one thread per token in one CTA,
// and the local experts' ids (plus one bin for other ranks' copies) within 9 radix bits.
constexpr std::int64_t kFusedExpertMapMaxTokens = 256, kFusedExpertMapMaxExperts = 255;

OpSpec quantize_1x128_op(std::int64_t rows, std::int64_t cols, std::int64_t warps_per_sm, const std::string& name) {
  VectorShape v{rows * cols, rows * cols, 2.0, DType::bf16, DType::fp8, false};  // scale and convert
  v.inflight_bytes_per_unit = warps_per_sm * kQuantWarpBytes;
  return vector_op(v, name + " " + std::to_string(rows) + "x" + std::to_string(cols));
}

// The expert maps (each local copy's row in expert order, each local expert's first row), as
// TensorRT-LLM's CutlassMoeFCRunner::runMoe builds them (moe_kernels.cu). A small call takes
// one kernel, a single CTA ranking every copy by expert (fusedBuildExpertMapsSortFirstToken);
// it refuses more than 256 tokens, a top-k other than 1, 2, 4, 6 or 8, or more than 255 local
// experts, and the call then takes three (threeStepBuildExpertMapsSortFirstToken):
// blockExpertPrefixSumKernel, one CTA per local expert and block of tokens, each comparing its
// block's copies with its expert and writing the matches and its count; one CTA's prefix sum
// over those counts (globalExpertPrefixSumKernel); mergeExpertPrefixSumKernel, the same grid
// again, compacting the matches into the three maps. Each pays a kernel's start and end like
// any other; the copies' expert ids are read from memory once (the other CTAs' reads of the
// same few KB hit the L2, which roofsim does not serve).
void expert_map_ops(const MoeCall& m, std::int64_t local_experts, std::int64_t local_copies, std::vector<OpSpec>& ops) {
  const std::int64_t copies = m.tokens * m.topk;
  const bool fused_topk = m.topk == 1 || m.topk == 2 || m.topk == 4 || m.topk == 6 || m.topk == 8;
  if (m.tokens <= kFusedExpertMapMaxTokens && fused_topk && local_experts <= kFusedExpertMapMaxExperts) {
    ops.push_back(vector_op(VectorShape{2 * copies, local_experts + 1, 2.0, DType::fp32, DType::fp32, true}, "moe expert offsets"));
    return;
  }
  // computeNumTokensPerBlock: the smallest power of two from 32 to 1024 tokens per block whose
  // blocks x local experts fit one CTA of that many threads (the prefix sum's), else 1024.
  std::int64_t per_block = 1024;
  for (std::int64_t t = 32; t <= 1024; t *= 2) {
    if ((m.tokens + t - 1) / t * local_experts <= t) {
      per_block = t;
      break;
    }
  }
  const std::int64_t blocks = (m.tokens + per_block - 1) / per_block, counts = local_experts * blocks;
  ops.push_back(vector_op(VectorShape{copies, counts + local_copies, static_cast<double>(local_experts), DType::fp32, DType::fp32, true},
                          "moe expert counts"));
  ops.push_back(vector_op(VectorShape{counts, counts + local_experts + 1, 2.0, DType::fp32, DType::fp32, true}, "moe expert prefix sum"));
  ops.push_back(vector_op(VectorShape{2 * counts + local_copies, 3 * local_copies, 1.0, DType::fp32, DType::fp32, true},
                          "moe expert offsets"));
}

}  // namespace

std::vector<OpSpec> moe_layer_ops(const MoeCall& m, int draw) {
  const std::int64_t local_experts = std::max<std::int64_t>(1, m.experts / m.ep);
  const std::int64_t inter = (m.inter + m.tp - 1) / m.tp, up_cols = (m.gated ? 2 : 1) * inter;
  // The batched GEMMs run `touched` experts of `rows` each: as many rows in all as the copies,
  // and their tiles' padding kept (a grouped GEMM pads each expert's rows to its 64-row tiles).
  const GroupedRows grouped = grouped_rows(moe_local_loads(m, draw), kMoeTileRows);
  const std::int64_t touched = grouped.touched, local_copies = grouped.copies, rows = grouped.rows;
  const DType act = m.dtype, out = DType::bf16;
  // Block-scaled experts take bf16 rows and quantize them in 1x128 groups themselves, before
  // each grouped GEMM (CutlassFp8BlockScaleGemmRunner::moeGemm); per-tensor fp8 experts take
  // rows quantized before the layer (below) and by the activation.
  const bool block_scaled = m.scale_block_k > 0;
  const DType staged = block_scaled ? out : act;
  constexpr std::int64_t kGroupedQuantWarpsPerSm = 8;
  std::vector<OpSpec> ops;
  auto vector = [&](const std::string& name, std::int64_t in, std::int64_t out_elements, double flops, DType in_dtype,
                    DType out_dtype) {
    ops.push_back(vector_op(VectorShape{in, out_elements, flops, in_dtype, out_dtype, in_dtype == out_dtype}, name));
  };
  // Routing: top-k over the router's fp32 logits (an expert id and a weight per copy), then the
  // copies counted and sorted by expert (each local expert's first row), then the permutation
  // of the tokens' copies into expert order.
  // Per-tensor fp8 experts take fp8 tokens: TensorRT-LLM's MoE module quantizes the input with a
  // kernel of its own first (static_quantize_e4m3_per_tensor in the Cutlass/WideEP MoE's
  // forward_chunk), and the permutation copies fp8 rows.
  vector("moe top-k", m.tokens * m.experts, 2 * m.tokens * m.topk, 2.0, DType::fp32, DType::fp32);
  if (!block_scaled && act != out) vector("moe input quantize", m.tokens * m.hidden, m.tokens * m.hidden, 2.0, DType::bf16, act);
  expert_map_ops(m, local_experts, local_copies, ops);
  vector("moe permute", m.tokens * m.hidden, local_copies * m.hidden, 1.0, staged, staged);
  if (block_scaled) ops.push_back(quantize_1x128_op(local_copies, m.hidden, kGroupedQuantWarpsPerSm, "moe fc1 quantize"));
  GemmShape up{touched, rows, up_cols, m.hidden, act, act, out};
  up.scale_block_k = m.scale_block_k;
  up.grouped = true;
  ops.push_back(gemm_op(up, "experts up"));
  // The activation and the finalize run over the copies themselves: a tile's padding rows
  // exist only inside the GEMMs (TMA fills them with zeros and drops them on the way out).
  vector("moe activation", local_copies * up_cols, local_copies * inter, m.gated ? 4.0 : 2.0, out, staged);
  if (block_scaled) ops.push_back(quantize_1x128_op(local_copies, inter, kGroupedQuantWarpsPerSm, "moe fc2 quantize"));
  GemmShape down{touched, rows, m.hidden, inter, act, act, out};
  down.scale_block_k = m.scale_block_k;
  down.grouped = true;
  ops.push_back(gemm_op(down, "experts down"));
  // Un-permutation: each token sums its copies' outputs, weighted by the router.
  vector("moe finalize", local_copies * m.hidden, m.tokens * m.hidden, 2.0, out, out);
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
    constexpr std::int64_t kDenseQuantWarpsPerSm = 64;
    ops.push_back(quantize_1x128_op(m, k, kDenseQuantWarpsPerSm, "fp8 quantize"));
  } else {
    ops.push_back(vector_op(VectorShape{m * k, m * k, 2.0, DType::bf16, DType::fp8, false},  // scale and convert
                            "fp8 quantize " + std::to_string(m) + "x" + std::to_string(k)));
  }
  if (scaling == Fp8Scaling::per_tensor) {
    ops.push_back(vector_op(VectorShape{1, 1, 1.0, DType::bf16, DType::fp32, false}, "fp8 scale to fp32"));
  }
  GemmShape g;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = g.b = DType::fp8;
  g.c = DType::bf16;
  // Block scaling: activations in 1x128 groups, weights in 128x128 blocks (DeepSeek-V3's recipe).
  if (scaling == Fp8Scaling::block) g.scale_block_k = 128;
  ops.push_back(gemm_op(g, std::to_string(m) + "," + std::to_string(n) + "," + std::to_string(k)));
  return ops;
}

OpSpec elementwise_add_op(std::int64_t n, DType dtype) {
  return vector_op(VectorShape{2 * n, n, 0.5, dtype}, "add " + std::to_string(n) + " " + std::string(dtype_name(dtype)));  // c = a + b
}

OpSpec row_sum_op(std::int64_t rows, std::int64_t cols, DType dtype) {
  return vector_op(VectorShape{rows * cols, rows, 1.0, dtype},
                   "row sum " + std::to_string(rows) + "," + std::to_string(cols) + " " + std::string(dtype_name(dtype)));
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
