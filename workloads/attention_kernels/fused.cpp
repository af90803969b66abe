// Flash attention on the matrix units: per (sequence, KV head), the group's query rows against
// the keys, softmax on chip, scores never in HBM; Q read once, K and V streamed.
#include "workloads/attention_kernel.hpp"

#include <algorithm>
#include <cmath>

namespace roofsim {
namespace {

// Query rows per CTA of a context FMHA (TensorRT-LLM's Hopper kernels and FlashAttention-3 use
// 128-row query tiles).
constexpr std::int64_t kFmhaQueryTileRows = 128;

// XQA's multi-block mode (TensorRT-LLM decoderXQAImplCommon.h, computeMultiBlockCount): a
// sequence's cache splits into blocks of at least 128 tokens, at most round(sqrt(8 x that
// many)), and at most 8 CTAs per SM over the call. roofsim builds graphs without the
// hardware: the limit counts H100's 132 SMs. `history`: the cache length the count is taken
// from (GqaDecodeCtas::block_history; a sliding window's keys otherwise).
std::int64_t decode_blocks(const AttentionShape& s, std::int64_t history) {
  constexpr std::int64_t kMinTokensPerBlock = 128, kSms = 132, kCtasPerSm = 8;
  std::int64_t blocks = std::max<std::int64_t>(1, history / kMinTokensPerBlock);
  blocks = std::min(blocks, std::max<std::int64_t>(1, std::llround(std::sqrt(8.0 * static_cast<double>(blocks)))));
  return std::max<std::int64_t>(1, std::min(blocks, kSms * kCtasPerSm / (s.sequences * s.kv_heads)));
}

// The unit of matrix.fp8_cache_decode_key_tile_cycles: keys of the cache per tile.
constexpr std::int64_t kFp8CacheKeyTile = 128;

// A generic decode kernel's CTAs resident on one SM at once: as many as XQA's dispatcher
// sizes multi-block mode for (decoderXQAConstants.h, kTargetWaveFactor).
constexpr std::int64_t kDecodeCtasPerSm = 8;

// Keys a context FMHA steps through per iteration of its key loop: fmha_v2's Hopper
// warp-specialized kernels (setup.py, kv_loop_step): bf16 256 keys up to head dim 64, 128 up to
// 128, 64 beyond; e4m3 256 up to 128, 128 beyond.
std::int64_t fmha_key_tile(std::int64_t head_dim, bool fp8) {
  if (fp8) return head_dim <= 128 ? 256 : 128;
  return head_dim <= 64 ? 256 : head_dim <= 128 ? 128 : 64;
}

// The head dimension a context FMHA's MMAs run at: fmha_v2's kernel traits (kernel_traits.h)
// pad the head to whole 128-byte rows of shared memory, at most to the next power of two:
// D = min(round_up(head, 128 / element bytes), next_power_of_two(head)). So an fp8 kernel runs
// head 192 at 256 (bf16 keeps 192), and heads 80 or 96 at 128 in either type.
std::int64_t fmha_padded_head_dim(std::int64_t head_dim, bool fp8) {
  const std::int64_t per_row = fp8 ? 128 : 64;
  return std::min((head_dim + per_row - 1) / per_row * per_row, power_of_two_at_least(head_dim, 1));
}

// The key tiles the 128-row query tile starting at new token `first` steps through: every tile
// that holds a key one of its rows attends to, from the window's start (or the first key) to
// its last row's, whole (fmha_v2's compute_kv_tile_idx).
std::int64_t fmha_query_tile_steps(const AttentionShape& s, std::int64_t first, std::int64_t key_tile) {
  const std::int64_t earlier = s.context - s.new_tokens;
  const std::int64_t rows = std::min(kFmhaQueryTileRows, s.new_tokens - first);
  const std::int64_t top = earlier + first, bottom = top + rows - 1;  // positions of its rows
  const std::int64_t lo = s.window > 0 ? std::max<std::int64_t>(0, top - s.window + 1) : 0;
  return bottom / key_tile - lo / key_tile + 1;
}

// Keys per query the FMHA computes, masked ones included: each query tile's key tiles, whole,
// cut at the context. Averaged over the new tokens, rounded up.
std::int64_t fmha_kernel_keys(const AttentionShape& s, std::int64_t key_tile) {
  double computed = 0;
  for (std::int64_t first = 0; first < s.new_tokens; first += kFmhaQueryTileRows) {
    const std::int64_t rows = std::min(kFmhaQueryTileRows, s.new_tokens - first);
    const std::int64_t tiles = fmha_query_tile_steps(s, first, key_tile);
    computed += static_cast<double>(rows) * static_cast<double>(std::min(tiles * key_tile, s.context));
  }
  return static_cast<std::int64_t>(std::ceil(computed / static_cast<double>(s.new_tokens)));
}

// Steps of the key loop one sequence's CTAs for one query head take together.
std::int64_t fmha_key_steps(const AttentionShape& s, std::int64_t key_tile) {
  std::int64_t steps = 0;
  for (std::int64_t first = 0; first < s.new_tokens; first += kFmhaQueryTileRows) steps += fmha_query_tile_steps(s, first, key_tile);
  return steps;
}

class Fused : public AttentionKernel {
 public:
  std::string name() const override { return "fused"; }
  std::string summary() const override { return "flash attention on the matrix units: scores stay on chip"; }
  OpId build(AttentionGraph& g, const AttentionShape& s) const override { return build_fused_attention(g, s, false); }
};

}  // namespace

bool fmha_from_cubin(const AttentionShape& s, bool fp8) {
  return s.head_dim == 128 && !(fp8 && dtype_bytes(s.precision.activations) > 1);
}

OpId build_fused_attention(AttentionGraph& g, const AttentionShape& s, bool fp8_context, std::optional<GqaDecodeCtas> gqa) {
  // Causal prefill skips masked key blocks: a query of a prompt reads (S + 1) / 2 keys on
  // average; a chunk of n new tokens reads every earlier key and half of its own.
  // A sliding window bands it: each query reads at most the window.
  const std::int64_t keys = s.prefill ? s.causal_keys() : s.decode_keys();
  const DType act = s.precision.activations;
  GemmShape shape{s.sequences * s.kv_heads, s.new_tokens * s.group(), s.head_dim, keys, act, s.precision.kv, act, true};
  if (s.value_dim() != s.head_dim) shape.v_n = s.value_dim();
  shape.shared_kv = s.shared_kv;
  // A prompt's own keys and values are read from the pass's QKV output, in the activations'
  // type; the cache (perhaps fp8) is only written. Earlier context comes from the cache.
  if (s.prefill && s.context == s.new_tokens) shape.b = act;
  // An FP8 context FMHA reads them from the fp8 paged cache it was just written to, with the
  // queries quantized to fp8 (by the QKV preprocessing), and runs its MMAs in fp8.
  if (fp8_context) shape.a = shape.b = DType::fp8;
  // Each CTA has a fixed cost (matrix.attention_cta_cycles) beside its tiles' work. Prefill
  // runs as a context FMHA: one CTA per sequence, query head and 128-row query tile. Decode
  // runs as flash-decoding (XQA's shape): one CTA per sequence, KV head and block of the
  // cache, the blocks' partial results merged in the kernel.
  if (s.prefill) {
    shape.kernel_ctas = s.sequences * s.heads * ((s.new_tokens + kFmhaQueryTileRows - 1) / kFmhaQueryTileRows);
    shape.kernel_key_tile = fmha_key_tile(s.head_dim, shape.a == DType::fp8);
    shape.kernel_keys = fmha_kernel_keys(s, shape.kernel_key_tile);
    const bool fp8 = shape.a == DType::fp8;
    const std::int64_t padded = fmha_padded_head_dim(s.head_dim, fp8), padded_value = fmha_padded_head_dim(s.value_dim(), fp8);
    if (padded > s.head_dim) shape.kernel_head_dim = padded;
    if (padded_value > s.value_dim()) shape.kernel_value_dim = padded_value;
    // fmha_v2 takes its sliding-window variant once the keys outrun the window (fmhaRunner.cpp:
    // SLIDING_OR_CHUNKED_CAUSAL when kvSeqLen > slidingWindowSize). Its e4m3 variant as
    // TensorRT-LLM compiles it from fmha_v2's source costs more per key step than the causal
    // one; the head-128 cubins with fp8 output ("Hopper head_size 128 kernel uses cubins for
    // performance regressions") measure no such cost. A TensorRT-LLM fact: only its FP8 context
    // FMHA (`fp8_context`) pays it, not the generic flash attention on fp8 operands.
    if (fp8_context && !fmha_from_cubin(s, true) && s.window > 0 && s.context > s.window) {
      shape.kernel_window_key_steps = s.sequences * s.heads * fmha_key_steps(s, shape.kernel_key_tile);
    }
  } else {
    shape.kernel_k_splits = decode_blocks(s, gqa && gqa->block_history > 0 ? gqa->block_history : s.decode_keys());
    shape.kernel_ctas = s.sequences * s.kv_heads * shape.kernel_k_splits;
    shape.kernel_ctas_per_unit = kDecodeCtasPerSm;
    shape.decode_kernel = true;
    // Flash-decoding on an fp8 cache with fp8 MMAs (FlashAttention-3's path): its CTAs' 128-key
    // tiles, each paying matrix.fp8_cache_decode_key_tile_cycles (a stack's kernel parameter).
    if (!gqa && s.precision.kv == DType::fp8) {
      shape.kernel_fp8_cache_key_tiles = s.sequences * s.kv_heads * ((keys + kFp8CacheKeyTile - 1) / kFp8CacheKeyTile);
    }
    if (gqa) {
      shape.kernel_ctas_per_unit = gqa->per_sm;
      shape.gqa_decode_kernel = true;
      shape.gqa_decode_qgmma = gqa->qgmma;
      shape.kernel_cta_query_elements = gqa->query_elements;
      if (gqa->head_elems > s.head_dim) shape.kernel_head_dim = gqa->head_elems;
      if (gqa->head_elems > s.value_dim()) shape.kernel_value_dim = gqa->head_elems;
    }
  }
  return g.gemm("attention", "attention", shape, s.feeds());
}

void register_attention_kernels_fused(AttentionKernelRegistry& r) { r.add(std::make_unique<Fused>()); }

}  // namespace roofsim
