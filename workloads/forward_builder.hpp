#pragma once
// The builder of one forward pass's operator graph (build_forward in workloads/transformer.hpp):
// the decoder layers' ops, their inputs and the collectives between chips. Internal to the
// workloads library; its methods live in three files by what they build: transformer.cpp (the
// pass, the layers, dense MLPs, linears and collectives), forward_attention.cpp (attention:
// MHA/GQA, latent, linear and sparse) and forward_moe.cpp (mixture-of-experts layers).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/transformer.hpp"

namespace roofsim {

// "layer3.qkv" for op `name` of layer 3 (the name itself outside the layers, layer < 0); built
// in place: a graph names each of its thousands of ops so.
std::string layer_op_name(int layer, const std::string& name);

class ForwardBuilder : public AttentionGraph {
 public:
  // Vector-op FLOPs per input element (fp32 arithmetic on the vector units).
  static constexpr double kNormFlops = 4;    // square, accumulate, scale, multiply by gain
  static constexpr double kRopeFlops = 3;    // two multiplies and an add per rotated element
  static constexpr double kActMulFlops = 6;  // SiLU(gate) * up, or GELU
  static constexpr double kAddFlops = 0.5;   // one add per output from two inputs
  static std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

  ForwardBuilder(const ModelConfig& m, const ForwardPass& pass, const Precision& p, const AttentionKernel& attention)
      : m_(m), pass_(pass), p_(p), attention_(attention), groups_(groups_of(pass)), seqs_(0), rows_(0), tp_(pass.tp),
        // Heads that do not divide evenly: the busiest chip (which sets the pace) has the ceiling.
        heads_(ceil_div(m.heads, pass.tp)), kv_heads_(std::max<std::int64_t>(1, ceil_div(m.kv_heads, pass.tp))),
        moe_tp_(pass.experts_tp()), moe_ep_(pass.tp / pass.experts_tp()) {
    for (const SequenceGroup& g : groups_) {
      seqs_ += g.count;
      rows_ += g.count * g.new_tokens;
      logit_rows_ += g.prefill ? g.count : g.count * g.new_tokens;
    }
  }

  OpGraph build();

 private:
  using Input = OpInput;

  // A uniform pass is one group of a micro-batch's share of the sequences on this EP rank; a
  // mixed pass's groups are this EP rank's sequences.
  static std::vector<SequenceGroup> groups_of(const ForwardPass& pass) {
    if (!pass.groups.empty()) return pass.groups;
    return {SequenceGroup{pass.batch / pass.microbatches / pass.ep, pass.new_tokens, pass.context, pass.prefill}};
  }

  // AttentionGraph: the attention kernel's ops belong to the layer being built.
  OpId gemm(const std::string& name, const std::string& op_class, const GemmShape& shape, const std::vector<OpInput>& inputs) override;
  OpId vector(const std::string& name, const std::string& op_class, std::int64_t in, std::int64_t out, double flops,
              const std::vector<OpInput>& inputs, DType out_dtype, bool convert, std::optional<DType> in_dtype,
              std::int64_t kernel_ctas, std::int64_t ctas_per_unit) override;

  OpId add(OpNode op, const std::vector<Input>& inputs);

  // Reads `in` elements of the activations' type (or `in_dtype`) and writes `out` of the same
  // type, or of `out_dtype` when `convert`.
  OpId vector_op(const std::string& name, const std::string& cls, int layer, std::int64_t in, std::int64_t out,
                 double flops, const std::vector<Input>& inputs, DType out_dtype = DType::bf16, bool convert = false,
                 std::optional<DType> in_dtype = std::nullopt);

  // What the collectives carry: the row-parallel linears' outputs, which engines write 16-bit
  // whatever their linears compute in (fp8 and 4-bit GEMMs quantize their 16-bit inputs on the
  // way in), so a TP all-reduce moves 2 bytes a value.
  DType collective_dtype() const { return dtype_bytes(p_.activations) >= 2 ? p_.activations : DType::bf16; }

  // The kernel that quantizes linear `name`'s input, shaped `v`.
  OpId quantize_op(const std::string& name, int layer, const VectorShape& v, const std::vector<Input>& inputs);

  OpId gemm_op(const std::string& name, const std::string& cls, int layer, GemmShape shape,
               std::vector<Input> inputs);

  OpId layer(int l, OpId x);

  // Layer l's MLP: routed experts (MoE layers) or a dense MLP (dense models, and an MoE
  // model's first dense_layers layers).
  OpId mlp_block(int l, OpId in);
  // A residual add over `inputs` (`in` elements, `flops` each) into the residual stream; with
  // Fusion::add_norm fused with the norm after it (residual_normed_).
  OpId residual_op(const std::string& name, int l, std::int64_t in, double flops, const std::vector<Input>& inputs);

