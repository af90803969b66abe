// TensorRT-LLM 1.x's attention op on Hopper, as its AttentionOp chooses kernels
// (cpp/tensorrt_llm/common/attentionOp.cpp, enqueueContext / enqueueGeneration):
// - prefill: the context FMHA, as `fused`, in fp8 on an fp8 cache;
// - decode: XQA (GQA-aware on the tensor cores; one read of a KV head serves its query group,
//   as `fused`) where its dispatcher takes the shape, else the masked multi-head attention
//   kernel (MMHA): per sequence and query head on the CUDA cores.
#include <algorithm>

#include "workloads/attention_kernel.hpp"

namespace roofsim {

namespace {

// The XQA dispatcher's gate (decoderXQAImplJIT/kernelUtils.cpp, supportConfigCommon,
// supportConfigHMMA / QGMMA; decoderXQAImplCommon.h, mayHavePerfGain):
// - a query group of 2 to 32 heads (plain MHA goes to MMHA);
// - a head dim that is a multiple of 16, at most 256;
// - enough work: KV heads x sequences x cache blocks of 128 tokens x 4 >= the GPU's SMs, or
//   an fp8 cache under 16-bit queries, which MMHA does not take. The blocks count the whole
//   past (max_past_kv_length), a sliding window's too.
//   roofsim builds graphs without the hardware: the gate counts H100's 132 SMs.
constexpr std::int64_t kXqaMaxGroup = 32, kXqaTokensPerBlock = 128, kXqaGateSms = 132;

// XQA's CTAs, as its two Hopper kernels are built (cpp/kernels/xqa, TensorRT-LLM 1.x):
// - a 16-bit cache runs mha.cu on mma.sync (HMMA): 8 warps; shared memory for double-buffered
//   key and value tiles of its 4 warp columns (64 keys each) comes to about 150 KB, so one CTA
//   per SM; the group's query rows pad to 16 (warpTile.y).
// - an fp8 cache runs mha_sm90.cu on wgmma (QGMMA): 3 warp groups, about 40 KB of shared
//   memory; its __launch_bounds__(384, head_dim x query rows <= 2048 ? 3 : 2) caps the
//   registers for 3 or 2 CTAs per SM; the query rows pad to 8 (ctaNbQHeads, swap-AB).
bool xqa_qgmma(const AttentionShape& s) { return s.precision.kv == DType::fp8; }

// Both kernels' tiles span headElems: the head dim rounded up to 64, 128 or 256 (mha.h:
// validElemsPerHead = HEAD_ELEMS, headElems = <= 64 ? 64 : <= 128 ? 128 : 256), so a head of 192
// runs at 256.
// (The dispatcher's gate keeps heads within 256.)
std::int64_t xqa_head_elems(std::int64_t head_dim) { return power_of_two_at_least(head_dim, 64); }

GqaDecodeCtas xqa_ctas(const AttentionShape& s) {
  const bool qgmma = xqa_qgmma(s);
  const std::int64_t tile = qgmma ? 8 : 16, rows = (s.group() * s.new_tokens + tile - 1) / tile * tile;
  const std::int64_t head = xqa_head_elems(s.head_dim), elements = rows * head;
  // Blocks by the whole past (computeMultiBlockCount's max_past_kv_length): mha.cu's blocks
  // before a window's start find no key but cost their CTAs (measured at window 128, bf16 cache:
  // 64 sequence-KV-head pairs take 21 us at 1023 cached tokens, 31 us from 4095 on). The fp8
  // cache's mha_sm90.cu stays at 9-12 us from 511 to 131071 cached tokens: its split follows the
  // window.
  const std::int64_t history = qgmma ? s.decode_keys() : s.context;
  return {qgmma ? (elements <= 2048 ? 3 : 2) : 1, elements, qgmma, head, history};
}

// MMHA's launch (decoderMaskedMultiheadAttentionLaunch.h, mmha_launch_kernel_ex and
// multi_block_grid_setup, with AttentionOp's multi-block mode on, its default): CTAs of 256
// threads, one per sequence and query head; when those are too few to fill the SMs four times,
// larger CTAs (512 or 1024 threads) and, below one CTA per SM, each sequence's keys split over
// `seq_len_tile` CTAs, at most enough to fill the SMs once (AttentionOp::getMaxNumSeqLenTile),
// at least as many as shared memory needs (estimate_min_multi_block_count), each at least one
// pass of its key loop.
// Resident CTAs per SM: registers allow 32 warps per SM (the launcher's comment), so 4 CTAs of
// 256 threads, 2 of 512, 1 of 1024. roofsim builds graphs without the hardware: H100's 132 SMs.
struct MmhaLaunch {
  std::int64_t ctas = 0, per_sm = 1;
};

// MMHA's kernels are built for Dh_MAX, the head dim rounded up to a power of two (at least 32):
// its lanes cover Dh_MAX elements of each key and value, those past the head predicated off but
// issued, so a head of 192 costs the slots of 256.
std::int64_t mmha_head_dim_max(std::int64_t head_dim) { return power_of_two_at_least(head_dim, 32); }

MmhaLaunch mmha_launch(const AttentionShape& s) {
  constexpr std::int64_t kSms = kXqaGateSms, kWarpsPerSm = 32, kThreads = 256;
  constexpr std::int64_t kSmemBytes = 227 * 1024 - 2048, kSmemBytesPerFourKeys = 24;  // fp32 scores, 16-bit logits
  auto ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  const std::int64_t pairs = std::max<std::int64_t>(1, s.sequences * s.heads);
  // The split counts the whole context even on a sliding-window layer (the launcher's tlength);
  // shared memory holds scores of the keys read.
  const std::int64_t context = std::max<std::int64_t>(1, s.context), keys = std::max<std::int64_t>(1, s.decode_keys());
  const std::int64_t per_sm_256 = kWarpsPerSm * 32 / kThreads;
  const std::int64_t factor = std::min(ceil_div(kSms * per_sm_256, pairs), per_sm_256);
  const std::int64_t wanted = std::min<std::int64_t>(kThreads * factor, 1024);
  const std::int64_t threads = wanted < 512 ? 256 : wanted < 1024 ? 512 : 1024;
  const std::int64_t per_sm = kWarpsPerSm * 32 / threads;
  const std::int64_t head_dim_max = mmha_head_dim_max(s.head_dim);
  const std::int64_t threads_per_value = head_dim_max * 2 / 16;  // 16-byte loads of 16-bit values
  const std::int64_t keys_per_loop = ceil_div(threads, threads_per_value) * 8;
  const std::int64_t min_tile = std::max<std::int64_t>(1, ceil_div(ceil_div(keys, 4), kSmemBytes / kSmemBytesPerFourKeys));
  const std::int64_t max_tile = std::max(min_tile, std::min(ceil_div(context, keys_per_loop), ceil_div(kSms, pairs)));
  const std::int64_t tile = std::clamp(ceil_div(kSms * per_sm, pairs), min_tile, max_tile);
  return {pairs * tile, per_sm};
}

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
    const TrtllmDecodeKernel kernel = trtllm_decode_kernel(s);
    // The MLA kernel as a fused kernel whose CTAs are not counted (no MLA kernel is in the
    // measured tables).
    if (kernel == TrtllmDecodeKernel::mla) return build_fused_attention(g, s, false);
    if (kernel == TrtllmDecodeKernel::xqa) return build_fused_attention(g, s, false, xqa_ctas(s));
    const std::int64_t kv_elements = s.sequences * s.kv_heads * s.decode_keys() * s.kv_dims();
    const MmhaLaunch launch = mmha_launch(s);
    const double padded = static_cast<double>(mmha_head_dim_max(s.head_dim)) / static_cast<double>(s.head_dim);
    return g.vector("attention", "attention", kv_elements, s.out_elements(),
                    kTrtllm1MmhaFlopsPerElement * padded * static_cast<double>(s.group() * s.new_tokens), s.feeds(), s.precision.activations, true,
                    s.precision.kv, launch.ctas, launch.per_sm);
  }
};

}  // namespace

