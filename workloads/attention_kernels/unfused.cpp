// Attention as three ops with the scores through HBM: Q K^T (masked, not skipped), softmax on
// the vector units, then scores x V.
#include "workloads/attention_kernel.hpp"

namespace roofsim {
namespace {

constexpr double kSoftmaxFlops = 5;  // max, subtract, exp, sum, divide per score

class Unfused : public AttentionKernel {
 public:
  std::string name() const override { return "unfused"; }
  std::string summary() const override { return "QK^T, softmax and AV as separate ops; the scores go through HBM"; }
  OpId build(AttentionGraph& g, const AttentionShape& s) const override {
    const DType act = s.precision.activations, kv = s.precision.kv;
    // Prefill masks the causal (and window) part but computes every score; a decode query of a
    // sliding layer reads the window only (its cache holds no more).
    const std::int64_t keys = s.prefill ? s.context : s.decode_keys();
    const std::int64_t pairs = s.sequences * s.kv_heads, q_rows = s.new_tokens * s.group();
    const std::int64_t scores_elements = pairs * q_rows * keys;
    const OpId scores = g.gemm("scores", "attention_scores", {pairs, q_rows, keys, s.head_dim, act, kv, act}, s.feeds());
    const OpId softmax = g.vector("softmax", "softmax", scores_elements, scores_elements, kSoftmaxFlops, {{scores, scores_elements}});
    return g.gemm("attention_v", "attention_v", {pairs, q_rows, s.value_dim(), keys, act, kv, act}, {{softmax, scores_elements}});
  }
};

}  // namespace

void register_attention_kernels_unfused(AttentionKernelRegistry& r) { r.add(std::make_unique<Unfused>()); }

}  // namespace roofsim
