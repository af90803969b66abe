#include "workloads/transformer.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/error.hpp"

namespace roofsim {

namespace {

// Vector-op FLOPs per input element (fp32 arithmetic on the vector units).
constexpr double kNormFlops = 4;      // square, accumulate, scale, multiply by gain
constexpr double kRopeFlops = 3;      // two multiplies and an add per rotated element
constexpr double kActMulFlops = 6;    // SiLU(gate) * up, or GELU
constexpr double kAddFlops = 0.5;     // one add per output from two inputs
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

class Builder : public AttentionGraph {
 public:
  Builder(const ModelConfig& m, const ForwardPass& pass, const Precision& p, const AttentionKernel& attention)
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

  OpGraph build() {
    for (std::int64_t mb = 0; mb < pass_.microbatches; ++mb) {
      prefix_ = pass_.microbatches > 1 ? "mb" + std::to_string(mb) + "." : "";
      OpId x = 0;
      for (std::int64_t s = 0; s < pass_.pp; ++s) {
        device_ = static_cast<int>(s);
        // A stage works through its micro-batches one after another (a GPipe schedule): the
        // first op of this micro-batch waits for the last op of the previous one.
        if (mb > 0) wait_for_[static_cast<std::size_t>(s)] = last_on_[static_cast<std::size_t>(s)];
        if (s == 0) {
          x = vector_op("embed", "embedding", -1, rows_ * m_.hidden, rows_ * m_.hidden, 0, {});
        } else {
          x = send(x, rows_ * m_.hidden);
        }
        const auto [first, last] = stage_layers(m_, pass_.pp, s);
        for (int l = first; l < last; ++l) {
          const std::size_t before = g_.size();
          x = layer(l, x);
          // Once one layer shows how many ops a layer has, room for all of them: a growing
          // graph moves every op it holds each time it grows.
          if (!reserved_) {
            reserved_ = true;
            const auto layers = static_cast<std::size_t>(m_.layers * pass_.microbatches);
            g_.reserve(g_.size() + (g_.size() - before) * layers + 16 * static_cast<std::size_t>(pass_.microbatches * pass_.pp));
          }
        }
      }
      // Only the last position of each prefill needs logits; a decode needs them for every token
      // it adds (speculative decoding verifies each drafted token).
      const std::int64_t last_rows = logit_rows_;
      OpId norm = vector_op("final_norm", "norm", -1, last_rows * m_.hidden, last_rows * m_.hidden, kNormFlops,
                            {{x, last_rows * m_.hidden}});
      // Vocabulary-parallel LM head: each chip scores its share of the vocabulary.
      gemm_op("lm_head", "lm_head", -1,
              {1, last_rows, ceil_div(m_.vocab, tp_), m_.hidden, p_.activations, p_.weights, p_.activations},
              {{norm, last_rows * m_.hidden}});
    }
    g_.validate();
    return std::move(g_);
  }

 private:
  using Input = OpInput;

  // A uniform pass is one group of a micro-batch's share of the sequences on this EP rank; a
  // mixed pass's groups are this EP rank's sequences.
  static std::vector<SequenceGroup> groups_of(const ForwardPass& pass) {
    if (!pass.groups.empty()) return pass.groups;
    return {SequenceGroup{pass.batch / pass.microbatches / pass.ep, pass.new_tokens, pass.context, pass.prefill}};
  }

  // AttentionGraph: the attention kernel's ops belong to the layer being built.
  OpId gemm(const std::string& name, const std::string& op_class, const GemmShape& shape, const std::vector<OpInput>& inputs) override {
    return gemm_op(group_prefix_ + name, op_class, attention_layer_, shape, inputs);
  }
  OpId vector(const std::string& name, const std::string& op_class, std::int64_t in, std::int64_t out, double flops,
              const std::vector<OpInput>& inputs, DType out_dtype, bool convert, std::optional<DType> in_dtype,
              std::int64_t kernel_ctas, std::int64_t ctas_per_unit) override {
    const OpId id = vector_op(group_prefix_ + name, op_class, attention_layer_, in, out, flops, inputs, out_dtype, convert, in_dtype);
    g_.op_mut(id).vector.kernel_ctas = kernel_ctas;
    g_.op_mut(id).vector.kernel_ctas_per_unit = ctas_per_unit;
    g_.op_mut(id).vector.decode_kernel = kernel_ctas > 0;  // attention kernels on the vector units decode
    return id;
  }

  OpId add(OpNode op, const std::vector<Input>& inputs) {
    if (!prefix_.empty()) op.name = prefix_ + op.name;
    op.device = device_;
    op.input_elements.reserve(inputs.size());
    for (const Input& in : inputs) op.input_elements.push_back(in.elements);
    const std::size_t device = static_cast<std::size_t>(op.device);
    OpId id = g_.add(std::move(op));
    if (wait_for_.size() <= device) {
      wait_for_.resize(device + 1, -1);
      last_on_.resize(device + 1, -1);
    }
    if (wait_for_[device] >= 0) {
      g_.connect_control(static_cast<OpId>(wait_for_[device]), id);
      wait_for_[device] = -1;
    }
    last_on_[device] = static_cast<long>(id);
    for (const Input& in : inputs) g_.connect(in.from, id, in.elements, p_.activations);  // named "from->to" in messages
    return id;
  }

  // Reads `in` elements of the activations' type (or `in_dtype`) and writes `out` of the same
  // type, or of `out_dtype` when `convert`.
  OpId vector_op(const std::string& name, const std::string& cls, int layer, std::int64_t in, std::int64_t out,
                 double flops, const std::vector<Input>& inputs, DType out_dtype = DType::bf16, bool convert = false,
                 std::optional<DType> in_dtype = std::nullopt) {
    OpNode op;
    op.name = layer >= 0 ? "layer" + std::to_string(layer) + "." + name : name;
    op.op_class = cls;
    op.layer = layer;
    op.is_gemm = false;
    op.vector = VectorShape{in, out, flops, in_dtype.value_or(p_.activations), out_dtype, !convert};
    return add(std::move(op), inputs);
  }

  // What the collectives carry: the row-parallel linears' outputs, which engines write 16-bit
  // whatever their linears compute in (fp8 and 4-bit GEMMs quantize their 16-bit inputs on the
  // way in), so a TP all-reduce moves 2 bytes a value.
  DType collective_dtype() const { return dtype_bytes(p_.activations) >= 2 ? p_.activations : DType::bf16; }