  // How far back layer l's attention reaches for group g, as the kernels' window (0: global):
  // a sliding layer's window; a sparse layer's top-k (every query reads its topk picked keys, as
  // many as a window of that size holds); on a chunked layer in decode exactly the newest
  // chunk's keys so far, and in prefill the chunk as a window (a prompt longer than a chunk is
  // charged up to twice the keys its chunked queries attend to).
  std::int64_t window(int l, const SequenceGroup& g) const;

  // DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2; vLLM's and SGLang's Indexer),
  // replicated on every TP rank: its queries (index_heads x index_head_dim) from `q_in` (the
  // compressed query), one key and a weight per head from the normed hidden state, the key
  // quantized into its fp8 cache.
  struct IndexerOps {  // built where m_.sparse (a plain struct: GCC misreads a std::optional copy)
    OpId q = 0, k_write = 0;
  };
  IndexerOps indexer(int l, OpId q_in, std::int64_t q_dim, OpId norm);
  // Per group: the indexer scores every cached token for each new query (DeepGEMM's fp8 MQA
  // logits: a flash-attention-shaped kernel whose heads share one key, the head-weighted ReLU
  // in place of softmax and values; here the generic fused kernel with a one-wide value),
  // writes the logits (fp32), and a top-k picks the tokens attention reads. Returns the top-k,
  // which the attention waits for.
  Input indexer_topk(const IndexerOps& ix, int l, const SequenceGroup& g, std::int64_t rows);

  // MHA / GQA / MQA: one QKV projection, rotary embedding, the cache write, the attention
  // kernel per group of sequences, the output projection (partial sums under TP).
  OpId attention(int l, OpId norm);

  // Gated DeltaNet (Qwen3-Next, Qwen3.5; vLLM's Qwen3NextGatedDeltaNet and the FLA kernels it
  // runs): one input projection (q, k, v, the gate z, and beta and the decay per value head), a
  // causal depthwise convolution over q, k and v that reads and updates each sequence's kept
  // inputs, the gated delta rule over each sequence's recurrent state, a gated RMSNorm and the
  // output projection (partial sums under TP: the heads split over the TP group).
  OpId linear_attention(int l, OpId norm);

  // Runs `attend` once per sequence group of the pass (a mixed pass names group i's ops "gi.")
  // and gathers each group's output for o_proj.
  template <typename Attend>
  std::vector<Input> per_group(int l, Attend attend);

  // Multi-head latent attention (DeepSeek-V2 section 2.1, V3). The down projections (queries
  // to q_lora_rank, keys and values to the latent plus the shared rotary key) are replicated
  // on every TP rank (vLLM and SGLang: ReplicatedLinear); the up projections and the heads
  // split. The cache holds the normed latent and the rotary key: kv_lora_rank + rope per token.
  // Prefill expands the latent into per-head keys and values (kv_b) and attends per head;
  // decode absorbs kv_b into the query (W_UK) and the output (W_UV) and attends over the
  // latent like MQA, so it reads kv_lora_rank + rope values per cached token.
  OpId latent_attention(int l, OpId norm);

  // A collective on `elements` activations that `in` produced.
  OpId collective_op(const std::string& name, const std::string& cls, int layer, OpId in, std::int64_t elements,
                     bool send_to_next, bool all_to_all = false);

  // The activations leave this stage for the next; the send belongs to the sending stage.
  OpId send(OpId in, std::int64_t elements);

  // Row-parallel outputs are partial sums: all-reduce them over the TP group (none at tp 1).
  OpId all_reduce(const std::string& name, int layer, OpId in, std::int64_t elements);

  // One dense MLP (or one expert, or the shared experts) of `width` over `rows` tokens; its
  // columns split over the TP group. Up-projection biases fold into the activation's reads.
  OpId mlp(int l, const std::string& prefix, OpId in, std::int64_t rows, std::int64_t width, const OpId* after = nullptr,
           std::int64_t split = 0);

  // The experts this rank runs on what is routed to it: `touched` experts of `rows` rows each in
  // one grouped GEMM per projection; `total` rows computed in all (what the combine reads).
  struct RoutedExperts {
    std::int64_t touched = 1, rows = 1, total = 1;
    std::int64_t copies = 1;  // the copies routed to this rank
  };

  // Uniform routing spreads this rank's `copies` evenly over the experts they touch in
  // expectation; the benchmark's routings (pass_.routing) give each expert its own load (layer
  // l takes draw l mod kPowerLawDraws), which the grouped GEMM runs as their padded average.
  // `tokens` over `ep` ranks.
  RoutedExperts route(int l, std::int64_t tokens, std::int64_t copies, std::int64_t ep) const;