TrtllmDecodeKernel trtllm_decode_kernel(const AttentionShape& s) {
  // Latent attention (DeepSeek's MLA) decodes on kernels of its own: neither XQA nor MMHA takes
  // its 576-value head.
  if (s.shared_kv) return TrtllmDecodeKernel::mla;
  const std::int64_t group = s.group();
  if (group < 2 || group > kXqaMaxGroup || s.head_dim % 16 != 0 || s.head_dim > 256) return TrtllmDecodeKernel::mmha;
  const std::int64_t blocks = std::max<std::int64_t>(1, s.context / kXqaTokensPerBlock);
  const double work = static_cast<double>(s.kv_heads) * static_cast<double>(s.sequences) * static_cast<double>(blocks) * 4;
  if (work >= static_cast<double>(kXqaGateSms)) return TrtllmDecodeKernel::xqa;
  // Without the gain XQA still runs on an fp8 cache under 16-bit queries: MMHA does not take
  // that combination (decoderXQARunner.cpp, shouldUse).
  return s.precision.kv == DType::fp8 && s.precision.activations != DType::fp8 ? TrtllmDecodeKernel::xqa : TrtllmDecodeKernel::mmha;
}

// kernelUtils.cpp, appliesRoPEInXqaKernel: the Hopper kernel (mha_sm90.cu) rotates a part of
// at most the head in multiples of 16 ("unsupported shapes fall back to
// invokeQKVPreprocessing"); mha.cu on a 16-bit cache never applies RoPE.
bool xqa_applies_rope(const AttentionShape& s) {
  const std::int64_t rotary = s.rotary_dim > 0 ? s.rotary_dim : s.head_dim;
  return xqa_qgmma(s) && rotary <= s.head_dim && rotary % 16 == 0;
}

void register_attention_kernels_trtllm(AttentionKernelRegistry& r) { r.add(std::make_unique<Trtllm>()); }

}  // namespace roofsim