  // The kernel that quantizes linear `name`'s input, shaped `v`.
  OpId quantize_op(const std::string& name, int layer, const VectorShape& v, const std::vector<Input>& inputs) {
    OpNode q;
    q.name = layer >= 0 ? "layer" + std::to_string(layer) + "." + name + "_quantize" : name + "_quantize";
    q.op_class = "quantize";
    q.layer = layer;
    q.is_gemm = false;
    q.vector = v;
    return add(std::move(q), inputs);
  }

  OpId gemm_op(const std::string& name, const std::string& cls, int layer, GemmShape shape,
               std::vector<Input> inputs) {
    // A linear with fp8 weights quantizes its 16-bit input first. The router and the LM head
    // stay 16-bit in those checkpoints; attention's GEMMs have no weights.
    const bool fp8_linear = shape.b == DType::fp8 && shape.batch == 1 && !shape.fused_attention && cls != "router" && cls != "lm_head";
    if (fp8_linear && p_.scale_block_k > 0 && shape.a != DType::fp8) {
      // Block-scaled (TensorRT-LLM's fp8_block): 1x128 groups (fp8_quantize_1x128, the dense
      // launch of SMs x 8 blocks of 8 warps), then the block-scaled GEMM (DeepGEMM's kernel), the
      // two kernels the kernel tables' fp8_block rows measure.
      VectorShape q = quantize_1x128_shape(shape.m, shape.k, kDenseQuantWarpsPerSm);
      q.dtype = shape.a;
      inputs = {{quantize_op(name, layer, q, inputs), shape.m * shape.k}};
      shape.a = DType::fp8;
      shape.scale_block_k = p_.scale_block_k;
    } else if (fp8_linear && p_.fp8_input_quantize && p_.scale_block_k == 0 && shape.a == DType::fp8) {
      // Per-tensor: the static scale applied in one pass (read bf16, scale, write fp8; one CTA per
      // token, whose fixed cost the stack sets: vector.token_cta_cycles). The graph's activations
      // are fp8 already; the producer of a real engine writes them in bf16, which this pass reads.
      inputs = {{quantize_op(name, layer, fp8_token_quantize_shape(shape.m, shape.k), inputs), shape.m * shape.k}};
    }
    OpNode op;
    op.name = layer >= 0 ? "layer" + std::to_string(layer) + "." + name : name;
    op.op_class = cls;
    op.layer = layer;
    op.gemm = shape;
    return add(std::move(op), inputs);
  }

  OpId layer(int l, OpId x) {
    const std::int64_t h = m_.hidden, T = rows_;
    // Row-parallel biases (o_proj, a dense MLP's down) are added once, in the residual: their
    // bytes fold into the add that reads the sum anyway (engines fuse them into the GEMM's
    // epilogue; a separate pass over the activations would overstate them).
    const std::int64_t o_bias = m_.o_bias ? h : 0;
    const std::int64_t down_bias = m_.mlp_bias && !m_.moe_layer(l) ? h : 0;
    OpId norm = vector_op("attn_norm", "norm", l, T * h, T * h, kNormFlops, {{x, T * h}});
    OpId attn = m_.linear_layer(l) ? linear_attention(l, norm) : m_.mla ? latent_attention(l, norm) : attention(l, norm);
    if (m_.parallel_block) {
      // GPT-J, GPT-NeoX, Falcon: the MLP reads the same normed input as attention, so the two
      // branches have no path between them; their row-parallel partial sums are added and
      // all-reduced once (Megatron's and TensorRT-LLM's parallel residual), then the residual.
      OpId mlp_out = mlp_block(l, norm);
      if (tp_ == 1) {
        // x + attention + MLP: two adds per output from three inputs.
        return vector_op("residual", "residual", l, 3 * T * h + o_bias + down_bias, T * h, 2.0 / 3.0,
                         {{x, T * h}, {attn, T * h}, {mlp_out, T * h}});
      }
      OpId sum = vector_op("parallel_sum", "residual", l, 2 * T * h, T * h, kAddFlops, {{attn, T * h}, {mlp_out, T * h}});
      sum = all_reduce("allreduce", l, sum, T * h);
      return vector_op("residual", "residual", l, 2 * T * h + o_bias + down_bias, T * h, kAddFlops, {{x, T * h}, {sum, T * h}});
    }
    OpId o = all_reduce("attn_allreduce", l, attn, T * h);
    OpId x1 = vector_op("attn_residual", "residual", l, 2 * T * h + o_bias, T * h, kAddFlops, {{x, T * h}, {o, T * h}});

    OpId norm2 = vector_op("mlp_norm", "norm", l, T * h, T * h, kNormFlops, {{x1, T * h}});
    OpId mlp_out = all_reduce("mlp_allreduce", l, mlp_block(l, norm2), T * h);
    return vector_op("mlp_residual", "residual", l, 2 * T * h + down_bias, T * h, kAddFlops, {{x1, T * h}, {mlp_out, T * h}});
  }

  // Layer l's MLP: routed experts (MoE layers) or a dense MLP (dense models, and an MoE
  // model's first dense_layers layers).
  OpId mlp_block(int l, OpId in) {
    if (m_.moe_layer(l)) return moe(l, in);
    return mlp(l, "", in, rows_, m_.intermediate);
  }

  // How far back layer l's attention reaches for group g, as the kernels' window (0: global):
  // a sliding layer's window; a sparse layer's top-k (every query reads its topk picked keys, as
  // many as a window of that size holds); on a chunked layer in decode exactly the newest
  // chunk's keys so far, and in prefill the chunk as a window (a prompt longer than a chunk is
  // charged up to twice the keys its chunked queries attend to).
  std::int64_t window(int l, const SequenceGroup& g) const {
    if (m_.sliding_layer(l)) return m_.sliding_window;
    if (m_.chunked_layer(l)) return g.prefill ? m_.attention_chunk : m_.attended_keys(l, g.context);
    if (m_.sparse) return m_.sparse->topk;
    return 0;
  }

  // DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2; vLLM's and SGLang's Indexer),
  // replicated on every TP rank: its queries (index_heads x index_head_dim) from `q_in` (the
  // compressed query), one key and a weight per head from the normed hidden state, the key
  // quantized into its fp8 cache.
  struct IndexerOps {
    bool built = false;  // false: the layer has no indexer (a plain struct, not std::optional,
                         // whose copy GCC's flow analysis misreads as uninitialized)
    OpId q = 0, k_write = 0;
  };
  IndexerOps indexer(int l, OpId q_in, std::int64_t q_dim, OpId norm) {
    const SparseAttention& x = *m_.sparse;
    const std::int64_t h = m_.hidden, T = rows_, d = x.index_head_dim, H = x.index_heads;
    const DType act = p_.activations;
    IndexerOps ix;
    ix.built = true;
    ix.q = gemm_op("indexer_q", "indexer", l, {1, T, H * d, q_dim, act, p_.weights, act}, {{q_in, T * q_dim}});
    const OpId k = gemm_op("indexer_k", "indexer", l, {1, T, d + H, h, act, act, act}, {{norm, T * h}});
    ix.k_write = vector_op("indexer_k_write", "kv_write", l, T * d, T * d, 0, {{k, T * d}}, DType::fp8, true);
    return ix;
  }
  // Per group: the indexer scores every cached token for each new query (DeepGEMM's fp8 MQA
  // logits: a flash-attention-shaped kernel whose heads share one key, the head-weighted ReLU
  // in place of softmax and values; here the generic fused kernel with a one-wide value),
  // writes the logits (fp32), and a top-k picks the tokens attention reads. Returns the top-k,
  // which the attention waits for.
  Input indexer_topk(const IndexerOps& ix, int l, const SequenceGroup& g, std::int64_t rows) {
    const SparseAttention& x = *m_.sparse;
    // Its keys are read from their fp8 cache; the scores computed in fp8 where the run computes
    // in fp8 (its activations, or block-scaled linears), else in the activations' type (a chip
    // without an fp8 rate).
    Precision scoring = p_;
    scoring.kv = DType::fp8;  // its cache
    if (p_.activations == DType::fp8 || p_.scale_block_k > 0) scoring.activations = DType::fp8;
    AttentionShape s{ix.q, ix.k_write, g.count, x.index_heads, 1, x.index_head_dim, g.new_tokens, g.context, g.prefill, scoring};
    s.v_dim = 1;
    s.inputs = {{ix.q, rows * x.index_heads * x.index_head_dim}, {ix.k_write, rows * x.index_head_dim}};
    const std::string prefix = group_prefix_;
    group_prefix_ += "indexer.";
    const OpId scores = build_fused_attention(*this, s, false);
    group_prefix_ = prefix;
    g_.op_mut(scores).op_class = "indexer";
    const std::int64_t keys = g.prefill ? s.causal_keys() : g.context, picked = std::min(keys, x.topk);
    const OpId topk = vector_op(group_prefix_ + "indexer_topk", "indexer", l, rows * keys, rows * picked, 1.0, {{scores, rows}},
                                DType::fp32, true, DType::fp32);
    return {topk, rows * picked};
  }

  // MHA / GQA / MQA: one QKV projection, rotary embedding, the cache write, the attention
  // kernel per group of sequences, the output projection (partial sums under TP).
  OpId attention(int l, OpId norm) {
    // Per chip: its share of the heads (KV heads replicate when fewer than the TP degree).
    const std::int64_t h = m_.hidden, hd = m_.head_dim, H = heads_, Hkv = kv_heads_;
    const std::int64_t T = rows_;
    const DType act = p_.activations;

    // Gated attention (Qwen3-Next, Qwen3.5): q_proj also makes a gate per query element.
    const std::int64_t gate_cols = m_.attention_gate ? H * hd : 0;
    const std::int64_t qkv_cols = (H + 2 * Hkv) * hd + gate_cols;
    OpId qkv = gemm_op("qkv", "qkv", l, {1, T, qkv_cols, h, act, p_.weights, act}, {{norm, T * h}});
    const std::int64_t qk = T * (H + Hkv) * hd;
    // Qwen3, Gemma-3: RMSNorm over each head's query and key, before the rotary embedding.
    OpId rope_in = m_.qk_norm ? vector_op("qk_norm", "norm", l, qk, qk, kNormFlops, {{qkv, qk}}) : qkv;
    // Rotary embedding on Q and K; the new K and V go into the cache in its storage type. The
    // QKV bias (Qwen2, gpt-oss, NeoX) is read by this first element-wise pass (bias add fused).
    const std::int64_t qkv_bias = m_.qkv_bias ? qkv_cols : 0;
    OpId rope = vector_op("rope", "rope", l, qk + qkv_bias, qk, kRopeFlops, {{rope_in, qk}});
    OpId kv_write = vector_op("kv_write", "kv_write", l, T * 2 * Hkv * hd, T * 2 * Hkv * hd, 0,
                              {{rope, T * 2 * Hkv * hd}}, p_.kv, true);

    // Attention per (sequence, KV head): the group's query heads share one K and one V; the
    // kernel (workloads/attention_kernels/) decides which ops that takes. A mixed pass runs the
    // kernel once per group (ops named g0., g1., ...); o_proj reads every group's output.
    // Attention sinks (gpt-oss) add one logit per head to the softmax: no cache, no op.
    const IndexerOps ix = m_.sparse ? indexer(l, norm, h, norm) : IndexerOps{};
    const std::vector<Input> attn_out = per_group(l, [&](const SequenceGroup& g, std::int64_t rows) -> Input {
      AttentionShape shape{rope, kv_write, g.count, H, Hkv, hd, g.new_tokens, g.context, g.prefill, p_};
      shape.window = window(l, g);
      if (ix.built) {
        shape.inputs = shape.feeds();
        shape.inputs.push_back(indexer_topk(ix, l, g, rows));
      }
      return {attention_.build(*this, shape), rows * H * hd};
    });
    if (gate_cols > 0) {
      // sigmoid(gate) x output, element by element, before o_proj.
      std::vector<Input> gate_in = attn_out;
      gate_in.push_back({qkv, T * gate_cols});
      const OpId gated = vector_op("attn_gate", "gate", l, 2 * T * H * hd, T * H * hd, 5.0, gate_in);
      return gemm_op("o_proj", "o_proj", l, {1, T, h, H * hd, act, p_.weights, act}, {{gated, T * H * hd}});
    }
    return gemm_op("o_proj", "o_proj", l, {1, T, h, H * hd, act, p_.weights, act}, attn_out);
  }

