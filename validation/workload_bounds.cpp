#include "validation/workload_bounds.hpp"

#include <algorithm>
#include <cmath>

#include "validation/analytic.hpp"

namespace roofsim {

double decode_step_bound_s(double weight_bytes, double kv_bytes, double bandwidth) {
  return (weight_bytes + kv_bytes) / bandwidth;
}

double forward_flops(const ModelConfig& m, std::int64_t batch, std::int64_t tokens,
                     double context) {
  const double b = static_cast<double>(batch), t = static_cast<double>(tokens);
  // Every weight that a token touches does one multiply-add per token, except the input
  // embedding, which is a lookup.
  const double table = static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
  const double matmul_params = m.active_params_per_token() - table +
                               (m.tied_embeddings ? table : 0.0);
  const double linear = 2.0 * matmul_params * b * t;
  // QK^T and AV: 2 x 2 x heads x head_dim FLOPs per (query, key) pair per layer.
  const double attention = 4.0 * static_cast<double>(m.layers) * static_cast<double>(m.heads) *
                           static_cast<double>(m.head_dim) * b * t * context;
  return linear + attention;
}

namespace {
PhaseBound phase(double flops, double bytes, const HardwareSpec& hw, DType compute) {
  PhaseBound p;
  p.flops = flops;
  p.bytes = bytes;
  p.compute_time_s = flops / peak_flops(hw, compute);
  p.memory_time_s = bytes / hw.hbm.bandwidth;
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
  r.prefill = phase(forward_flops(m, s.batch, s.prompt, (prompt + 1) / 2),
                    step_weight_bytes + b * prompt * r.kv_bytes_per_token, hw, compute);

  auto decode_at = [&](double context) {
    return phase(forward_flops(m, s.batch, 1, context),
                 step_weight_bytes + b * context * r.kv_bytes_per_token, hw, compute);
  };
  r.decode_first = decode_at(prompt + 1);
  const double gen = static_cast<double>(s.generate);
  // Decode step j = 1 .. gen-1 attends to prompt + j tokens; its cost is linear in context,
  // so the mean step is the step at the mean context, prompt + gen / 2.
  r.decode_mean = decode_at(prompt + std::max(1.0, gen / 2));
  r.ttft_s = r.prefill.bound_time_s;
  // The first generated token comes out of prefill; the remaining gen - 1 are decode steps.
  r.tpot_s = r.decode_mean.bound_time_s;
  r.total_s = r.ttft_s + std::max(0.0, gen - 1) * r.tpot_s;
  r.tokens_per_s = b / r.tpot_s;
  return r;
}

}  // namespace roofsim
