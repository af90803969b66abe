#pragma once
// The kernels a framework runs for one MoE layer's experts, as ops. Two kinds (a software
// stack's `moe`, `--moe-kernel`):
//   grouped         roofsim's generic fused MoE: the routed experts as one grouped GEMM per
//                   projection (or an MLP of their own each, up to 32 touched experts), the
//                   activation between them, a combine of the copies (no routing kernels);
//   trtllm_cutlass  TensorRT-LLM's CUTLASS MoE (CutlassMoeFCRunner::runMoe, moe_kernels.cu) as
//                   validation/kernels/h100/moe.csv measures it: top-k over the router's
//                   logits, fp8 input quantization, the expert maps (one kernel or three),
//                   the permutation of the copies, the grouped GEMMs with the activation
//                   (and 1x128 quantizations for block-scaled fp8) between them, and the
//                   finalize (each token's copies summed, weighted). Weight-only experts
//                   (Hopper's mxfp4) run its Triton MoE instead, which moe.csv's moe_torch_flow
//                   rows measure as the same kernels on converted weights, often one call the
//                   host runs outside the CUDA graph (ForwardPass::weight_only_moe_eager_host_s).
// Both the kernel tables (`op --moe`, `validate --kernels`) and the transformer's MoE layers
// build their ops here, so a run's MoE layer is the calibrated call.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "workloads/op_cost.hpp"

namespace roofsim {

enum class MoeKernel { grouped, trtllm_cutlass };
const std::vector<std::string>& moe_kernel_names();
std::optional<MoeKernel> parse_moe_kernel(const std::string& name);
const char* moe_kernel_name(MoeKernel k);

// One MoE layer on one GPU: `tokens` enter it, each routed to `topk` of `experts` (unsharded);
// the GPU holds experts / ep of them, each inter / tp wide.
struct MoeLayerShape {
  std::int64_t tokens = 0, hidden = 0, inter = 0, experts = 0, topk = 0, tp = 1, ep = 1;
  bool gated = true;          // gate and up projections (SwiGLU); false: one up projection
  DType dtype = DType::bf16;  // weights and the GEMMs' inputs
  std::int64_t scale_block_k = 0;  // block-scaled fp8: one scale per this many values of K
  // Weight-only experts: the weights stored in this format (4- or 8-bit) and converted to
  // `dtype` in the GEMMs; nullopt: stored in `dtype`.
  std::optional<DType> weight_only;
};

// What an op of the call reads as data (its other inputs, routing metadata, are not modelled
// as tensors: the op follows the one before it).
enum class MoeFeed {
  router_logits,  // the router's output (tokens x experts)
  hidden,         // the layer's input (tokens x hidden)
  previous,       // the output of the call's data op before it
  none,           // metadata only
};

struct MoeKernelOp {
  std::string label;     // as `op --moe` prints it: "moe permute", "gemm experts up bf16"
  std::string key;       // as a run's graph names it: "moe.permute", "experts.gate_up"
  std::string op_class;  // shared across layers: "moe_routing", "mlp_up", ...
  bool is_gemm = false;
  GemmShape gemm;
  VectorShape vector;
  MoeFeed feed = MoeFeed::none;
  std::int64_t feed_elements = 0;  // elements it reads of that input
  // Launched by a host call of its own (a framework op from Python: the top-k, the input
  // quantization, the fused MoE op), or by the same C++ call as the op before it.
  bool new_host_call = false;
};

// TensorRT-LLM's CUTLASS MoE call, given the token copies each local expert receives.
std::vector<MoeKernelOp> trtllm_cutlass_moe_ops(const MoeLayerShape& m, const std::vector<std::int64_t>& local_loads);

// TensorRT-LLM's 1x128 fp8 quantization of a block-scaled GEMM's bf16 input: rows x cols, its
// launch keeping `warps_per_sm` warps on each SM (see moe_kernels.cpp). A dense linear's launch
// (fp8_1x128_cs: SMs x 8 blocks of 8 warps) keeps kDenseQuantWarpsPerSm; the grouped GEMMs'
// launch 8 (inside trtllm_cutlass_moe_ops).
constexpr std::int64_t kDenseQuantWarpsPerSm = 64;
VectorShape quantize_1x128_shape(std::int64_t rows, std::int64_t cols, std::int64_t warps_per_sm);
// A per-tensor fp8 quantization of `rows` x `cols` 16-bit activations with a static scale, as
// vLLM's scaled_fp8_quant launches it: one 1024-thread CTA per token row, two resident on an
// SM of 2048 threads (Ampere, Hopper), each wave of them costing vector.token_cta_cycles.
VectorShape fp8_token_quantize_shape(std::int64_t rows, std::int64_t cols);

}  // namespace roofsim