  // Gated DeltaNet (Qwen3-Next, Qwen3.5; vLLM's Qwen3NextGatedDeltaNet and the FLA kernels it
  // runs): one input projection (q, k, v, the gate z, and beta and the decay per value head), a
  // causal depthwise convolution over q, k and v that reads and updates each sequence's kept
  // inputs, the gated delta rule over each sequence's recurrent state, a gated RMSNorm and the
  // output projection (partial sums under TP: the heads split over the TP group).
  OpId linear_attention(int l, OpId norm) {
    const LinearAttention& a = *m_.linear;
    const std::int64_t h = m_.hidden, T = rows_, dk = a.key_head_dim, dv = a.value_head_dim;
    const std::int64_t Hk = ceil_div(a.key_heads, tp_), Hv = ceil_div(a.value_heads, tp_);
    const std::int64_t K = Hk * dk, V = Hv * dv, conv = 2 * K + V, projected = 2 * K + 2 * V + 2 * Hv;
    const DType act = p_.activations, state = a.state_dtype;
    OpId in = gemm_op("linear_in", "qkv", l, {1, T, projected, h, act, p_.weights, act}, {{norm, T * h}});
    std::int64_t sequences = 0;
    for (const SequenceGroup& g : groups_) sequences += g.count;
    const std::int64_t kept = sequences * conv * (a.conv_kernel - 1);
    OpId conv_out = vector_op("linear_conv", "conv", l, T * conv + kept, T * conv + kept, 2.0 * static_cast<double>(a.conv_kernel),
                              {{in, T * conv}});
    std::vector<OpId> state_ops;
    const std::vector<Input> outs = per_group(l, [&](const SequenceGroup& g, std::int64_t rows) -> Input {
      const std::int64_t states = g.count * Hv * dk * dv;  // this group's recurrent state, per chip
      // Decode: each token reads its sequence's state, updates it (decay, the delta rule's
      // rank-one correction) and reads the output from it: about 6 dk dv FLOPs per value head,
      // the state read and written back (fused_recurrent_gated_delta_rule, CUDA cores).
      if (!g.prefill) {
        const double flops = 6.0 * static_cast<double>(rows * Hv * dk * dv);
        const std::int64_t in_elems = states + rows * (conv + 2 * Hv);
        const OpId rule = vector_op("delta_rule", "linear_attention", l, in_elems, states + rows * V,
                                    flops / static_cast<double>(in_elems), {{conv_out, rows * conv}, {in, rows * 2 * Hv}}, state, true, state);
        return {rule, rows * V};
      }
      // Prefill: the chunked form (chunk_gated_delta_rule, chunks of 64 on the tensor cores):
      // per chunk of C tokens and value head about 2 (3 C^2 dk + 2 C^2 dv + 3 C dk dv) FLOPs
      // (K K^T and the WY transform, the intra-chunk scores, the state's reads and update), run as
      // the batched GEMM with that work: C x dv outputs over k = 3 C dk / dv + 2 C + 3 dk.
      constexpr std::int64_t kChunk = 64;
      const std::int64_t k_equiv = ceil_div(3 * kChunk * dk, dv) + 2 * kChunk + 3 * dk;
      const OpId rule = gemm("delta_rule", "linear_attention", {g.count * Hv, g.new_tokens, dv, k_equiv, act, act, act},
                             {{conv_out, rows * conv}, {in, rows * 2 * Hv}});
      // The state in and out once per sequence, beside the output (the norm waits for both).
      state_ops.push_back(vector_op(group_prefix_ + "delta_state", "linear_attention", l, states, states, 1.0, {{rule, 1}}, state, true, state));
      return {rule, rows * V};
    });
    // The gated RMSNorm reads the output and z.
    std::vector<Input> norm_in = outs;
    norm_in.push_back({in, T * V});
    for (OpId kept_state : state_ops) norm_in.push_back({kept_state, 1});
    const OpId gated = vector_op("linear_norm", "norm", l, 2 * T * V, T * V, kNormFlops + 5.0, norm_in);
    return gemm_op("linear_out", "o_proj", l, {1, T, h, V, act, p_.weights, act}, {{gated, T * V}});
  }

  // Runs `attend` once per sequence group of the pass (a mixed pass names group i's ops "gi.")
  // and gathers each group's output for o_proj.
  template <typename Attend>
  std::vector<Input> per_group(int l, Attend attend) {
    attention_layer_ = l;
    std::vector<Input> outs;
    for (std::size_t i = 0; i < groups_.size(); ++i) {
      group_prefix_ = groups_.size() > 1 ? "g" + std::to_string(i) + "." : "";
      const SequenceGroup& g = groups_[i];
      outs.push_back(attend(g, g.count * g.new_tokens));
    }
    group_prefix_.clear();
    return outs;
  }

