// TensorRT-LLM 1.x's attention op on Hopper, as its AttentionOp chooses kernels
// (cpp/tensorrt_llm/common/attentionOp.cpp, enqueueContext / enqueueGeneration):
// - prefill: the context FMHA, as `fused`, in fp8 on an fp8 cache;
// - decode: XQA (GQA-aware on the tensor cores; one read of a KV head serves its query group,
//   as `fused`) where its dispatcher takes the shape, else the masked multi-head attention
//   kernel (MMHA): per sequence and query head on the CUDA cores.
#include "workloads/attention_kernel.hpp"

namespace roofsim {

namespace {

// The XQA dispatcher's gate (decoderXQAImplJIT/kernelUtils.cpp, supportConfigCommon,
// supportConfigHMMA / QGMMA; decoderXQAImplCommon.h, mayHavePerfGain):
// - a query group of 2 to 32 heads (plain MHA goes to MMHA);
// - a head dim that is a multiple of 16, at most 256;
// - enough work: KV heads x sequences x cache blocks of 128 tokens x 4 >= the GPU's SMs, or
//   an fp8 cache under 16-bit queries, which MMHA does not take.
//   roofsim builds graphs without the hardware: the gate counts H100's 132 SMs.
constexpr std::int64_t kXqaMaxGroup = 32, kXqaTokensPerBlock = 128, kXqaGateSms = 132;

// XQA's CTAs, as its two Hopper kernels are built (cpp/kernels/xqa, TensorRT-LLM 1.x):
// - a 16-bit cache runs mha.cu on mma.sync (HMMA): 8 warps; shared memory for double-buffered
//   key and value tiles of its 4 warp columns (64 keys each) comes to about 150 KB, so one CTA
//   per SM; the group's query rows pad to 16 (warpTile.y).
// - an fp8 cache runs mha_sm90.cu on wgmma (QGMMA): 3 warp groups, about 40 KB of shared
//   memory; its __launch_bounds__(384, head_dim x query rows <= 2048 ? 3 : 2) caps the
//   registers for 3 or 2 CTAs per SM; the query rows pad to 8 (ctaNbQHeads, swap-AB).
GqaDecodeCtas xqa_ctas(const AttentionShape& s) {
  const bool qgmma = s.precision.kv == DType::fp8;
  const std::int64_t tile = qgmma ? 8 : 16, rows = (s.group() * s.new_tokens + tile - 1) / tile * tile;
  const std::int64_t elements = rows * s.head_dim;
  return {qgmma ? (elements <= 2048 ? 3 : 2) : 1, elements};
}

// MMHA CTAs resident on one SM at once (small CTAs: one per sequence and query head). Fitted:
// of 2, 4 and 8, 4 gives the least MAPE on the odd lines of generation_attention.csv.
constexpr std::int64_t kMmhaCtasPerSm = 4;

class Trtllm : public AttentionKernel {
 public:
  std::string name() const override { return "trtllm"; }
  std::string summary() const override {
    return "TensorRT-LLM 1.x on Hopper: context FMHA in prefill; decode on XQA (GQA-aware, tensor cores) where its "
           "dispatcher takes the shape, else MMHA per query head on the CUDA cores";
  }
  OpId build(AttentionGraph& g, const AttentionShape& s) const override {
    // Prefill on an fp8 cache runs the FP8 context FMHA: the op sets mFP8ContextFMHA when the
    // cache is fp8 and the context FMHA is paged (thop attentionOp; TensorRT-LLM 1.x pages it
    // whenever KV-cache block reuse, on by default, or chunked prefill is on).
    if (s.prefill) return build_fused_attention(g, s, s.precision.kv == DType::fp8);
    if (trtllm_decode_kernel(s) == TrtllmDecodeKernel::xqa) return build_fused_attention(g, s, false, xqa_ctas(s));
    const std::int64_t kv_elements = s.sequences * s.kv_heads * s.decode_keys() * s.kv_dims();
    return g.vector("attention", "attention", kv_elements, s.out_elements(),
                    kMmhaFlopsPerElement * static_cast<double>(s.group() * s.new_tokens), s.feeds(), s.precision.activations, true,
                    s.precision.kv, s.sequences * s.heads, kMmhaCtasPerSm);
  }
};

}  // namespace

TrtllmDecodeKernel trtllm_decode_kernel(const AttentionShape& s) {
  const std::int64_t group = s.group();
  if (group < 2 || group > kXqaMaxGroup || s.head_dim % 16 != 0 || s.head_dim > 256) return TrtllmDecodeKernel::mmha;
  const std::int64_t blocks = std::max<std::int64_t>(1, s.decode_keys() / kXqaTokensPerBlock);
  const double work = static_cast<double>(s.kv_heads) * static_cast<double>(s.sequences) * static_cast<double>(blocks) * 4;
  if (work >= static_cast<double>(kXqaGateSms)) return TrtllmDecodeKernel::xqa;
  // Without the gain XQA still runs on an fp8 cache under 16-bit queries: MMHA does not take
  // that combination (decoderXQARunner.cpp, shouldUse).
  return s.precision.kv == DType::fp8 && s.precision.activations != DType::fp8 ? TrtllmDecodeKernel::xqa : TrtllmDecodeKernel::mmha;
}

void register_attention_kernels_trtllm(AttentionKernelRegistry& r) { r.add(std::make_unique<Trtllm>()); }

}  // namespace roofsim
