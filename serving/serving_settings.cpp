#include "serving/serving_settings.hpp"

#include <cmath>
#include <set>

#include "core/error.hpp"
#include "experiment/experiment_settings.hpp"
#include "experiment/stack.hpp"
#include "serving/stack_serving.hpp"

namespace roofsim {

namespace {

const std::set<std::string> kKeys = {
    "concurrency", "rate", "burst", "burst_interval_ms", "trace_file", "ramp_ms", "requests", "prompt", "output", "seed",
    "warmup", "scheduler", "priority", "max_batch", "max_tokens", "max_prompts", "batch_wait_iters", "batch_wait_tokens_ratio", "adp_balance_timeout_iters", "adp_batching_wait_iters", "micro_batches", "chunked_prefill", "kv_admission", "kv_preemption", "block_tokens",
    "kv_memory_fraction", "kv_blocks", "prefix_caching", "iteration_overhead_ms", "sequence_overhead_us", "overlap_scheduler", "late_release", "schedule_ahead", "limits_per_rank",
    "frontend_request_us", "frontend_prompt_token_us", "frontend_response_us", "buckets",
    "all_layers", "slo_ttft_ms", "slo_tpot_ms", "speculative_tokens", "draft", "acceptance", "disaggregate",
    "prefill_instances", "decode_instances", "prefill_tp", "decode_tp", "prefill_max_batch", "prefill_max_tokens", "instance_routing",
    "first_token", "decode_first_response", "prefill_schedule_ahead", "stack"};

std::string one_of(const std::string& key, const nlohmann::json& v, const std::set<std::string>& allowed, const std::string& listed) {
  const std::string t = setting_text(key, v);
  if (!allowed.count(t)) setting_refused(key, v, listed);
  return t;
}

// A whole number within the range `roofsim serve`'s flag takes, so every front end refuses alike.
std::int64_t whole_between(const std::string& key, const nlohmann::json& v, std::int64_t lo, std::int64_t hi) {
  const std::int64_t n = setting_whole(key, v);
  if (n < lo || n > hi) setting_refused(key, v, "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
  return n;
}

// A length: a number of tokens, or a distribution "normal:1000:200".
LengthDistribution length(const std::string& key, const nlohmann::json& v) {
  if (v.is_number()) return parse_length_distribution(std::to_string(setting_whole(key, v)), key);
  return parse_length_distribution(setting_text(key, v), key);
}

}  // namespace

bool is_serving_setting(const std::string& key) { return kKeys.count(key) > 0; }

ServingSettings::ServingSettings() { s_.workload = default_serving_workload(); }

void ServingSettings::set(const std::string& key, const nlohmann::json& v) {
  WorkloadSpec& w = s_.workload;
  given_.insert(key);
  if (key == "stack") {
    stack_ = setting_text(key, v);
    load_stack(stack_);  // an unknown stack or a bad file is refused here, naming the setting's value
  } else if (key == "concurrency") {
    w.arrivals.kind = Arrivals::Kind::closed_loop;
    w.arrivals.concurrency = whole_between(key, v, 1, 1 << 20);
  } else if (key == "rate") {
    w.arrivals.kind = Arrivals::Kind::poisson;
    w.arrivals.rate_per_s = setting_number(key, v, "requests per second");
  } else if (key == "burst") {
    w.arrivals.kind = Arrivals::Kind::burst;
    w.arrivals.burst_size = whole_between(key, v, 1, 1 << 20);
  } else if (key == "burst_interval_ms") {
    w.arrivals.burst_interval_s = setting_number(key, v, "milliseconds") * 1e-3;
  } else if (key == "trace_file") {
    w.arrivals.kind = Arrivals::Kind::trace;
    w.trace_path = setting_text(key, v);
  } else if (key == "ramp_ms") {
    w.arrivals.ramp_s = setting_number(key, v, "milliseconds") * 1e-3;
  } else if (key == "requests") {
    w.requests = whole_between(key, v, 1, 10000000);
    requests_given_ = true;
  } else if (key == "prompt") {
    w.prompt = length(key, v);
  } else if (key == "output") {
    w.output = length(key, v);
  } else if (key == "seed") {
    const std::int64_t seed = setting_whole(key, v);
    if (seed < 0) setting_refused(key, v, "a whole number >= 0");
    w.seed = static_cast<std::uint64_t>(seed);
  } else if (key == "warmup") {
    s_.warmup_requests = setting_whole(key, v);
  } else if (key == "scheduler") {
    s_.scheduler.policy = one_of(key, v, {"continuous", "static"}, "continuous or static") == "static"
                              ? SchedulerConfig::Policy::static_batch
                              : SchedulerConfig::Policy::continuous;
  } else if (key == "priority") {
    s_.scheduler.priority = one_of(key, v, {"decode_first", "prefill_first"}, "decode_first or prefill_first") == "prefill_first"
                                ? SchedulerConfig::Priority::prefill_first
                                : SchedulerConfig::Priority::decode_first;
  } else if (key == "max_batch") {
    s_.scheduler.max_batch = setting_whole(key, v);
  } else if (key == "micro_batches") {
    s_.scheduler.micro_batches = setting_whole(key, v);
  } else if (key == "max_tokens") {
    s_.scheduler.max_tokens = setting_whole(key, v);
  } else if (key == "max_prompts") {
    s_.scheduler.max_prompts = setting_whole(key, v);
  } else if (key == "batch_wait_iters") {
    s_.scheduler.batch_wait_iters = whole_between(key, v, 0, SchedulerConfig::kMaxBatchWaitIters);
  } else if (key == "adp_balance_timeout_iters") {
    s_.scheduler.adp_balance_timeout_iters = whole_between(key, v, 0, SchedulerConfig::kMaxBatchWaitIters);
  } else if (key == "adp_batching_wait_iters") {
    s_.scheduler.adp_batching_wait_iters = whole_between(key, v, 0, SchedulerConfig::kMaxBatchWaitIters);
  } else if (key == "batch_wait_tokens_ratio") {
    const double r = setting_number(key, v, "a share of max_tokens in [0, 1]");
    if (!(r >= 0 && r <= 1)) setting_refused(key, v, "a share of max_tokens in [0, 1]");
    s_.scheduler.batch_wait_tokens_ratio = r;
  } else if (key == "chunked_prefill") {
    s_.scheduler.chunked_prefill = setting_flag(key, v);
  } else if (key == "kv_admission") {
    s_.kv.admission = one_of(key, v, {"reserve", "on_demand"}, "reserve or on_demand") == "on_demand"
                          ? KvCacheConfig::Admission::on_demand
                          : KvCacheConfig::Admission::reserve;
  } else if (key == "kv_preemption") {
    s_.kv.preemption = one_of(key, v, {"recompute", "swap"}, "recompute or swap") == "swap" ? KvCacheConfig::Preemption::swap
                                                                                         : KvCacheConfig::Preemption::recompute;
  } else if (key == "block_tokens") {
    s_.kv.block_tokens = setting_whole(key, v);
  } else if (key == "kv_memory_fraction") {
    s_.kv.memory_fraction = setting_number(key, v, "a share in (0, 1]");
  } else if (key == "kv_blocks") {
    s_.kv.blocks = setting_whole(key, v);
  } else if (key == "prefix_caching") {
    s_.kv.prefix_caching = setting_flag(key, v);
  } else if (key == "iteration_overhead_ms") {
    s_.iteration_overhead_s = setting_number(key, v, "milliseconds") * 1e-3;
  } else if (key == "overlap_scheduler") {
    s_.overlap_host = setting_flag(key, v);
  } else if (key == "late_release") {
    s_.scheduler.late_release = setting_flag(key, v);
  } else if (key == "schedule_ahead") {
    s_.scheduler.schedule_ahead = setting_flag(key, v);
  } else if (key == "limits_per_rank") {
    s_.scheduler.limits_per_rank = setting_flag(key, v);
  } else if (key == "sequence_overhead_us") {
    s_.sequence_overhead_s = setting_number(key, v, "microseconds") * 1e-6;
  } else if (key == "frontend_request_us") {
    s_.frontend.request_s = setting_number(key, v, "microseconds") * 1e-6;
  } else if (key == "frontend_prompt_token_us") {
    s_.frontend.prompt_token_s = setting_number(key, v, "microseconds") * 1e-6;
  } else if (key == "frontend_response_us") {
    s_.frontend.response_s = setting_number(key, v, "microseconds") * 1e-6;
  } else if (key == "buckets") {
    const std::int64_t b = setting_whole(key, v);
    if (b < 0 || b > 1'000'000) setting_refused(key, v, "0 (exact shapes) to 1000000");
    s_.buckets_per_octave = static_cast<int>(b);
  } else if (key == "all_layers") {
    s_.sample_layers = !setting_flag(key, v);
  } else if (key == "slo_ttft_ms") {
    s_.slo_ttft_s = setting_number(key, v, "milliseconds") * 1e-3;
  } else if (key == "slo_tpot_ms") {
    s_.slo_tpot_s = setting_number(key, v, "milliseconds") * 1e-3;
  } else if (key == "speculative_tokens") {
    s_.speculative.tokens = setting_whole(key, v);
  } else if (key == "draft") {
    s_.speculative.draft = setting_text(key, v);
  } else if (key == "acceptance") {
    if (v.is_number()) {
      s_.speculative.acceptance = v.get<double>();
    } else if (v.is_array()) {
      s_.speculative.position_acceptance.clear();
      for (const nlohmann::json& p : v) s_.speculative.position_acceptance.push_back(setting_number(key, p, "a chance per drafted token"));
    } else {
      setting_refused(key, v, "a chance in [0, 1] or a list of one per drafted token");
    }
  } else if (key == "disaggregate") {
    s_.disaggregation.enabled = setting_flag(key, v);
  } else if (key == "prefill_instances") {
    s_.disaggregation.prefill_instances = setting_whole(key, v);
  } else if (key == "decode_instances") {
    s_.disaggregation.decode_instances = setting_whole(key, v);
  } else if (key == "prefill_tp") {
    s_.disaggregation.prefill_tp = setting_whole(key, v);
  } else if (key == "decode_tp") {
    s_.disaggregation.decode_tp = setting_whole(key, v);
  } else if (key == "prefill_max_batch") {
    s_.disaggregation.prefill_max_batch = whole_between(key, v, 1, kMaxBatch);
  } else if (key == "prefill_max_tokens") {
    s_.disaggregation.prefill_max_tokens = whole_between(key, v, 1, kMaxTokens);
  } else if (key == "instance_routing") {
    s_.disaggregation.routing = one_of(key, v, {"least_loaded", "round_robin"}, "least_loaded or round_robin") == "round_robin"
                                    ? DisaggregationConfig::Routing::round_robin
                                    : DisaggregationConfig::Routing::least_loaded;
  } else if (key == "prefill_schedule_ahead") {
    s_.disaggregation.prefill_schedule_ahead = setting_flag(key, v);
  } else if (key == "decode_first_response") {
    s_.disaggregation.decode_first_response = whole_between(key, v, 1, kMaxTokens);
  } else if (key == "first_token") {
    s_.disaggregation.first_token = one_of(key, v, {"prefill", "decode"}, "prefill or decode") == "decode"
                                        ? DisaggregationConfig::FirstToken::decode
                                        : DisaggregationConfig::FirstToken::prefill;
  } else if (key == "batch" || key == "gen" || key == "generate" || key == "decode_stride" || key == "microbatches") {
    throw InputError("'" + key + "' is a run setting; a serving run takes prompt, output and the arrivals instead");
  } else {
    throw InputError("unknown serving setting '" + key + "'");
  }
}

ServingSetup ServingSettings::finish(Experiment machine, const std::string& source) const {
  ServingSetup s = s_;
  // A ramp is a closed loop's (clients starting one after another): given alone, the clients are
  // the default closed loop's.
  const bool other_arrivals = given_.count("concurrency") || given_.count("rate") || given_.count("burst") || given_.count("trace_file");
  if (given_.count("ramp_ms") && !other_arrivals) s.workload.arrivals.kind = Arrivals::Kind::closed_loop;
  if (!requests_given_) s.workload.requests = default_request_count(s.workload.arrivals);
  s.machine = std::move(machine);
  s.source = source;
  if (!stack_.empty()) {
    // The stack's kernels on the machine and its [serving] table on the server, as `serve
    // --stack` puts them, except the settings given by name.
    // An attention kernel or launch mode the caller set (anything but the defaults) stays, as
    // --attention and --launch override --stack.
    const SoftwareStack stack = load_stack(stack_);
    const Experiment defaults;
    apply_stack(stack, s.machine, s.machine.attention != defaults.attention, s.machine.launch != defaults.launch);
    apply_stack_serving(stack.serving, s, [&](const std::string& name) {
      return given_.count(name == "admission" ? "kv_admission" : name) > 0;
    });
  }
  return s;
}

}  // namespace roofsim