  // Multi-head latent attention (DeepSeek-V2 section 2.1, V3). The down projections (queries
  // to q_lora_rank, keys and values to the latent plus the shared rotary key) are replicated
  // on every TP rank (vLLM and SGLang: ReplicatedLinear); the up projections and the heads
  // split. The cache holds the normed latent and the rotary key: kv_lora_rank + rope per token.
  // Prefill expands the latent into per-head keys and values (kv_b) and attends per head;
  // decode absorbs kv_b into the query (W_UK) and the output (W_UV) and attends over the
  // latent like MQA, so it reads kv_lora_rank + rope values per cached token.
  OpId latent_attention(int l, OpId norm) {
    const LatentAttention& a = *m_.mla;
    const std::int64_t h = m_.hidden, H = heads_, T = rows_;
    const std::int64_t nope = a.qk_nope_head_dim, rd = a.qk_rope_head_dim, qkd = a.qk_head_dim(), vd = a.v_head_dim;
    const std::int64_t r = a.kv_lora_rank, qr = a.q_lora_rank, cache = a.cache_dims();
    const DType act = p_.activations;

    // The down projections as one GEMM (vLLM's fused_qkv_a_proj): [q latent | kv latent | k_pe].
    OpId down = gemm_op("qkv_a", "qkv", l, {1, T, qr + cache, h, act, p_.weights, act}, {{norm, T * h}});
    OpId q, q_in = norm;  // the indexer's input: the compressed query, or the hidden state
    if (qr > 0) {
      OpId q_norm = vector_op("q_a_norm", "norm", l, T * qr, T * qr, kNormFlops, {{down, T * qr}});
      q = gemm_op("q_b", "qkv", l, {1, T, H * qkd, qr, act, p_.weights, act}, {{q_norm, T * qr}});
      q_in = q_norm;
    } else {
      q = gemm_op("q_proj", "qkv", l, {1, T, H * qkd, h, act, p_.weights, act}, {{norm, T * h}});
    }
    const IndexerOps ix = m_.sparse ? indexer(l, q_in, qr > 0 ? qr : h, norm) : IndexerOps{};
    OpId kv_norm = vector_op("kv_a_norm", "norm", l, T * r, T * r, kNormFlops, {{down, T * r}});
    // Rotary embedding on each head's rope part of the query and on the one shared rotary key.
    const std::int64_t roped = T * (H + 1) * rd;
    OpId rope = vector_op("rope", "rope", l, roped, roped, kRopeFlops, {{q, T * H * rd}, {down, T * rd}});
    // The cache write: latent and rotary key of every new token, one "KV head".
    OpId kv_write = vector_op("kv_write", "kv_write", l, T * cache, T * cache, 0, {{kv_norm, T * r}, {rope, T * rd}}, p_.kv, true);

    const std::vector<Input> attn_out = per_group(l, [&](const SequenceGroup& g, std::int64_t rows) -> Input {
      AttentionShape shape{q, kv_write, g.count, H, H, qkd, g.new_tokens, g.context, g.prefill, p_};
      shape.window = window(l, g);
      const std::optional<Input> picked = ix.built ? std::optional(indexer_topk(ix, l, g, rows)) : std::nullopt;
      if (g.prefill) {
        // kv_b expands the latent of every token the chunk attends to (its own, and earlier
        // ones from the cache) into each head's key (nope part) and value.
        // (A window keeps the chunk's own tokens and the window before its first one.)
        const std::int64_t reach = shape.window > 0 ? std::min(g.context, shape.window + g.new_tokens - 1) : g.context;
        const std::int64_t expanded = g.count * reach;
        const OpId kv_b = gemm("kv_b", "kv_b", {1, expanded, H * (nope + vd), r, act, p_.weights, act}, {{kv_write, rows * r}});
        shape.v_dim = vd;
        shape.precision.kv = act;  // the expanded keys and values are activations, not the cache
        shape.inputs = {{q, rows * H * nope}, {rope, rows * (H + 1) * rd}, {kv_b, expanded * H * (nope + vd)}};
        if (picked) shape.inputs.push_back(*picked);
        return {attention_.build(*this, shape), rows * H * vd};
      }
      // W_UK per head: the query's nope part into the latent space (batched over heads).
      const OpId q_abs = gemm("q_absorb", "q_absorb", {H, rows, r, nope, act, p_.weights, act}, {{q, rows * H * nope}});
      // Attention over the latent: every head shares the one cached "KV head" (key dims
      // r + rope, values the first r of them).
      shape.kv_heads = 1;
      shape.head_dim = cache;
      shape.v_dim = r;
      shape.shared_kv = true;
      shape.inputs = {{q_abs, rows * H * r}, {rope, rows * H * rd}, {kv_write, rows * cache}};
      if (picked) shape.inputs.push_back(*picked);
      const OpId latent_out = attention_.build(*this, shape);
      // W_UV per head: the attended latent to each head's value.
      const OpId v_up = gemm("v_up", "v_up", {H, rows, vd, r, act, p_.weights, act}, {{latent_out, rows * H * r}});
      return {v_up, rows * H * vd};
    });
    return gemm_op("o_proj", "o_proj", l, {1, T, h, H * vd, act, p_.weights, act}, attn_out);
  }

  // A collective on `elements` activations that `in` produced.
  OpId collective_op(const std::string& name, const std::string& cls, int layer, OpId in, std::int64_t elements,
                     bool send_to_next, bool all_to_all = false) {
    OpNode op;
    op.name = name;
    op.op_class = cls;
    op.layer = layer;
    op.is_gemm = false;
    op.is_collective = true;
    op.send_to_next = send_to_next;
    op.all_to_all = all_to_all;
    op.collective_elements = elements;
    op.vector.dtype = collective_dtype();
    return add(std::move(op), {{in, elements}});
  }

  // The activations leave this stage for the next; the send belongs to the sending stage.
  OpId send(OpId in, std::int64_t elements) {
    const int receiver = device_;
    device_ = receiver - 1;
    OpId id = collective_op("send_to_stage" + std::to_string(receiver), "pipeline_send", -1, in, elements, true);
    device_ = receiver;
    return id;
  }

  // Row-parallel outputs are partial sums: all-reduce them over the TP group (none at tp 1).
  OpId all_reduce(const std::string& name, int layer, OpId in, std::int64_t elements) {
    if (tp_ == 1) return in;
    return collective_op("layer" + std::to_string(layer) + "." + name, "allreduce", layer, in, elements, false);
  }

  // One dense MLP (or one expert, or the shared experts) of `width` over `rows` tokens; its
  // columns split over the TP group. Up-projection biases fold into the activation's reads.
  OpId mlp(int l, const std::string& prefix, OpId in, std::int64_t rows, std::int64_t width, const OpId* after = nullptr,
           std::int64_t split = 0) {
    const std::int64_t h = m_.hidden, I = ceil_div(width, split > 0 ? split : tp_);  // column-parallel share
    const DType act = p_.activations;
    const std::int64_t up_cols = (m_.gated_mlp ? 2 : 1) * I;
    OpId up = gemm_op(prefix + (m_.gated_mlp ? "gate_up" : "up"), "mlp_up", l, {1, rows, up_cols, h, act, p_.weights, act},
                      {{in, rows * h}});
    if (after) g_.connect_control(*after, up);
    const std::int64_t bias = m_.mlp_bias ? up_cols : 0;
    OpId a = vector_op(prefix + "activation", "activation", l, rows * up_cols + bias, rows * I, kActMulFlops, {{up, rows * up_cols}});
    return gemm_op(prefix + "down", "mlp_down", l, {1, rows, h, I, act, p_.weights, act}, {{a, rows * I}});
  }

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
  RoutedExperts route(int l, std::int64_t tokens, std::int64_t copies, std::int64_t ep) const {
    RoutedExperts r;
    if (pass_.routing.kind == MoeRouting::Kind::uniform) {
      r.touched = std::min(m_.experts / ep, ceil_div(experts_touched(m_, tokens), ep));
      r.rows = ceil_div(copies, r.touched);
      r.copies = copies;
    } else {
      const MoeRoutingShape shape{tokens, m_.experts, m_.experts_per_token, ep};
      const std::vector<std::int64_t> loads = routed_loads(pass_.routing, shape, static_cast<std::uint64_t>(l % kPowerLawDraws));
      const GroupedRows g = grouped_rows(loads, kMoeTileRows);
      r.touched = g.touched;
      r.rows = g.rows;
      r.copies = g.copies;
    }
    r.total = r.touched * r.rows;
    return r;
  }

