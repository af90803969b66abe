// The attention ops of a forward pass (ForwardBuilder, workloads/forward_builder.hpp).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "workloads/forward_builder.hpp"

namespace roofsim {

auto ForwardBuilder::window(int l, const SequenceGroup& g) const -> std::int64_t {
  if (m_.sliding_layer(l)) return m_.sliding_window;
  if (m_.chunked_layer(l)) return g.prefill ? m_.attention_chunk : m_.attended_keys(l, g.context);
  if (m_.sparse) return m_.sparse->topk;
  return 0;
}

auto ForwardBuilder::indexer(int l, OpId q_in, std::int64_t q_dim, OpId norm) -> IndexerOps {
  const SparseAttention& x = *m_.sparse;
  const std::int64_t h = m_.hidden, T = rows_, d = x.index_head_dim, H = x.index_heads;
  const DType act = p_.activations;
  IndexerOps ix;
  ix.q = gemm_op("indexer_q", "indexer", l, {1, T, H * d, q_dim, act, p_.weights, act}, {{q_in, T * q_dim}});
  const OpId k = gemm_op("indexer_k", "indexer", l, {1, T, d + H, h, act, act, act}, {{norm, T * h}});
  ix.k_write = vector_op("indexer_k_write", "kv_write", l, T * d, T * d, 0, {{k, T * d}}, DType::fp8, true);
  return ix;
}

auto ForwardBuilder::indexer_topk(const IndexerOps& ix, int l, const SequenceGroup& g, std::int64_t rows) -> Input {
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

auto ForwardBuilder::attention(int l, OpId norm) -> OpId {
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
  // Fused (Fusion::rope): both in the QKV GEMM's epilogue, with the bias.
  const bool fuse = pass_.fusion.rope;
  OpId rope_in = m_.qk_norm && !fuse ? vector_op("qk_norm", "norm", l, qk, qk, kNormFlops, {{qkv, qk}}) : qkv;
  // Rotary embedding on Q and K; the new K and V go into the cache in its storage type. The
  // QKV bias (Qwen2, gpt-oss, NeoX) is read by this first element-wise pass (bias add fused).
  const std::int64_t qkv_bias = m_.qkv_bias ? qkv_cols : 0;
  OpId rope = fuse ? qkv : vector_op("rope", "rope", l, qk + qkv_bias, qk, kRopeFlops, {{rope_in, qk}});
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
    if (m_.sparse) {
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

auto ForwardBuilder::linear_attention(int l, OpId norm) -> OpId {
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

template <typename Attend>
auto ForwardBuilder::per_group(int l, Attend attend) -> std::vector<Input> {
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

auto ForwardBuilder::latent_attention(int l, OpId norm) -> OpId {
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
    const std::optional<Input> picked = m_.sparse ? std::optional(indexer_topk(ix, l, g, rows)) : std::nullopt;
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

}  // namespace roofsim
