#pragma once
// Builds the operator graph of one forward pass of a decoder-only transformer: prefill of B
// prompts of S tokens, or one decode step of B sequences whose KV cache holds `context` tokens.
#include <optional>
#include <string>
#include <vector>

#include "workloads/attention_kernel.hpp"
#include "workloads/graph.hpp"
#include "workloads/model.hpp"
#include "workloads/moe_kernels.hpp"
#include "workloads/moe_routing.hpp"

namespace roofsim {

// Sequences of a mixed pass (continuous batching) that have the same shape: `count` sequences
// that each add `new_tokens` tokens (a prompt, a prefill chunk, or 1 in decode) and whose newest
// token attends to `context` keys. A chunk of a prompt attends to the earlier tokens and,
// causally, to itself. A decode group may add more than one token: speculative decoding's
// verification of k drafted tokens adds k + 1, each attending to the whole context (the
// decode kernels run the k + 1 queries of a sequence together) and each getting logits.
constexpr std::int64_t kMaxVerifyTokens = 65;  // a decode group's tokens: 1 + at most 64 drafted

struct SequenceGroup {
  std::int64_t count = 1;
  std::int64_t new_tokens = 1;
  std::int64_t context = 1;
  bool prefill = false;
  bool operator==(const SequenceGroup& o) const {
    return count == o.count && new_tokens == o.new_tokens && context == o.context && prefill == o.prefill;
  }
};

// Element-wise fusion, as a compiler or hand-fused kernels do it (the intermediates never go
// through HBM). `add_norm`: each residual add and the RMSNorm after it are one op that writes the
// new residual stream and its normed copy (the norm at a layer's start folds into the previous
// layer's last add; vLLM's, SGLang's and FlashInfer's fused_add_rmsnorm). `activation`: a dense
// MLP's activation runs in the up (gate_up) GEMM's epilogue, which writes the activated columns
// only. `rope`: RoPE (with a per-head QK norm and the QKV bias) runs in the QKV GEMM's
// epilogue. The folded ops' few FLOPs per element are then the GEMMs' epilogue work and not
// counted. Left as they are: routed experts' activations, latent (MLA) and linear attention's
// element-wise ops, the first layer's norm (after the embedding) and norms after a pipeline send.
struct Fusion {
  bool add_norm = false, activation = false, rope = false;
  bool operator==(const Fusion& o) const { return add_norm == o.add_norm && activation == o.activation && rope == o.rope; }
};
// "none", "elementwise" (all three) or a comma list of add_norm, activation, rope; nullopt for
// anything else.
std::optional<Fusion> parse_fusion(const std::string& text);
// The form parse_fusion reads back: "none", "elementwise", or the list in that order.
std::string fusion_name(const Fusion& f);
inline constexpr const char* kFusionForms = "none, elementwise or a list of add_norm, activation, rope";

struct ForwardPass {
  std::int64_t batch = 1;
  std::int64_t new_tokens = 1;  // per sequence: the prompt length in prefill, 1 in decode
  std::int64_t context = 1;     // keys each new token's attention reads (incl. itself, at most)
  bool prefill = false;
  // Tensor parallelism: heads, KV heads, MLP columns and the vocabulary split over `tp` chips
  // (column- then row-parallel linears), an all-reduce after the attention output projection
  // and after the MLP. The graph is one chip's share; the chips run it in lockstep.
  std::int64_t tp = 1;
  // Pipeline parallelism: the layers split over `pp` stages (contiguous, as even as possible),
  // the batch over `microbatches`; each stage sends its activations to the next.
  std::int64_t pp = 1;
  std::int64_t microbatches = 1;
  // Expert parallelism over `ep` ranks (MoE models): attention is data parallel across the
  // ranks (each takes batch / ep sequences) and TP-split within each, the experts are spread
  // over the ranks (each expert's MLP TP-split like a dense MLP), and each MoE layer sends
  // tokens to their experts and back with two all-to-alls over the EP group (the chips of the
  // same TP rank); the row-parallel expert outputs are then all-reduced over the TP group.
  std::int64_t ep = 1;
  // A mixed pass (serving): when not empty, these groups replace batch, new_tokens, context
  // and prefill. The linear layers run on all their tokens at once; attention runs once per
  // group. One micro-batch; with ep > 1 the groups are one EP rank's sequences.
  std::vector<SequenceGroup> groups{};
  // How the MoE layers route their tokens (workloads/moe_routing.hpp); uniform by default.
  MoeRouting routing{};
  // Which kernels run the MoE layers' experts (workloads/moe_kernels.hpp).
  MoeKernel moe_kernel = MoeKernel::grouped;
  // Which element-wise ops run fused into their neighbours (Fusion).
  Fusion fusion{};
  // Under trtllm_cutlass, weight-only experts run TensorRT-LLM's Triton MoE, a call the host
  // runs outside the CUDA graph taking this much host time (a stack's [eager_calls]
  // moe_torch_flow); 0: launched as every other op.
  double weight_only_moe_eager_host_s = 0;
  // How the TP group splits the MoE layers' experts: each expert TP-split over `moe_tp` of its
  // chips and the experts spread over the other tp / moe_tp ways (expert parallelism inside
  // the TP group, attention still tensor parallel; TensorRT-LLM's moe_tp_size x moe_ep_size =
  // tp_size). 0: every expert over all tp chips.
  std::int64_t moe_tp = 0;
  std::int64_t experts_tp() const { return moe_tp > 0 ? moe_tp : tp; }
  // The chips: pp x ep x tp, numbered as workloads/chip_layout.hpp says (stage-major, then
  // EP rank, then TP rank). The graph is one chip's share; every chip of a stage runs it.
};

// A mixed pass of `groups` (batch = their sequences); throws InputError for an empty or
// impossible group.
ForwardPass mixed_pass(std::vector<SequenceGroup> groups);
ForwardPass prefill_pass(std::int64_t batch, std::int64_t prompt);
// The decode step that produces token `generated + 1` after a prompt of `prompt` tokens.
ForwardPass decode_pass(std::int64_t batch, std::int64_t prompt, std::int64_t generated);

// `attention`: a registered attention kernel (workloads/attention_kernel.hpp).
OpGraph build_forward(const ModelConfig& m, const ForwardPass& pass, const Precision& p, const AttentionImpl& attention);

// Checks that a model can be split `tp` ways (heads divisible; KV heads divisible or
// replicated); throws InputError saying what does not divide.
void check_tensor_parallel(const ModelConfig& m, std::int64_t tp);
// Checks ep against the experts and the batch (batch / (ep x micro-batches) sequences each).
void check_expert_parallel(const ModelConfig& m, const ForwardPass& pass);
// Checks pp against the layers and the micro-batches against the batch.
void check_pipeline(const ModelConfig& m, const ForwardPass& pass);
// The layers stage `s` of `pp` holds: [first, last).
std::pair<int, int> stage_layers(const ModelConfig& m, std::int64_t pp, std::int64_t s);

// Distinct experts a batch of `tokens` touches per layer with top-k routing (uniform routing,
// expected value rounded up): k at one token, all experts for large batches.
std::int64_t experts_touched(const ModelConfig& m, std::int64_t tokens);

}  // namespace roofsim
