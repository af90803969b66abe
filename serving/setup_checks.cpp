// What a serving run refuses before it starts (serving/setup_checks.hpp).
#include "serving/setup_checks.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/format.hpp"
#include "serving/batching_policy.hpp"
#include "serving/kv_preemption.hpp"

namespace roofsim {

void check_serving_setup(const ServingSetup& s) {
  const SchedulerConfig& c = s.scheduler;
  if (c.max_batch < 1 || c.max_batch > kMaxBatch) throw InputError("${max_batch} must be between 1 and " + std::to_string(kMaxBatch));
  if (c.max_tokens < 1 || c.max_tokens > kMaxTokens) throw InputError("${max_tokens} must be between 1 and " + std::to_string(kMaxTokens));
  if (c.max_prompts < 0 || c.max_prompts > kMaxBatch) {
    throw InputError("${max_prompts} must be between 0 (no limit) and " + std::to_string(kMaxBatch));
  }
  if (!(c.batch_wait_tokens_ratio >= 0 && c.batch_wait_tokens_ratio <= 1)) throw InputError("${batch_wait_tokens_ratio} must be in [0, 1]");
  for (auto [name, v] : {std::pair{"${batch_wait_iters}", c.batch_wait_iters}, {"${adp_balance_timeout_iters}", c.adp_balance_timeout_iters},
                         {"${adp_batching_wait_iters}", c.adp_batching_wait_iters}}) {
    if (v < 0 || v > SchedulerConfig::kMaxBatchWaitIters) {
      throw InputError(std::string(name) + " must be between 0 (off) and " + std::to_string(SchedulerConfig::kMaxBatchWaitIters));
    }
  }
  if (s.kv.block_tokens < 1 || s.kv.block_tokens > 65536) throw InputError("${block_tokens} must be between 1 and 65536");
  if (!(s.kv.memory_fraction > 0 && s.kv.memory_fraction <= 1)) throw InputError("${kv_memory_fraction} must be in (0, 1]");
  if (s.kv.blocks < 0) throw InputError("${kv_blocks} must not be negative");
  const BatchingPolicy& batching = batchings().get(c.policy, "scheduler");
  if (kv_preemptions().get(s.kv.preemption, "kv_preemption").preempted_kv() == PreemptedKv::copied_to_host && !batching.iteration_level()) {
    throw InputError("${kv_preemption} " + s.kv.preemption + ": the " + c.policy + " scheduler readmits no one mid-batch; " +
                     s.kv.preemption + " needs continuous batching");
  }
  if (!(s.iteration_overhead_s >= 0 && s.iteration_overhead_s < 1)) throw InputError("${iteration_overhead_ms} must be in [0, 1000) ms");
  if (!(s.sequence_overhead_s >= 0 && s.sequence_overhead_s < 0.01)) throw InputError("${sequence_overhead_us} must be in [0, 10000) us");
  const FrontendConfig& f = s.frontend;
  if (!(f.request_s >= 0 && f.request_s < 1)) throw InputError("${frontend_request_us} must be in [0, 1e6) us");
  if (!(f.prompt_token_s >= 0 && f.prompt_token_s < 0.001)) throw InputError("${frontend_prompt_token_us} must be in [0, 1000) us");
  if (!(f.response_s >= 0 && f.response_s < 0.1)) throw InputError("${frontend_response_us} must be in [0, 1e5) us");
  if (f.enabled() && s.disaggregation.enabled) {
    throw InputError("${frontend_request_us}, ${frontend_prompt_token_us}, ${frontend_response_us}: the API server is modelled in front of one instance, not yet with disaggregation");
  }
  if (s.buckets_per_octave < 0 || s.buckets_per_octave > 4096) throw InputError("${buckets} must be between 0 and 4096");
  if (!(s.slo_ttft_s >= 0 && std::isfinite(s.slo_ttft_s)) || !(s.slo_tpot_s >= 0 && std::isfinite(s.slo_tpot_s))) {
    throw InputError("SLOs must be finite and not negative");
  }
  if (c.micro_batches < 0 || c.micro_batches > 1024) throw InputError("${micro_batches} must be between 0 (one per pipeline stage) and 1024");
  if (c.micro_batches > 1 && s.machine.pp == 1) {
    throw InputError("${micro_batches} " + std::to_string(c.micro_batches) + ": micro-batches take turns on pipeline stages; with one stage (${pp} 1) iterations run one at a time");
  }
  if (s.machine.pp > 1) {
    // Pipelined micro-batches are built for the continuous scheduler's iterations.
    if (!batching.iteration_level()) {
      throw InputError("${pp}: the " + c.policy + " scheduler runs one batch through the stages at a time; pipeline stages serve with continuous batching so far");
    }
  }
  const DisaggregationConfig& g = s.disaggregation;
  if (g.enabled) {
    if (g.prefill_instances < 1 || g.prefill_instances > 1024 || g.decode_instances < 1 || g.decode_instances > 1024) {
      throw InputError("${prefill_instances} and ${decode_instances} must be between 1 and 1024");
    }
    if (g.prefill_tp < 0 || g.prefill_tp > 1024 || g.decode_tp < 0 || g.decode_tp > 1024) {
      throw InputError("${prefill_tp} and ${decode_tp} must be between 1 and 1024");
    }
    if (g.prefill_max_batch < 0 || g.prefill_max_batch > kMaxBatch) {
      throw InputError("${prefill_max_batch} must be between 0 (the scheduler's ${max_batch}) and " + std::to_string(kMaxBatch));
    }
    if (g.decode_first_response < 1 || g.decode_first_response > kMaxTokens) {
      throw InputError("${decode_first_response} must be between 1 and " + std::to_string(kMaxTokens));
    }
    if (g.decode_first_response > 1 && g.first_token != DisaggregationConfig::FirstToken::decode) {
      throw InputError("${decode_first_response} counts the decode instance's iterations before it responds: give ${first_token} decode too");
    }
    if (g.prefill_max_tokens < 0 || g.prefill_max_tokens > kMaxTokens) {
      throw InputError("${prefill_max_tokens} must be between 0 (the scheduler's ${max_tokens}) and " + std::to_string(kMaxTokens));
    }
    for (std::int64_t v : {g.prefill_ep, g.decode_ep, g.prefill_moe_tp, g.decode_moe_tp, g.gpus_per_node}) {
      if (v < 0 || v > 1024) throw InputError("disaggregated pools: EP ranks, experts' TP and GPUs per node must be between 0 (not set) and 1024");
    }
    if (s.machine.pp != 1) throw InputError("${pp}: disaggregated instances run without pipeline stages so far");
    if (!s.machine.topology.empty()) {
      throw InputError("${topology}: disaggregated instances each take the default topology of their chips so far");
    }
    if (!batching.iteration_level()) {
      throw InputError("${scheduler} " + c.policy + ": disaggregated instances batch continuously");
    }
  }
  if (s.warmup_requests < 0) throw InputError("${warmup} must not be negative");
  if (!(s.workload.arrivals.ramp_s >= 0 && s.workload.arrivals.ramp_s < kMaxArrivalS)) {
    throw InputError("${ramp_ms} must be in [0, " + format_general(kMaxArrivalS * 1e3) + ") ms");
  }
  const SpeculativeConfig& d = s.speculative;
  if (d.tokens < 0 || d.tokens > kMaxVerifyTokens - 1) {
    throw InputError("${speculative_tokens} must be between 0 and " + std::to_string(kMaxVerifyTokens - 1));
  }
  if (!(d.acceptance >= 0 && d.acceptance <= 1)) throw InputError("${acceptance} must be in [0, 1]");
  if (!d.position_acceptance.empty() && static_cast<std::int64_t>(d.position_acceptance.size()) != d.tokens) {
    throw InputError("${acceptance} gives " + std::to_string(d.position_acceptance.size()) + " per-position chances for " +
                     std::to_string(d.tokens) + " drafted tokens: one per drafted token");
  }
  for (double p : d.position_acceptance) {
    if (!(p >= 0 && p <= 1)) throw InputError("${acceptance}: every per-position chance must be in [0, 1]");
  }
}

std::string serving_request_name(const ServingSetup& s, const RequestSpec& r) {
  const std::string where = r.line > 0 ? s.workload.trace_path + ":" + std::to_string(r.line) + ": " : "";
  return where + "request " + std::to_string(r.id) + " (" + std::to_string(r.prompt_tokens) + " prompt + " +
         std::to_string(r.output_tokens) + " output tokens)";
}

void check_serving_requests(const ServingSetup& s, const std::vector<RequestSpec>& requests, const ModelConfig& model,
                    const KvBlockPool& pool, std::int64_t ep_ranks) {
  // With expert parallelism the cache is every EP rank's; a request lives on one of them.
  const std::int64_t rank_capacity = pool.capacity() / std::max<std::int64_t>(1, ep_ranks);
  if (s.warmup_requests >= static_cast<std::int64_t>(requests.size())) {
    throw InputError("${warmup} " + std::to_string(s.warmup_requests) + " leaves none of the " +
                     std::to_string(requests.size()) + " requests to count");
  }
  for (const RequestSpec& r : requests) {
    const std::string who = serving_request_name(s, r);
    // Verifying drafts may write keys for k tokens beyond the last one kept.
    const std::int64_t context = r.prompt_tokens + r.output_tokens + s.speculative.tokens;
    if (model.max_context > 0 && context > model.max_context && !s.machine.allow_long_context) {
      throw InputError(who + ": beyond " + model.name + "'s maximum context of " + std::to_string(model.max_context) +
                       " (${allow_long_context} simulates it anyway)");
    }
    // The instances that prefill (the prefill ones, disaggregated) must take a whole prompt at once.
    const bool own_budget = s.disaggregation.enabled && s.disaggregation.prefill_max_tokens > 0;
    const std::int64_t budget = own_budget ? s.disaggregation.prefill_max_tokens : s.scheduler.max_tokens;
    if (!s.scheduler.chunked_prefill && r.prompt_tokens > budget) {
      throw InputError(who + ": its prompt exceeds the " + (own_budget ? "${prefill_max_tokens}" : "${max_tokens}") + " budget of " +
                       std::to_string(budget) + " tokens per iteration; raise it or use ${chunked_prefill}");
    }
    if (pool.blocks_for(context) > rank_capacity) {
      throw InputError(who + ": needs " + std::to_string(pool.blocks_for(context)) + " KV blocks of " +
                       std::to_string(pool.block_tokens()) + " tokens and the cache holds " + std::to_string(rank_capacity) +
                       (ep_ranks > 1 ? " on each EP rank" : "") + " (more chips, a smaller KV dtype, or shorter requests)");
    }
  }
}

}  // namespace roofsim
