#pragma once
// Attention kernels as a registry: how a layer's attention becomes ops (flash attention on the
// matrix units, scores through HBM, decode on the vector units, ...). Each lives in
// workloads/attention_kernels/NAME.cpp, which defines register_attention_kernels_NAME(registry);
// CMake finds the files and generates the list that calls them, so adding a kernel is one new
// file plus its test.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "workloads/fp8_linear_kernel.hpp"
#include "workloads/graph.hpp"

namespace roofsim {

struct Precision {
  DType weights = DType::bf16;
  DType activations = DType::bf16;  // matmuls compute in this type
  DType kv = DType::bf16;
  // fp8 weights with block scales (DeepSeek-V3's recipe, TensorRT-LLM's fp8_block): 128 x 128
  // weight blocks, and each linear quantizes its 16-bit input in 1 x this many groups before a
  // block-scaled GEMM (DeepGEMM's kernel). 0: per-tensor scales (or no fp8).
  std::int64_t scale_block_k = 0;
  // Per-tensor fp8 linears (fp8 weights and activations, no block scales): each quantizes its
  // 16-bit input in a kernel of its own with the checkpoint's static scale (read bf16, write
  // fp8) before the fp8 GEMM, as TensorRT-LLM's FP8 linear (static_quantize_e4m3_per_tensor),
  // vLLM's Fp8LinearOp and SGLang's (scaled_fp8_quant) launch it. false: the quantization is
  // folded into the op that produces the input.
  bool fp8_input_quantize = true;
  // The kernel of those per-tensor fp8 linears' GEMMs (a stack's fp8_linear).
  Fp8LinearKernel fp8_linear = Fp8LinearKernel::library;
  // Weight-only linears of at most four tokens run a GEMV on the CUDA cores, as TensorRT-LLM's
  // weight-only plugin does (workloads/gemv_kernel.hpp); false: its weight-only GEMM.
  bool weight_only_gemv = false;
  // The routed experts' GEMMs when they differ from the dense linears' (gpt-oss's mxfp4 experts
  // beside 16-bit attention, a deployment with fp8 dense layers and block-scaled fp8 experts):
  // their weights, the type they compute in and their scale blocks. nullopt: as above.
  struct Experts {
    DType weights = DType::bf16;
    DType activations = DType::bf16;
    std::int64_t scale_block_k = 0;
  };
  std::optional<Experts> experts;
  // The precision the routed experts' GEMMs build with.
  Precision for_experts() const {
    if (!experts) return *this;
    Precision p = *this;
    p.weights = experts->weights;
    p.activations = experts->activations;
    p.scale_block_k = experts->scale_block_k;
    p.experts.reset();
    return p;
  }
  bool weight_only() const { return weight_only_formats(activations, weights); }
};

// A kernel by name ("fused"); the built-in ones have constants for code that names them.
struct AttentionImpl {
  std::string name = "fused";
  bool operator==(const AttentionImpl& o) const { return name == o.name; }
  bool operator!=(const AttentionImpl& o) const { return name != o.name; }
  static const AttentionImpl fused, unfused, vector;
};

// An op's input: the producing op and how many elements of its output this op reads.
struct OpInput {
  OpId from;
  std::int64_t elements;
};

// The graph builder as a kernel sees it: ops added to the layer being built (names get the
// layer's prefix, ops the layer's pipeline stage).
class AttentionGraph {
 public:
  virtual ~AttentionGraph() = default;
  virtual OpId gemm(const std::string& name, const std::string& op_class, const GemmShape& shape,
                    const std::vector<OpInput>& inputs) = 0;
  // Reads `in` elements (of `in_dtype`, default the activations' type), writes `out` (of
  // `out_dtype` when `convert`), `flops` per input element on the vector units.
  // `kernel_ctas` (0: not counted) and `ctas_per_unit`: see VectorShape.
  virtual OpId vector(const std::string& name, const std::string& op_class, std::int64_t in, std::int64_t out, double flops,
                      const std::vector<OpInput>& inputs, DType out_dtype = DType::bf16, bool convert = false,
                      std::optional<DType> in_dtype = std::nullopt, std::int64_t kernel_ctas = 0,
                      std::int64_t ctas_per_unit = 1) = 0;
};

// One layer's attention on one chip: Q after RoPE and the K and V this pass wrote to the cache.
struct AttentionShape {
  OpId q = 0, kv_write = 0;
  std::int64_t sequences = 0;  // per micro-batch, on this chip
  std::int64_t heads = 0, kv_heads = 0, head_dim = 0;  // this chip's share; head_dim: a query's and a key's
  std::int64_t new_tokens = 0;  // per sequence: the prompt in prefill, 1 in decode
  std::int64_t context = 0;     // keys the newest token attends to (before any window)
  bool prefill = false;
  Precision precision;  // precision.kv: the type K and V are read in
  // Value head dim when it differs from head_dim (MLA: 128 against 192 in prefill; 512 over
  // the latent in decode). 0: head_dim.
  std::int64_t v_dim = 0;
  // The values are the first v_dim columns of the keys (MLA's absorbed decode reads its cached
  // latent once for both).
  bool shared_kv = false;
  // A sliding-window layer: a query attends to at most `window` keys (0: no window).
  std::int64_t window = 0;
  // Dimensions of a head that RoPE rotates (0: the whole head). Kernels that apply RoPE
  // themselves may only take some (TensorRT-LLM's Hopper XQA: xqa_applies_rope).
  std::int64_t rotary_dim = 0;
  // The ops feeding attention when not just q and kv_write (MLA: the absorbed query, the rotary
  // query and the cache write); empty: {q, q_elements()} and {kv_write, kv_elements_written()}.
  std::vector<OpInput> inputs{};
  std::int64_t rows() const { return sequences * new_tokens; }
  std::int64_t group() const { return heads > kv_heads ? (heads + kv_heads - 1) / kv_heads : 1; }  // query heads per KV head
  std::int64_t value_dim() const { return v_dim > 0 ? v_dim : head_dim; }
  std::int64_t q_elements() const { return rows() * heads * head_dim; }
  std::int64_t out_elements() const { return rows() * heads * value_dim(); }
  // Elements per cached token and KV head: K and V, or the shared latent once.
  std::int64_t kv_dims() const { return head_dim + (shared_kv ? 0 : value_dim()); }
  std::int64_t kv_elements_written() const { return rows() * kv_heads * kv_dims(); }
  std::vector<OpInput> feeds() const {
    if (!inputs.empty()) return inputs;
    return {{q, q_elements()}, {kv_write, kv_elements_written()}};
  }
  // Keys the newest token reads: the context, or the window on a sliding layer.
  std::int64_t decode_keys() const { return window > 0 && context > window ? window : context; }
  // Keys a query of a causal pass attends to on average, rounded up: a prompt's query i reads
  // i keys ((S + 1) / 2 on average); a chunk of n new tokens reads every earlier key and its
  // own causally; a window caps each query at `window` keys (banded causal attention).
  std::int64_t causal_keys() const {
    const std::int64_t earlier = context - new_tokens;
    if (window == 0 || window >= context) return earlier + (new_tokens + 2) / 2;
    // Sum over positions p = earlier + 1 .. context of min(p, window).
    const std::int64_t ramp_end = std::max(earlier, std::min(context, window));  // last position below the cap
    const std::int64_t ramp = (ramp_end - earlier) * (earlier + 1 + ramp_end) / 2;
    const std::int64_t capped = (context - ramp_end) * window;
    return (ramp + capped + new_tokens - 1) / new_tokens;
  }
};

class AttentionKernel {
 public:
  virtual ~AttentionKernel() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // for --help and the docs
  // Adds the ops and returns the one whose output (rows x heads x value_dim()) feeds o_proj.
  virtual OpId build(AttentionGraph& g, const AttentionShape& s) const = 0;
};

using AttentionKernelRegistry = Registry<AttentionKernel>;

// TensorRT-LLM's masked multi-head attention kernel (MMHA, decode on the CUDA cores): work per
// cached K or V element and query head (the dequantise, the fp32 multiply-add, and the
// kernel's share of reductions, masking and index arithmetic) as FLOP-equivalent issue slots
// (2 per lane-instruction, as the vector units' FLOP/s count an FMA twice). Fitted on the
// eight H100 fp8 throughput cases of public-cases.csv
// (TensorRT-LLM 0.9; least mean error at 24 of 20-28; held out: the H200 and A100 rows of
// validation/held-out-cases.csv), and checked on validation/kernels/h100
// generation_attention.csv, the calls TensorRT-LLM 1.3 runs on MMHA: over 2-48 the odd lines'
// MAPE is flat from 16 (21.3% for all generation rows) to 24 (21.6%) and worse beyond
// (docs/calibration.md).
constexpr double kMmhaFlopsPerElement = 24;
// The same for TensorRT-LLM 1.x's MMHA (the `trtllm` kernel's decode where XQA does not take the
// shape: plain MHA, query groups above 32): fitted on the odd lines of validation/kernels/h100
// generation_attention.csv (TensorRT-LLM 1.3), both families together, MAPE 10.56 / 10.44 /
// 10.53 / 10.78% at 18 / 20 / 22 / 24; even lines 10.86 -> 10.67%. Its calls at groups of 48-64,
// where the issue slots bind, ran about 20% faster than 24 slots give (session 24).
constexpr double kTrtllm1MmhaFlopsPerElement = 20;

// The smallest power of two at least `x` and `floor`: the head dims attention kernels are built
// for (fmha_v2's padded head, XQA's headElems, MMHA's Dh_MAX).
inline std::int64_t power_of_two_at_least(std::int64_t x, std::int64_t floor) {
  std::int64_t p = floor;
  while (p < x) p *= 2;
  return p;
}

// Which decode kernel TensorRT-LLM's attention op launches for a shape (attention_kernels/trtllm.cpp):
// XQA, MMHA, or for latent attention (MLA: every head over the one shared latent) its own
// tensor-core kernel (FlashMLA on Hopper).
enum class TrtllmDecodeKernel { xqa, mmha, mla };
TrtllmDecodeKernel trtllm_decode_kernel(const AttentionShape& s);
// Whether XQA applies RoPE and writes the cache itself (else the QKV preprocessing kernel runs
// before it): only its Hopper kernel on an fp8 cache does, for a rotary part within the head in
// multiples of 16. MMHA always does.
bool xqa_applies_rope(const AttentionShape& s);

// A GQA decode kernel's CTAs as its source fixes them (TensorRT-LLM's XQA, trtllm.cpp): how
// many reside on one SM at once, and the elements of one CTA's query tile (the group's query
// rows padded to the kernel's MMA tile, times the head dim).
struct GqaDecodeCtas {
  std::int64_t per_sm = 1;
  std::int64_t query_elements = 0;
  bool qgmma = false;  // XQA's Hopper kernel on an fp8 cache (matrix.gqa_decode_qgmma_cta_cycles)
  std::int64_t head_elems = 0;  // the head dim its tiles run at (0: the head's own)
  // The cache length its multi-block mode counts blocks by (0: the keys it reads): XQA's
  // launcher takes the whole past even on a sliding-window layer.
  std::int64_t block_history = 0;
};

// The flash attention of `fused` (attention_kernels/fused.cpp). `fp8_context`: a prefill that
// runs in fp8 (TensorRT-LLM's FP8 context FMHA): the quantized queries against the keys and
// values read from the fp8 paged cache, the output in the activations' type. `gqa`: a decode
// that runs on that GQA kernel (its CTAs pay matrix.gqa_decode_*), else a generic one.
OpId build_fused_attention(AttentionGraph& g, const AttentionShape& s, bool fp8_context,
                           std::optional<GqaDecodeCtas> gqa = std::nullopt);

// Where TensorRT-LLM's context FMHA for a prefill on SM90 comes from (fmha_v2, setup.py
// use_cubin_header): the head-128 kernels are NVIDIA's precompiled cubins, except e4m3 ones
// with 16-bit output; every other kernel is compiled from fmha_v2's generated source.
// `fp8`: the FMHA runs in e4m3 (an fp8 cache); its output is the activations' type.
bool fmha_from_cubin(const AttentionShape& s, bool fp8);

const AttentionKernelRegistry& attention_kernels();
std::string attention_name(const AttentionImpl& a);
// Throws InputError naming `what` for a kernel that is not registered.
AttentionImpl parse_attention(const std::string& text, const std::string& what);

}  // namespace roofsim
