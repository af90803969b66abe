#include "validation/workload_bounds.hpp"

#include <algorithm>
#include <cmath>

#include "validation/analytic.hpp"

namespace roofsim {

double decode_step_bound_s(double weight_bytes, double kv_bytes, double bandwidth) {
  return (weight_bytes + kv_bytes) / bandwidth;
}

namespace {
// Sum over p = 1..S of min(p, w): a banded causal prefill's keys.
double banded_keys(double s, double w) { return s <= w ? s * (s + 1) / 2 : w * (w + 1) / 2 + (s - w) * w; }

// Keys a query attends to on layer l, on average: `context` in decode (capped by a window or
// a sparse layer's top-k, or the newest chunk's keys); in a prefill of `tokens` tokens from
// scratch, `context` (the causal mean) on global layers, the banded mean, sum over p = 1..S of
// min(p, W) / S, on sliding and sparse ones (not min(mean, W): that is larger, and a bound must
// not be), and on chunked ones each query's keys of its own chunk.
double keys_on_layer(const ModelConfig& m, std::int64_t l, std::int64_t tokens, double context, bool decode) {
  if (m.linear_layer(l)) return 0;  // a recurrent state: no keys
  const bool chunked = m.chunked_layer(l);
  if (!m.sliding_layer(l) && !chunked && !m.sparse) return context;
  if (decode || tokens <= 1) return static_cast<double>(m.attended_keys(l, std::llround(context)));
  const double s = static_cast<double>(tokens);
  if (chunked) {
    const double c = static_cast<double>(m.attention_chunk), whole = std::floor(s / c), rest = s - whole * c;
    return (whole * c * (c + 1) / 2 + rest * (rest + 1) / 2) / s;
  }
  const double w = static_cast<double>(m.sliding_layer(l) ? m.sliding_window : m.sparse->topk);
  if (s <= w) return context;
  return banded_keys(s, w) / s;
}
}  // namespace

double forward_flops(const ModelConfig& m, std::int64_t batch, std::int64_t tokens,
                     double context, bool decode) {
  const double b = static_cast<double>(batch), t = static_cast<double>(tokens);
  // Every weight that a token touches does one multiply-add per token, except the input
  // embedding, which is a lookup. (MLA: prefill's kv_b on each token and decode's W_UK and
  // W_UV on each query are the same weights, the same FLOPs per token.)
  const double table = static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
  const double matmul_params = m.active_params_per_token() - table +
                               (m.tied_embeddings ? table : 0.0);
  const double linear = 2.0 * matmul_params * b * t;
  // QK^T and AV: 2 x heads x (qk dim + v dim) FLOPs per (query, key) pair per layer: 4 x
  // heads x head_dim for MHA/GQA; MLA's prefill form 2 x heads x (nope + rope + v), its
  // absorbed decode form 2 x heads x (kv_lora + rope + kv_lora) over the latent.
  double per_pair = 4.0 * static_cast<double>(m.heads) * static_cast<double>(m.head_dim);
  if (m.mla) {
    const LatentAttention& a = *m.mla;
    const double dims = decode ? static_cast<double>(a.cache_dims() + a.kv_lora_rank)
                               : static_cast<double>(a.qk_head_dim() + a.v_head_dim);
    per_pair = 2.0 * static_cast<double>(m.heads) * dims;
  }
  double keys = 0;  // summed over layers
  if (!m.local_attention()) {
    keys = static_cast<double>(m.layers) * context;
  } else {
    for (std::int64_t l = 0; l < m.layers; ++l) keys += keys_on_layer(m, l, tokens, context, decode);
  }
  double attention = per_pair * b * t * keys;
  // A sparse layer's indexer scores every key, attended or not: 2 x heads x head dim per pair.
  if (m.sparse) attention += 2.0 * static_cast<double>(m.sparse->index_heads * m.sparse->index_head_dim) * b * t * static_cast<double>(m.layers) * context;
  // A linear layer's token reads its output from the state and corrects the state by a rank-one
  // update: at least 4 x key dim x value dim FLOPs per value head, whatever the context.
  if (m.linear) {
    const LinearAttention& a = *m.linear;
    attention += 4.0 * static_cast<double>(a.value_heads * a.key_head_dim * a.value_head_dim) * b * t * static_cast<double>(m.linear_layer_count());
  }
  return linear + attention;
}

namespace {
PhaseBound phase(double flops, double bytes, const HardwareSpec& hw, DType compute) {
  PhaseBound p;
  p.flops = flops;
  p.bytes = bytes;
  p.compute_time_s = flops / peak_flops(hw, compute);
  p.memory_time_s = bytes / hw.memory_bandwidth();
  p.bound_time_s = std::max(p.compute_time_s, p.memory_time_s);
  return p;
}
}  // namespace

InferenceBound bound_inference(const ModelConfig& m, const HardwareSpec& hw,
                               const InferenceSetup& s) {
  InferenceBound r;
  const double b = static_cast<double>(s.batch);
  r.weight_bytes = m.total_params() * dtype_bytes(s.weights);
  r.kv_bytes_per_token = m.kv_bytes_per_token(s.kv);
  // A batch of B tokens touches E (1 - (1 - k/E)^B) distinct experts per layer on average
  // (uniform routing); only their weights are read.
  const double experts = static_cast<double>(m.experts);
  const double touched =
      experts * (1.0 - std::pow(1.0 - static_cast<double>(m.experts_per_token) / experts, b));
  const double active_weight_bytes =
      (m.total_params() - static_cast<double>(m.moe_layer_count()) * (experts - touched) *
                              m.mlp_params_per_expert()) *
      dtype_bytes(s.weights);
  const double table_bytes = static_cast<double>(m.vocab * m.hidden) * dtype_bytes(s.weights);
  // Only the looked-up rows of an untied input embedding are read.
  const double step_weight_bytes = active_weight_bytes - (m.tied_embeddings ? 0.0 : table_bytes);
  // Compute follows the activation dtype; weight-only quantized weights are dequantized.
  const DType compute = s.activations;

  const double prompt = static_cast<double>(s.prompt);
  // Causal prefill: query i attends to i keys, (S + 1) / 2 on average.
  // The prompt's cache is written once (sliding layers keep at most the window, but write
  // every token: the bound counts what is kept, the smaller).
  // Only the last position of each prompt gets logits: the LM head's other rows are not work.
  const double unused_logits = 2.0 * b * std::max(0.0, prompt - 1) * static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
  r.prefill = phase(forward_flops(m, s.batch, s.prompt, (prompt + 1) / 2) - unused_logits,
                    step_weight_bytes + b * (m.local_attention() ? m.kv_cache_bytes(s.kv, s.prompt) : prompt * r.kv_bytes_per_token), hw, compute);

  auto decode_at = [&](double context) {
    const double kv = m.local_attention() ? m.kv_read_bytes(s.kv, std::llround(context)) : context * r.kv_bytes_per_token;
    return phase(forward_flops(m, s.batch, 1, context, true), step_weight_bytes + b * kv, hw, compute);
  };
  r.decode_first = decode_at(prompt + 1);
  const double gen = static_cast<double>(s.generate);
  // Decode step j = 1 .. gen-1 attends to prompt + j tokens; its cost is linear in context,
  // so the mean step is the step at the mean context, prompt + gen / 2.
  r.decode_mean = decode_at(prompt + std::max(1.0, gen / 2));
  if (m.local_attention() && s.generate > 2) {
    // A window or top-k makes the cost concave in context (it stops growing), a chunk makes it
    // saw-toothed: the step at the mean context may exceed the mean step. Average FLOPs and
    // bytes over the steps instead.
    double flops = 0, bytes = 0;
    for (std::int64_t j = 1; j < s.generate; ++j) {
      const PhaseBound p = decode_at(prompt + static_cast<double>(j) + 1);
      flops += p.flops;
      bytes += p.bytes;
    }
    const double steps = static_cast<double>(s.generate - 1);
    r.decode_mean = phase(flops / steps, bytes / steps, hw, compute);
  }
  r.ttft_s = r.prefill.bound_time_s;
  // The first generated token comes out of prefill; the remaining gen - 1 are decode steps.
  r.tpot_s = r.decode_mean.bound_time_s;
  r.total_s = r.ttft_s + std::max(0.0, gen - 1) * r.tpot_s;
  r.tokens_per_s = b / r.tpot_s;
  return r;
}

}  // namespace roofsim