  // The routed experts' MLPs, reading `in_elements` of `in`: one grouped GEMM per projection, as
  // fused-MoE kernels run them (vLLM's and SGLang's fused_moe, TensorRT-LLM's, Mixtral's alike):
  // batch = the touched experts, each expert's weights read once and its own tokens' rows only,
  // one launch however few experts a small batch touches. The outputs: the experts' rows x hidden.
  std::vector<Input> experts(int l, OpId in, std::int64_t in_elements, const RoutedExperts& r, const OpId* after) {
    const ExpertPrecisionScope expert_precision(*this);
    const std::int64_t h = m_.hidden, touched = r.touched, rows = r.rows;
    std::vector<Input> outs;
    const std::int64_t I = ceil_div(m_.expert_width(), moe_tp_), up_cols = (m_.gated_mlp ? 2 : 1) * I;
    const DType act = p_.activations;
    GemmShape up_shape{touched, rows, up_cols, h, act, p_.weights, act};
    up_shape.grouped = true;
    OpId up = gemm_op(std::string("experts.") + (m_.gated_mlp ? "gate_up" : "up"), "mlp_up", l, up_shape, {{in, in_elements}});
    if (after) g_.connect_control(*after, up);
    // The activation and the combine see the copies themselves: tile padding rows exist only
    // inside the grouped GEMMs.
    const std::int64_t bias = m_.mlp_bias ? touched * up_cols : 0;
    OpId a = vector_op("experts.activation", "activation", l, r.copies * up_cols + bias, r.copies * I, kActMulFlops,
                       {{up, r.copies * up_cols}});
    GemmShape down_shape{touched, rows, h, I, act, p_.weights, act};
    down_shape.grouped = true;
    OpId down = gemm_op("experts.down", "mlp_down", l, down_shape, {{a, r.copies * I}});
    outs.push_back({down, r.copies * h});
    return outs;
  }

  // The shared experts (DeepSeek, Qwen2-MoE): every token of this rank goes through them, one
  // MLP of their summed width (as the reference implementations run them), TP-split.
  void shared_experts(int l, OpId in, std::vector<Input>& outs) {
    if (m_.shared_experts == 0) return;
    outs.push_back({mlp(l, "shared.", in, rows_, m_.shared_experts * m_.shared_width()), rows_ * m_.hidden});
  }

  // Bias elements the combine reads: each touched expert's down bias, and the shared one's.
  std::int64_t combine_bias(std::int64_t touched) const {
    return m_.mlp_bias ? (touched + (m_.shared_experts > 0 ? 1 : 0)) * m_.hidden : 0;
  }

  // Mixture of experts: a router, then only the touched experts run, on the tokens routed to
  // them, and their outputs are combined with the shared experts'. Top-k weights normalised or
  // not: the same work.
  OpId moe(int l, OpId in) {
    // TensorRT-LLM's CUTLASS MoE takes 16-bit or fp8 (W8A8) experts; weight-only ones (Hopper's
    // mxfp4) run its Triton MoE, which the kernel tables measure as the same call
    // (moe_torch_flow: trtllm_cutlass_moe_ops with weight-only experts).
    const Precision pe = p_.for_experts();
    const bool cutlass = pass_.moe_kernel == MoeKernel::trtllm_cutlass &&
                         ((pe.weights == pe.activations && (pe.weights == DType::bf16 || pe.weights == DType::fp16 || pe.weights == DType::fp8)) ||
                          (pe.scale_block_k > 0 && pe.weights == DType::fp8) || pe.weight_only());
    if (pass_.ep > 1 && !cutlass) return moe_expert_parallel(l, in);
    const std::int64_t h = m_.hidden, T = rows_;
    OpId router = gemm_op("router", "router", l, {1, T, m_.experts, h, p_.activations, p_.weights, p_.activations},
                          {{in, T * h}});
    if (cutlass) return trtllm_moe(l, in, router);
    // With experts spread inside the TP group, each chip runs its own experts on all the tokens.
    const RoutedExperts routed = route(l, T, ceil_div(T * m_.experts_per_token, moe_ep_), moe_ep_);
    // The router's decision gates every expert.
    std::vector<Input> outs = experts(l, in, T * h, routed, &router);
    shared_experts(l, in, outs);
    const std::int64_t shared = m_.shared_experts > 0 ? T * h : 0;
    return vector_op("combine", "moe_combine", l, routed.total * h + shared + combine_bias(routed.touched), T * h, 2, outs);
  }

  // The token copies each of this rank's experts receives when `tokens` are routed over `ep`
  // ranks: the benchmark's routings as route() draws them (the busiest rank's), uniform
  // routing spread evenly over the experts it touches in expectation, the copies exact (the
  // call pads them to its tiles itself).
  std::vector<std::int64_t> expert_loads(int l, std::int64_t tokens, std::int64_t ep) const {
    if (pass_.routing.kind != MoeRouting::Kind::uniform) {
      const MoeRoutingShape shape{tokens, m_.experts, m_.experts_per_token, ep};
      return routed_loads(pass_.routing, shape, static_cast<std::uint64_t>(l % kPowerLawDraws));
    }
    const std::int64_t copies = ceil_div(tokens * m_.experts_per_token, ep);
    const std::int64_t touched = std::max<std::int64_t>(1, std::min(m_.experts / ep, ceil_div(experts_touched(m_, tokens), ep)));
    std::vector<std::int64_t> loads(static_cast<std::size_t>(touched), copies / touched);
    for (std::int64_t e = 0; e < copies % touched; ++e) ++loads[static_cast<std::size_t>(e)];
    return loads;
  }

