#pragma once
// Closed-form bounds for a whole inference run, from the model's sizes alone (no graph):
// decode's speed of light is (weights read + KV cache read) / bandwidth per step; prefill's
// bound is the larger of its FLOPs over peak and its bytes over bandwidth.
#include "core/hardware.hpp"
#include "workloads/model.hpp"

namespace roofsim {

struct InferenceSetup {
  std::int64_t batch = 1;
  std::int64_t prompt = 512;
  std::int64_t generate = 128;
  DType weights = DType::bf16;
  DType activations = DType::bf16;
  DType kv = DType::bf16;
};

struct PhaseBound {
  double flops = 0;
  double bytes = 0;
  double compute_time_s = 0;
  double memory_time_s = 0;
  double bound_time_s = 0;
  double intensity() const { return flops / bytes; }
};

struct InferenceBound {
  double weight_bytes = 0;       // all weights resident in HBM
  double kv_bytes_per_token = 0;
  PhaseBound prefill;            // the whole prompt batch
  PhaseBound decode_first;       // one step at context = prompt
  PhaseBound decode_mean;        // mean step over the generated tokens
  double ttft_s = 0;             // prefill bound
  double tpot_s = 0;             // mean decode step bound
  double total_s = 0;
  double tokens_per_s = 0;       // generated tokens per second over the decode phase, all batch
};

// FLOPs of one forward pass for `tokens` new tokens per sequence attending to `context` keys on
// average (a prefill from scratch: (tokens + 1) / 2; sliding layers band it themselves).
// `decode`: a decode step (MLA's absorbed form; sliding layers cap `context` at the window).
double forward_flops(const ModelConfig& m, std::int64_t batch, std::int64_t tokens,
                     double context, bool decode = false);
InferenceBound bound_inference(const ModelConfig& m, const HardwareSpec& hw,
                               const InferenceSetup& s);
// Speed of light for one decode step: bytes that must cross the HBM interface / bandwidth.
double decode_step_bound_s(double weight_bytes, double kv_bytes, double bandwidth);

}  // namespace roofsim
