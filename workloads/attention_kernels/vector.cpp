// Decode attention on the vector units, as TensorRT-LLM 0.9's masked multi-head attention
// kernel runs it on CUDA cores: one work item per (sequence, query head) streaming its KV head;
// every query head of a GQA group does the arithmetic on the shared K and V, which HBM delivers
// once (the group's work items run together and meet in the cache). Prefill runs fused.
#include "workloads/attention_kernel.hpp"

namespace roofsim {
namespace {

class Vector : public AttentionKernel {
 public:
  std::string name() const override { return "vector"; }
  std::string summary() const override {
    return "decode attention on the vector units, per query head (TensorRT-LLM 0.9's masked MHA kernel); prefill fused";
  }
  OpId build(AttentionGraph& g, const AttentionShape& s) const override {
    if (s.prefill) return attention_kernels().get("fused", "attention").build(g, s);
    const std::int64_t kv_elements = s.sequences * s.kv_heads * s.decode_keys() * s.kv_dims();
    return g.vector("attention", "attention", kv_elements, s.out_elements(), kMmhaFlopsPerElement * static_cast<double>(s.group() * s.new_tokens),
                    s.feeds(), s.precision.activations, true, s.precision.kv);
  }
};

}  // namespace

void register_attention_kernels_vector(AttentionKernelRegistry& r) { r.add(std::make_unique<Vector>()); }

}  // namespace roofsim