  // TensorRT-LLM's CUTLASS MoE call (workloads/moe_kernels.hpp), the ops the kernel tables
  // measure, after the router: the routing kernels follow one another, the data (the tokens,
  // their copies, the experts' outputs) flows from op to op, and the fused MoE op's kernels are
  // launched by one host call. Its finalize sums each token's copies; the shared experts' MLP,
  // if any, is added to it. With expert parallelism (attention data parallel over the EP
  // ranks) every rank's tokens are gathered to all of them first (an all-gather over the EP
  // group), each rank runs the call on all of them with its own experts, as the kernel tables'
  // moe_ep_size rows do, and the partial sums go back to their ranks (a reduce-scatter).
  OpId trtllm_moe(int l, OpId in, OpId router) {
    // Experts spread over the EP ranks (attention data parallel) or inside the TP group.
    const std::int64_t h = m_.hidden, T = rows_, ep = pass_.ep, all = T * ep, local_ep = ep > 1 ? ep : moe_ep_;
    OpId tokens = in;
    if (ep > 1) {
      tokens = collective_op("layer" + std::to_string(l) + ".moe_allgather", "moe_allgather", l, in, T * h, false);
      g_.op_mut(tokens).collective_elements = all * h;
      g_.op_mut(tokens).ep_exchange = OpNode::EpExchange::allgather;
      g_.connect_control(router, tokens);  // the routing's choices travel with the tokens
    }
    const std::vector<std::int64_t> loads = expert_loads(l, all, local_ep);
    // Weight-only experts: their 16-bit activations' GEMMs on weights converted in them.
    const Precision pe = p_.for_experts();
    const bool weight_only = pe.weight_only();
    const MoeLayerShape shape{all,      h,         m_.expert_width(), m_.experts,
                              m_.experts_per_token, moe_tp_, local_ep, m_.gated_mlp,
                              weight_only ? pe.activations : pe.weights, pe.scale_block_k,
                              weight_only ? std::optional<DType>(pe.weights) : std::nullopt};
    // TensorRT-LLM's Triton MoE (weight-only experts) may be a module call its host runs outside
    // the CUDA graph (the stack's [eager_calls] moe_torch_flow): the whole call, routing included.
    const double eager_host_s = weight_only ? pass_.weight_only_moe_eager_host_s : 0.0;
    OpId previous = ep > 1 ? tokens : router, data = tokens;
    bool call_started = false;
    for (const MoeKernelOp& k : trtllm_cutlass_moe_ops(shape, loads)) {
      OpNode op;
      op.name = "layer" + std::to_string(l) + "." + k.key;
      op.op_class = k.op_class;
      op.layer = l;
      op.is_gemm = k.is_gemm;
      op.gemm = k.gemm;
      op.vector = k.vector;
      op.continues_host_call = !k.new_host_call;
      if (eager_host_s > 0) {
        op.eager_host_s = call_started ? 0.0 : eager_host_s;
        op.continues_host_call = call_started;
        call_started = true;
      }
      std::vector<Input> inputs;
      // With EP the top-k reads every rank's logits; this rank's router made its own share.
      if (k.feed == MoeFeed::router_logits) inputs.push_back({router, std::min(k.feed_elements, T * m_.experts)});
      if (k.feed == MoeFeed::hidden) inputs.push_back({tokens, k.feed_elements});
      if (k.feed == MoeFeed::previous) inputs.push_back({data, k.feed_elements});
      const OpId id = add(std::move(op), inputs);
      if (inputs.empty() || inputs.front().from != previous) g_.connect_control(previous, id);
      if (k.feed != MoeFeed::none && k.feed != MoeFeed::router_logits) data = id;
      previous = id;
    }
    if (ep > 1) {
      data = collective_op("layer" + std::to_string(l) + ".moe_reducescatter", "moe_reducescatter", l, data, all * h, false);
      g_.op_mut(data).ep_exchange = OpNode::EpExchange::reducescatter;
    }
    std::vector<Input> outs{{data, T * h}};
    shared_experts(l, in, outs);
    if (outs.size() == 1) return data;
    return vector_op("combine", "moe_combine", l, 2 * T * h, T * h, 1, outs);
  }

  // Expert parallel MoE: route this chip's tokens, send each token's k copies to the chips
  // holding its experts (all-to-all), run the local experts on what arrives, send the results
  // back (all-to-all) and combine. Uniform routing: every chip receives T x k token copies.
  // With TP, each TP rank dispatches the same tokens over its own EP group and runs its column
  // share of the local experts; layer() all-reduces the combined partial sums over the TP
  // group afterwards (combining is linear, so reducing after it moves T rows, not T x k).
  // Shared experts are not split by EP: each rank runs them on its own tokens.
  OpId moe_expert_parallel(int l, OpId in) {
    const std::int64_t h = m_.hidden, T = rows_, k = m_.experts_per_token, ep = pass_.ep;
    OpId router = gemm_op("router", "router", l, {1, T, m_.experts, h, p_.activations, p_.weights, p_.activations},
                          {{in, T * h}});
    const std::int64_t copies = T * k;
    // Uniform routing: every rank receives T x k copies; the benchmark's routings load the
    // measured rank's experts as they fall, and that rank receives (and sends back) what they hold.
    const RoutedExperts routed = route(l, T * ep, copies, ep);
    const std::int64_t received = std::max(copies, routed.copies);
    // The dispatch reads the tokens and sends their k copies (rows of h) once routed.
    OpId dispatch = collective_op("layer" + std::to_string(l) + ".dispatch", "alltoall", l, in, T * h, false, true);
    g_.op_mut(dispatch).collective_elements = received * h;
    g_.connect_control(router, dispatch);
    std::vector<Input> outs = experts(l, dispatch, received * h, routed, nullptr);
    OpId gathered = vector_op("expert_outputs", "moe_combine", l, routed.total * h, received * h, 0, outs);
    OpId back = collective_op("layer" + std::to_string(l) + ".combine_alltoall", "alltoall", l, gathered, received * h,
                              false, true);
    std::vector<Input> combine_in{{back, received * h}};
    shared_experts(l, in, combine_in);
    const std::int64_t shared = m_.shared_experts > 0 ? T * h : 0;
    return vector_op("combine", "moe_combine", l, received * h + shared + combine_bias(routed.touched), T * h, 2, combine_in);
  }

