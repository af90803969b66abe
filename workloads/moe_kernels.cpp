#include "workloads/moe_kernels.hpp"

#include <algorithm>

#include "workloads/moe_routing.hpp"

namespace roofsim {

const std::vector<std::string>& moe_kernel_names() {
  static const std::vector<std::string> names{"grouped", "trtllm_cutlass"};
  return names;
}

std::optional<MoeKernel> parse_moe_kernel(const std::string& name) {
  if (name == "grouped") return MoeKernel::grouped;
  if (name == "trtllm_cutlass") return MoeKernel::trtllm_cutlass;
  return std::nullopt;
}

const char* moe_kernel_name(MoeKernel k) { return k == MoeKernel::trtllm_cutlass ? "trtllm_cutlass" : "grouped"; }

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
constexpr std::int64_t kGroupedQuantWarpsPerSm = 8;

// fusedBuildExpertMapsSortFirstToken's limits (moe_kernels.cu): one thread per token in one CTA,
// and the local experts' ids (plus one bin for other ranks' copies) within 9 radix bits.
constexpr std::int64_t kFusedExpertMapMaxTokens = 256, kFusedExpertMapMaxExperts = 255;

MoeKernelOp vector_kernel(const std::string& label, const std::string& key, const std::string& op_class, const VectorShape& v,
                          MoeFeed feed = MoeFeed::none, std::int64_t feed_elements = 0) {
  MoeKernelOp op;
  op.label = label;
  op.key = key;
  op.op_class = op_class;
  op.is_gemm = false;
  op.vector = v;
  op.feed = feed;
  op.feed_elements = feed_elements;
  return op;
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
void expert_map_ops(const MoeLayerShape& m, std::int64_t local_experts, std::int64_t local_copies, std::vector<MoeKernelOp>& ops) {
  const std::int64_t copies = m.tokens * m.topk;
  const bool fused_topk = m.topk == 1 || m.topk == 2 || m.topk == 4 || m.topk == 6 || m.topk == 8;
  if (m.tokens <= kFusedExpertMapMaxTokens && fused_topk && local_experts <= kFusedExpertMapMaxExperts) {
    ops.push_back(vector_kernel("moe expert offsets", "moe.expert_offsets", "moe_routing",
                                VectorShape{2 * copies, local_experts + 1, 2.0, DType::fp32, DType::fp32, true}));
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
  ops.push_back(vector_kernel("moe expert counts", "moe.expert_counts", "moe_routing",
                              VectorShape{copies, counts + local_copies, static_cast<double>(local_experts), DType::fp32, DType::fp32, true}));
  ops.push_back(vector_kernel("moe expert prefix sum", "moe.expert_prefix_sum", "moe_routing",
                              VectorShape{counts, counts + local_experts + 1, 2.0, DType::fp32, DType::fp32, true}));
  ops.push_back(vector_kernel("moe expert offsets", "moe.expert_offsets", "moe_routing",
                              VectorShape{2 * counts + local_copies, 3 * local_copies, 1.0, DType::fp32, DType::fp32, true}));
}

MoeKernelOp quantize_1x128(std::int64_t rows, std::int64_t cols, const std::string& label, const std::string& key) {
  return vector_kernel(label + " " + std::to_string(rows) + "x" + std::to_string(cols), key, "quantize",
                       quantize_1x128_shape(rows, cols, kGroupedQuantWarpsPerSm), MoeFeed::previous, rows * cols);
}

MoeKernelOp gemm_kernel(const GemmShape& g, const std::string& label, const std::string& key, const std::string& op_class,
                        std::int64_t feed_elements) {
  MoeKernelOp op;
  op.label = "gemm " + label + " " + std::string(dtype_name(g.a));
  op.key = key;
  op.op_class = op_class;
  op.is_gemm = true;
  op.gemm = g;
  op.feed = MoeFeed::previous;
  op.feed_elements = feed_elements;
  return op;
}

}  // namespace

VectorShape quantize_1x128_shape(std::int64_t rows, std::int64_t cols, std::int64_t warps_per_sm) {
  VectorShape v{rows * cols, rows * cols, 2.0, DType::bf16, DType::fp8, false};  // scale and convert
  v.inflight_bytes_per_unit = warps_per_sm * kQuantWarpBytes;
  return v;
}

VectorShape fp8_token_quantize_shape(std::int64_t rows, std::int64_t cols) {
  VectorShape v{rows * cols, rows * cols, 2.0, DType::bf16, DType::fp8, false};  // scale and convert
  v.kernel_ctas = rows;
  v.kernel_ctas_per_unit = 2;
  v.per_token_ctas = true;
  return v;
}

std::vector<MoeKernelOp> trtllm_cutlass_moe_ops(const MoeLayerShape& m, const std::vector<std::int64_t>& local_loads) {
  const std::int64_t local_experts = std::max<std::int64_t>(1, m.experts / m.ep);
  const std::int64_t inter = (m.inter + m.tp - 1) / m.tp, up_cols = (m.gated ? 2 : 1) * inter;
  // The batched GEMMs run `touched` experts of `rows` each: as many rows in all as the copies,
  // and their tiles' padding kept (a grouped GEMM pads each expert's rows to its 64-row tiles;
  // weight-only experts' kernels to their 16-row blocks).
  const GroupedRows grouped = grouped_rows(local_loads, m.weight_only ? kWeightOnlyMoeTileRows : kMoeTileRows);
  const std::int64_t touched = grouped.touched, local_copies = grouped.copies, rows = grouped.rows;
  const DType act = m.dtype, out = DType::bf16;
  // Block-scaled experts take bf16 rows and quantize them in 1x128 groups themselves, before
  // each grouped GEMM (CutlassFp8BlockScaleGemmRunner::moeGemm); per-tensor fp8 experts take
  // rows quantized before the layer (below) and by the activation.
  const bool block_scaled = m.scale_block_k > 0;
  const DType staged = block_scaled ? out : act;
  std::vector<MoeKernelOp> ops;
  // Routing: top-k over the router's fp32 logits (an expert id and a weight per copy), then the
  // copies counted and sorted by expert (each local expert's first row), then the permutation
  // of the tokens' copies into expert order.
  MoeKernelOp topk = vector_kernel("moe top-k", "moe.topk", "moe_routing",
                                   VectorShape{m.tokens * m.experts, 2 * m.tokens * m.topk, 2.0, DType::fp32, DType::fp32, true},
                                   MoeFeed::router_logits, m.tokens * m.experts);
  topk.new_host_call = true;
  ops.push_back(topk);
  // Per-tensor fp8 experts take fp8 tokens: TensorRT-LLM's MoE module quantizes the input with a
  // kernel of its own first (static_quantize_e4m3_per_tensor in the Cutlass/WideEP MoE's
  // forward_chunk), and the permutation copies fp8 rows.
  if (!block_scaled && act != out) {
    MoeKernelOp quantize = vector_kernel("moe input quantize", "moe.input_quantize", "quantize",
                                         VectorShape{m.tokens * m.hidden, m.tokens * m.hidden, 2.0, DType::bf16, act, false},
                                         MoeFeed::hidden, m.tokens * m.hidden);
    quantize.new_host_call = true;
    ops.push_back(quantize);
  }
  // From here on, one op of the framework (the fused MoE op) launches every kernel.
  const std::size_t fused_call = ops.size();
  expert_map_ops(m, local_experts, local_copies, ops);
  ops[fused_call].new_host_call = true;
  // The permutation reads the tokens (quantized or not) and writes each local copy.
  ops.push_back(vector_kernel("moe permute", "moe.permute", "moe_permute",
                              VectorShape{m.tokens * m.hidden, local_copies * m.hidden, 1.0, staged, staged, true},
                              !block_scaled && act != out ? MoeFeed::previous : MoeFeed::hidden, m.tokens * m.hidden));
  if (block_scaled) ops.push_back(quantize_1x128(local_copies, m.hidden, "moe fc1 quantize", "moe.fc1_quantize"));
  const DType weights = m.weight_only.value_or(act);
  GemmShape up{touched, rows, up_cols, m.hidden, act, weights, out};
  up.scale_block_k = m.scale_block_k;
  up.grouped = true;
  ops.push_back(gemm_kernel(up, "experts up", m.gated ? "experts.gate_up" : "experts.up", "mlp_up", local_copies * m.hidden));
  // The activation and the finalize run over the copies themselves: a tile's padding rows
  // exist only inside the GEMMs (TMA fills them with zeros and drops them on the way out).
  ops.push_back(vector_kernel("moe activation", "experts.activation", "activation",
                              VectorShape{local_copies * up_cols, local_copies * inter, m.gated ? 4.0 : 2.0, out, staged, staged == out},
                              MoeFeed::previous, local_copies * up_cols));
  if (block_scaled) ops.push_back(quantize_1x128(local_copies, inter, "moe fc2 quantize", "moe.fc2_quantize"));
  GemmShape down{touched, rows, m.hidden, inter, act, weights, out};
  down.scale_block_k = m.scale_block_k;
  down.grouped = true;
  ops.push_back(gemm_kernel(down, "experts down", "experts.down", "mlp_down", local_copies * inter));
  // Un-permutation: each token sums its copies' outputs, weighted by the router.
  ops.push_back(vector_kernel("moe finalize", "moe.finalize", "moe_combine",
                              VectorShape{local_copies * m.hidden, m.tokens * m.hidden, 2.0, out, out, true}, MoeFeed::previous,
                              local_copies * m.hidden));
  return ops;
}

}  // namespace roofsim