  // The routed experts' MLPs, reading `in_elements` of `in`: one grouped GEMM per projection, as
  // fused-MoE kernels run them (vLLM's and SGLang's fused_moe, TensorRT-LLM's, Mixtral's alike):
  // batch = the touched experts, each expert's weights read once and its own tokens' rows only,
  // one launch however few experts a small batch touches. The outputs: the experts' rows x hidden.
  std::vector<Input> experts(int l, OpId in, std::int64_t in_elements, const RoutedExperts& r, const OpId* after);

  // The shared experts (DeepSeek, Qwen2-MoE): every token of this rank goes through them, one
  // MLP of their summed width (as the reference implementations run them), TP-split.
  void shared_experts(int l, OpId in, std::vector<Input>& outs);

  // Bias elements the combine reads: each touched expert's down bias, and the shared one's.
  std::int64_t combine_bias(std::int64_t touched) const;

  // Mixture of experts: a router, then only the touched experts run, on the tokens routed to
  // them, and their outputs are combined with the shared experts'. Top-k weights normalised or
  // not: the same work.
  OpId moe(int l, OpId in);

  // The token copies each of this rank's experts receives when `tokens` are routed over `ep`
  // ranks: the benchmark's routings as route() draws them (the busiest rank's), uniform
  // routing spread evenly over the experts it touches in expectation, the copies exact (the
  // call pads them to its tiles itself).
  std::vector<std::int64_t> expert_loads(int l, std::int64_t tokens, std::int64_t ep) const;

  // TensorRT-LLM's CUTLASS MoE call (workloads/moe_kernels.hpp), the ops the kernel tables
  // measure, after the router: the routing kernels follow one another, the data (the tokens,
  // their copies, the experts' outputs) flows from op to op, and the fused MoE op's kernels are
  // launched by one host call. Its finalize sums each token's copies; the shared experts' MLP,
  // if any, is added to it. With expert parallelism (attention data parallel over the EP
  // ranks) every rank's tokens are gathered to all of them first (an all-gather over the EP
  // group), each rank runs the call on all of them with its own experts, as the kernel tables'
  // moe_ep_size rows do, and the partial sums go back to their ranks (a reduce-scatter).
  OpId trtllm_moe(int l, OpId in, OpId router);

  // Expert parallel MoE: route this chip's tokens, send each token's k copies to the chips
  // holding its experts (all-to-all), run the local experts on what arrives, send the results
  // back (all-to-all) and combine. Uniform routing: every chip receives T x k token copies.
  // With TP, each TP rank dispatches the same tokens over its own EP group and runs its column
  // share of the local experts; layer() all-reduces the combined partial sums over the TP
  // group afterwards (combining is linear, so reducing after it moves T rows, not T x k).
  // Shared experts are not split by EP: each rank runs them on its own tokens.
  OpId moe_expert_parallel(int l, OpId in);

  const ModelConfig& m_;
  ForwardPass pass_;
  Precision p_;
  // While alive, the builder's precision is the routed experts' (Precision::for_experts).
  struct ExpertPrecisionScope {
    ForwardBuilder& b;
    Precision saved;
    explicit ExpertPrecisionScope(ForwardBuilder& builder) : b(builder), saved(builder.p_) { b.p_ = saved.for_experts(); }
    ~ExpertPrecisionScope() { b.p_ = saved; }
    ExpertPrecisionScope(const ExpertPrecisionScope&) = delete;
    ExpertPrecisionScope& operator=(const ExpertPrecisionScope&) = delete;
  };
  const AttentionKernel& attention_;
  int attention_layer_ = -1;  // the layer whose attention the kernel is building
  std::vector<SequenceGroup> groups_;  // the pass's sequences by shape (one for a uniform pass)
  std::string group_prefix_;           // "g2." while building group 2's attention in a mixed pass
  std::int64_t seqs_;  // sequences per micro-batch
  std::int64_t rows_;  // tokens per micro-batch
  std::int64_t logit_rows_ = 0;  // tokens that get logits
  std::int64_t tp_, heads_, kv_heads_;
  // The MoE layers' split inside the TP group: each expert over moe_tp_ chips, the experts
  // over moe_ep_ = tp / moe_tp ways (ForwardPass::moe_tp).
  std::int64_t moe_tp_, moe_ep_;
  std::string prefix_;  // "mb3." with several micro-batches
  int device_ = 0;      // pipeline stage of the ops being added
  std::vector<long> last_on_;   // per stage: the op added last (-1: none)
  std::vector<long> wait_for_;  // per stage: the op the next added op must follow (-1: none)
  OpGraph g_;
  bool reserved_ = false;
  // With Fusion::add_norm: the op that wrote the residual stream and its normed
  // copy (a residual add fused with the norm after it), whose output the next norm is.
  std::optional<OpId> residual_normed_;
};

}  // namespace roofsim