  const ModelConfig& m_;
  ForwardPass pass_;
  Precision p_;
  // While alive, the builder's precision is the routed experts' (Precision::for_experts).
  struct ExpertPrecisionScope {
    Builder& b;
    Precision saved;
    explicit ExpertPrecisionScope(Builder& builder) : b(builder), saved(builder.p_) { b.p_ = saved.for_experts(); }
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
};

}  // namespace

ForwardPass mixed_pass(std::vector<SequenceGroup> groups) {
  if (groups.empty()) throw InputError("a mixed pass needs at least one group of sequences");
  ForwardPass pass;
  pass.batch = 0;
  for (const SequenceGroup& g : groups) {
    if (g.count < 1 || g.new_tokens < 1 || g.context < g.new_tokens) {
      throw InputError("a group of " + std::to_string(g.count) + " sequences adding " + std::to_string(g.new_tokens) +
                       " tokens at context " + std::to_string(g.context) + ": needs at least one sequence, one new token "
                       "and a context that holds the new tokens");
    }
    if (!g.prefill && g.new_tokens > kMaxVerifyTokens) {
      throw InputError("a decode group adds at most " + std::to_string(kMaxVerifyTokens) +
                       " tokens per sequence (one and 64 drafted ones to verify)");
    }
    pass.batch += g.count;
  }
  pass.groups = std::move(groups);
  pass.new_tokens = pass.groups.front().new_tokens;
  pass.context = pass.groups.front().context;
  pass.prefill = pass.groups.front().prefill;
  return pass;
}

ForwardPass prefill_pass(std::int64_t batch, std::int64_t prompt) {
  return ForwardPass{batch, prompt, prompt, true};
}

ForwardPass decode_pass(std::int64_t batch, std::int64_t prompt, std::int64_t generated) {
  return ForwardPass{batch, 1, prompt + generated + 1, false};
}

void check_tensor_parallel(const ModelConfig& m, std::int64_t tp) {
  if (tp < 1) throw InputError("${tp} must be at least 1");
  if (tp > 4096) throw InputError("${tp} " + std::to_string(tp) + ": at most 4096 chips");
  // Engines split the query heads evenly (TensorRT-LLM and vLLM refuse anything else); KV
  // heads split evenly too, or, when there are fewer than chips, each is replicated on
  // tp / kv_heads chips (stated in the results).
  if (m.heads % tp != 0) {
    throw InputError("${tp} " + std::to_string(tp) + " must divide the " + std::to_string(m.heads) + " attention heads of " +
                     m.name);
  }
  if (m.kv_heads % tp != 0 && tp % m.kv_heads != 0) {
    throw InputError("${tp} " + std::to_string(tp) + " and the " + std::to_string(m.kv_heads) + " KV heads of " + m.name +
                     ": one must divide the other (KV heads split over the chips, or each replicated on tp / kv_heads chips)");
  }
}

void check_expert_parallel(const ModelConfig& m, const ForwardPass& pass) {
  if (pass.routing.kind != MoeRouting::Kind::uniform && m.experts <= 1) {
    throw InputError("${routing} " + moe_routing_name(pass.routing) + ": " + m.name + " has no experts to route to");
  }
  if (pass.moe_tp > 0 && pass.moe_tp != pass.tp) {
    const std::string what = "${moe_tp} " + std::to_string(pass.moe_tp);
    if (m.experts <= 1) throw InputError(what + ": " + m.name + " has no experts");
    if (pass.tp % pass.moe_tp != 0) throw InputError(what + " must divide ${tp} " + std::to_string(pass.tp));
    if (m.experts % (pass.tp / pass.moe_tp) != 0) {
      throw InputError(what + ": the " + std::to_string(m.experts) + " experts do not split evenly over tp / moe_tp = " +
                       std::to_string(pass.tp / pass.moe_tp) + " ways");
    }
    if (pass.ep > 1) throw InputError(what + " with ${ep} " + std::to_string(pass.ep) + ": experts spread both inside the TP group and over data-parallel ranks is not modelled");
  }
  if (pass.ep == 1) return;
  if (m.experts <= 1) throw InputError("${ep} " + std::to_string(pass.ep) + ": " + m.name + " has no experts");
  if (m.experts % pass.ep != 0) {
    throw InputError("${ep} " + std::to_string(pass.ep) + " must divide the " + std::to_string(m.experts) + " experts");
  }
  // A mixed pass (serving) holds one EP rank's sequences already.
  if (pass.groups.empty() && pass.batch % (pass.ep * pass.microbatches) != 0) {
    const std::string times = pass.microbatches > 1 ? " x " + std::to_string(pass.microbatches) + " micro-batches" : "";
    throw InputError("${ep} " + std::to_string(pass.ep) + times + " must divide the batch (" + std::to_string(pass.batch) +
                     "): attention is data parallel over the EP ranks");
  }
}

void check_pipeline(const ModelConfig& m, const ForwardPass& pass) {
  if (pass.pp < 1 || pass.pp > m.layers) {
    throw InputError("${pp} " + std::to_string(pass.pp) + ": between 1 and the model's " + std::to_string(m.layers) + " layers");
  }
  if (pass.microbatches < 1 || pass.batch % pass.microbatches != 0) {
    throw InputError("${microbatches} " + std::to_string(pass.microbatches) + " must divide the batch (" +
                     std::to_string(pass.batch) + ")");
  }
}

std::pair<int, int> stage_layers(const ModelConfig& m, std::int64_t pp, std::int64_t s) {
  const std::int64_t first = s * m.layers / pp, last = (s + 1) * m.layers / pp;
  return {static_cast<int>(first), static_cast<int>(last)};
}

std::int64_t experts_touched(const ModelConfig& m, std::int64_t tokens) {
  const double e = static_cast<double>(m.experts), k = static_cast<double>(m.experts_per_token);
  const double expected = e * (1.0 - std::pow(1.0 - k / e, static_cast<double>(tokens)));
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(expected - 1e-9)), m.experts_per_token, m.experts);
}

OpGraph build_forward(const ModelConfig& m, const ForwardPass& pass, const Precision& p, const AttentionImpl& attention) {
  check_tensor_parallel(m, pass.tp);
  check_pipeline(m, pass);
  check_expert_parallel(m, pass);
  if (!pass.groups.empty() && pass.microbatches != 1) throw InputError("a mixed pass (serving) runs as one micro-batch");
  return Builder(m, pass, p, attention_kernels().get(attention.name, "attention")).build();
}

}  // namespace roofsim
