#include "serving/serving_settings.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>

#include "core/error.hpp"
#include "experiment/experiment_settings.hpp"
#include "experiment/stack.hpp"
#include "serving/stack_serving.hpp"

namespace roofsim {

namespace {

using json = nlohmann::json;

// The settings that only mean something beside another: each is refused without it.
struct NeedsAnother {
  std::vector<const char*> settings;
  const char* needed;
  const char* why;
};
const NeedsAnother kNeeds[] = {
    {{"prefill_instances", "decode_instances", "prefill_tp", "decode_tp", "prefill_max_batch", "prefill_max_tokens",
      "instance_routing", "first_token", "decode_first_response", "prefill_schedule_ahead"},
     "disaggregate",
     "describes disaggregated serving"},
    {{"draft", "acceptance"}, "speculative_tokens", "describes speculative decoding"},
};

}  // namespace

const char* first_token_name(DisaggregationConfig::FirstToken f) {
  return f == DisaggregationConfig::FirstToken::decode ? "decode" : "prefill";
}

bool for_serving(const std::string& key) { return is_serving_setting(key) || is_batch_run_setting(key); }

// A key of both tables goes to the machine too when serve takes it as a machine flag (stack);
// all_layers and prompt are run-only flags whose serving namesakes stand alone.
bool for_serving_machine(const std::string& key) {
  const RunSetting* r = find_run_setting(key);
  return r != nullptr && (!for_serving(key) || r->scope == RunScope::machine);
}

nlohmann::json serving_settings_json(const ServingSetup& s) {
  const Arrivals& a = s.workload.arrivals;
  const auto when = [](bool in_use, json v) { return in_use ? v : json(nullptr); };
  // A time back in the setting's unit, to 12 digits: 300 ms, not the 300.00000000000006 that
  // seconds x 1e3 can give (which, read back, would not be the same seconds).
  const auto in_unit = [](double seconds, double per_second) {
    char text[32];
    std::snprintf(text, sizeof text, "%.12g", seconds * per_second);
    return std::strtod(text, nullptr);
  };
  const bool closed = a.kind == Arrivals::Kind::closed_loop, burst = a.kind == Arrivals::Kind::burst;
  const SchedulerConfig& c = s.scheduler;
  const DisaggregationConfig& d = s.disaggregation;
  const bool disaggregated = d.enabled, speculative = s.speculative.tokens > 0;
  json acceptance = s.speculative.acceptance;
  if (!s.speculative.position_acceptance.empty()) acceptance = s.speculative.position_acceptance;
  const std::map<std::string, json> values = {
      {"concurrency", when(closed, a.concurrency)},
      {"rate", when(a.kind == Arrivals::Kind::poisson, a.rate_per_s)},
      {"burst", when(burst, a.burst_size)},
      {"burst_interval_ms", when(burst, in_unit(a.burst_interval_s, 1e3))},
      {"requests_from", when(a.kind == Arrivals::Kind::trace, s.workload.trace_path)},
      {"ramp_ms", when(closed, in_unit(a.ramp_s, 1e3))},
      {"requests", s.workload.requests},
      {"prompt", when(a.kind != Arrivals::Kind::trace, length_form(s.workload.prompt))},
      {"output", when(a.kind != Arrivals::Kind::trace, length_form(s.workload.output))},
      {"seed", s.workload.seed},
      {"warmup", s.warmup_requests},
      {"scheduler", c.policy},
      {"priority", c.priority},
      {"max_batch", c.max_batch},
      {"max_tokens", c.max_tokens},
      {"max_prompts", c.max_prompts},
      {"micro_batches", c.micro_batches},
      {"batch_wait_iters", c.batch_wait_iters},
      {"batch_wait_tokens_ratio", c.batch_wait_tokens_ratio},
      {"adp_balance_timeout_iters", c.adp_balance_timeout_iters},
      {"adp_batching_wait_iters", c.adp_batching_wait_iters},
      {"chunked_prefill", c.chunked_prefill},
      {"late_release", c.late_release},
      {"schedule_ahead", c.schedule_ahead},
      {"limits_per_rank", c.limits_per_rank},
      {"kv_admission", s.kv.admission},
      {"kv_preemption", s.kv.preemption},
      {"prefix_caching", s.kv.prefix_caching},
      {"block_tokens", s.kv.block_tokens},
      {"kv_memory_fraction", s.kv.memory_fraction},
      {"kv_blocks", s.kv.blocks > 0 ? json(s.kv.blocks) : json(nullptr)},
      {"iteration_overhead_ms", in_unit(s.iteration_overhead_s, 1e3)},
      {"sequence_overhead_us", in_unit(s.sequence_overhead_s, 1e6)},
      {"overlap_scheduler", s.overlap_host},
      {"frontend_request_us", in_unit(s.frontend.request_s, 1e6)},
      {"frontend_prompt_token_us", in_unit(s.frontend.prompt_token_s, 1e6)},
      {"frontend_response_us", in_unit(s.frontend.response_s, 1e6)},
      {"stack", s.machine.stack.empty() ? json(nullptr) : json(s.machine.stack)},
      {"disaggregate", disaggregated},
      {"prefill_instances", when(disaggregated, d.prefill_instances)},
      {"decode_instances", when(disaggregated, d.decode_instances)},
      {"prefill_tp", when(disaggregated && d.prefill_tp > 0, d.prefill_tp)},
      {"decode_tp", when(disaggregated && d.decode_tp > 0, d.decode_tp)},
      {"prefill_max_batch", when(disaggregated && d.prefill_max_batch > 0, d.prefill_max_batch)},
      {"prefill_max_tokens", when(disaggregated && d.prefill_max_tokens > 0, d.prefill_max_tokens)},
      {"instance_routing", when(disaggregated, d.routing)},
      {"first_token", when(disaggregated, first_token_name(d.first_token))},
      {"prefill_schedule_ahead", when(disaggregated, d.prefill_schedule_ahead)},
      {"decode_first_response", when(disaggregated, d.decode_first_response)},
      {"speculative_tokens", s.speculative.tokens},
      {"draft", when(speculative, s.speculative.draft)},
      {"acceptance", when(speculative, acceptance)},
      {"slo_ttft_ms", in_unit(s.slo_ttft_s, 1e3)},
      {"slo_tpot_ms", in_unit(s.slo_tpot_s, 1e3)},
      {"buckets", s.buckets_per_octave},
      {"all_layers", !s.sample_layers},
  };
  // The machine's settings that serve takes as flags, then the server's.
  json out = json::object();
  const json machine = experiment_settings_json(s.machine);
  for (const RunSetting& r : run_settings()) {
    if (r.scope == RunScope::machine) out[r.spec.name] = machine.at(r.spec.name);
  }
  for (const ServingSetting& setting : serving_settings()) out[setting.spec.name] = values.at(setting.spec.name);
  return out;
}

nlohmann::json set_serving_part(ServingSettings& serving, const nlohmann::json& settings, std::set<std::string>& machine_given) {
  json machine = json::object();
  for (const auto& [key, value] : settings.items()) {
    if (for_serving(key) && !value.is_null()) serving.set(key, value);
    if (for_serving_machine(key) || !for_serving(key)) {
      machine[key] = value;
      machine_given.insert(key);
    }
  }
  return machine;
}

ServingSettings::ServingSettings() { s_.workload = default_serving_workload(); }

void ServingSettings::set(const std::string& key, const nlohmann::json& v) {
  const ServingSetting* s = find_serving_setting(key);
  if (s == nullptr) {
    if (is_batch_run_setting(key)) {
      throw InputError("${" + key + "} is a run setting; a serving run takes ${prompt}, ${output} and the arrivals instead");
    }
    throw InputError("unknown serving setting '" + key + "'");
  }
  const json value = checked_setting_value(s->spec, v, "${" + key + "}");
  s->set(s_, value);
  given_[s->spec.name] = value;
}

ServingSetup ServingSettings::finish(Experiment machine, const std::string& source, const std::set<std::string>& machine_given) const {
  ServingSetup s = s_;
  const auto given = [&](const std::string& name) { return given_.count(name) > 0; };
  const int arrivals = given("concurrency") + given("rate") + given("burst") + given("requests_from");
  if (arrivals > 1) throw InputError("give one of ${concurrency}, ${rate}, ${burst} and ${requests_from}");
  for (const NeedsAnother& n : kNeeds) {
    const bool on = given(n.needed) && !(given_.at(n.needed) == false || given_.at(n.needed) == 0);
    for (const char* name : n.settings) {
      if (given(name) && !on) throw InputError("${" + std::string(name) + "} " + n.why + ": give ${" + n.needed + "} too");
    }
  }
  // A ramp is a closed loop's (clients starting one after another): given alone, the clients are
  // the default closed loop's.
  if (given("ramp_ms") && arrivals == 0) s.workload.arrivals.kind = Arrivals::Kind::closed_loop;
  if (!given("requests")) s.workload.requests = default_request_count(s.workload.arrivals);
  s.machine = std::move(machine);
  s.source = source;
  if (given("stack")) {
    // The stack's [serving] table on the server, except the settings given by name (its kernels
    // are on the machine already: the experiment setting "stack").
    apply_stack_serving(load_stack(given_.at("stack").get<std::string>()).serving, s, [&](const std::string& name) {
      const std::string key = name == "admission" ? "kv_admission" : name;
      return given(key) || machine_given.count(key) > 0;
    });
  }
  return s;
}

}  // namespace roofsim
