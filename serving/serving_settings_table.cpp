// The serving settings' table: each setting's name, values, default, meaning and what it sets
// (serving/serving_settings.hpp).
#include <filesystem>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/limits.hpp"
#include "experiment/stack.hpp"
#include "serving/batching_policy.hpp"
#include "serving/instance_routing.hpp"
#include "serving/kv_admission.hpp"
#include "serving/kv_preemption.hpp"
#include "serving/priority_policy.hpp"
#include "serving/serving_settings.hpp"
#include "workloads/transformer.hpp"

namespace roofsim {

namespace {

using json = nlohmann::json;
using Setter = std::function<void(ServingSetup&, const json&)>;

std::string number_text(double v) {
  std::string t = format_fixed(v, 6);
  t.erase(t.find_last_not_of('0') + 1);
  if (!t.empty() && t.back() == '.') t.pop_back();
  return t;
}

struct Table {
  std::vector<ServingSetting> rows;
  std::string group;

  SettingSpec& add(const char* name, SettingKind kind, std::string fallback, std::string help, Setter set) {
    ServingSetting r;
    r.spec.name = name;
    r.spec.kind = kind;
    r.spec.default_text = std::move(fallback);
    r.spec.help = std::move(help);
    r.spec.group = group;
    r.set = std::move(set);
    rows.push_back(std::move(r));
    return rows.back().spec;
  }
  SettingSpec& whole(const char* name, double lo, double hi, std::int64_t fallback, const char* unit, std::string help, Setter set) {
    SettingSpec& s = add(name, SettingKind::whole, std::to_string(fallback), std::move(help), std::move(set));
    s.lo = lo;
    s.hi = hi;
    s.unit = unit;
    return s;
  }
  SettingSpec& number(const char* name, double lo, bool above_lo, double hi, double fallback, const char* unit, std::string help,
                      Setter set) {
    SettingSpec& s = add(name, SettingKind::number, number_text(fallback), std::move(help), std::move(set));
    s.lo = lo;
    s.above_lo = above_lo;
    s.hi = hi;
    s.unit = unit;
    return s;
  }
  SettingSpec& choice(const char* name, std::vector<std::string> names, std::string help, Setter set) {
    const std::string first = names.front();
    return choice(name, first, [names] { return names; }, std::move(help), std::move(set));
  }
  // Choices read live from a registry, which a unit library loaded later may add to.
  SettingSpec& choice(const char* name, const std::string& default_name, std::function<std::vector<std::string>()> names,
                      std::string help, Setter set) {
    SettingSpec& s = add(name, SettingKind::choice, default_name, std::move(help), std::move(set));
    s.choices = std::move(names);
    return s;
  }
  SettingSpec& flag(const char* name, std::string help, Setter set) {
    return add(name, SettingKind::flag, "false", std::move(help), std::move(set));
  }
};

std::vector<ServingSetting> make_serving_settings() {
  const ServingSetup d = [] {
    ServingSetup s;
    s.workload = default_serving_workload();
    return s;
  }();
  const double us = 1e-6, ms = 1e-3;
  Table t;

  t.group = "arrivals";
  t.whole("concurrency", 1, 1 << 20, d.workload.arrivals.concurrency, "clients",
          "Closed loop: N clients, each sending its next request when the previous one finishes (as trtllm-bench and "
          "vLLM's benchmark). One of ${concurrency}, ${rate}, ${burst} and ${requests_from}; none: Poisson arrivals at " +
              number_text(d.workload.arrivals.rate_per_s) + " per second",
          [](ServingSetup& s, const json& v) {
            s.workload.arrivals.kind = Arrivals::Kind::closed_loop;
            s.workload.arrivals.concurrency = v.get<std::int64_t>();
          });
  t.number("rate", 0, true, INFINITY, d.workload.arrivals.rate_per_s, "requests/s", "Open loop: Poisson arrivals at R requests per second",
           [](ServingSetup& s, const json& v) {
             s.workload.arrivals.kind = Arrivals::Kind::poisson;
             s.workload.arrivals.rate_per_s = v.get<double>();
           });
  t.whole("burst", 1, 1 << 20, d.workload.arrivals.burst_size, "requests", "Open loop: N requests at once every ${burst_interval_ms}",
          [](ServingSetup& s, const json& v) {
            s.workload.arrivals.kind = Arrivals::Kind::burst;
            s.workload.arrivals.burst_size = v.get<std::int64_t>();
          });
  t.number("burst_interval_ms", 0, true, INFINITY, d.workload.arrivals.burst_interval_s / ms, "ms", "Time between bursts",
           [ms](ServingSetup& s, const json& v) { s.workload.arrivals.burst_interval_s = v.get<double>() * ms; });
  SettingSpec& trace = t.add("requests_from", SettingKind::text, "none",
                             "Requests from a CSV or JSONL file: a recorded or made-up request trace (arrival_s or arrival_ms, "
                             "prompt_tokens, output_tokens; configs/traces/ has examples). Was trace_file (--trace-file), still "
                             "taken for a release",
                             [](ServingSetup& s, const json& v) {
                               s.workload.arrivals.kind = Arrivals::Kind::trace;
                               s.workload.trace_path = v.get<std::string>();
                             });
  trace.form = "an existing file";
  trace.aliases = {"trace_file"};
  trace.accepts = [](const std::string& path) {
    std::error_code ec;  // a pipe or a device is a file too: the reader bounds what it reads
    return std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec);
  };
  t.number("ramp_ms", 0, false, INFINITY, d.workload.arrivals.ramp_s / ms, "ms",
           "Closed loop: spread the clients' first requests evenly over this time instead of sending all at 0 (alone, a "
           "closed loop of " + std::to_string(d.workload.arrivals.concurrency) + " clients)",
           [ms](ServingSetup& s, const json& v) { s.workload.arrivals.ramp_s = v.get<double>() * ms; });

  t.group = "requests";
  SettingSpec& requests = t.whole("requests", 1, kMaxWorkloadRequests, 0, "requests", "Requests in all",
                                  [](ServingSetup& s, const json& v) { s.workload.requests = v.get<std::int64_t>(); });
  requests.default_text = "10 x concurrency in a closed loop, else " + std::to_string(d.workload.requests);
  for (const auto& [name, length, help] :
       {std::tuple{"prompt", d.workload.prompt, "Prompt tokens: N, uniform:MIN:MAX, normal:MEAN:SD or lognormal:MEAN:SD (optionally :MIN:MAX after them)"},
        std::tuple{"output", d.workload.output, "Output tokens, the same forms as ${prompt}"}}) {
    const bool prompt = std::string(name) == "prompt";
    SettingSpec& s = t.add(name, SettingKind::text, length_form(length), help, [prompt](ServingSetup& setup, const json& v) {
      (prompt ? setup.workload.prompt : setup.workload.output) = parse_length_distribution(v.get<std::string>(), prompt ? "${prompt}" : "${output}");
    });
    s.unit = "tokens";
    s.form = "N, uniform:MIN:MAX, normal:MEAN:SD or lognormal:MEAN:SD";
    s.accepts = accepts_what_parses([](const std::string& text) { parse_length_distribution(text, "length"); });
    s.whole_as_text = true;
  }
  t.whole("seed", 0, static_cast<double>(INT64_MAX), static_cast<std::int64_t>(d.workload.seed), "", "Seed for arrivals and lengths",
          [](ServingSetup& s, const json& v) { s.workload.seed = static_cast<std::uint64_t>(v.get<std::int64_t>()); });
  t.whole("warmup", 0, kMaxWorkloadRequests, d.warmup_requests, "requests", "Leave the first N requests out of the statistics",
          [](ServingSetup& s, const json& v) { s.warmup_requests = v.get<std::int64_t>(); });

  t.group = "scheduler";
  t.choice("scheduler", d.scheduler.policy, [] { return batchings().names(); },
           "How each iteration's batch is formed (serving/batchings/): continuous, iteration-level batching, requests join "
           "and leave every iteration; static, a batch prefills together and decodes until its last request finishes",
           [](ServingSetup& s, const json& v) { s.scheduler.policy = v.get<std::string>(); });
  t.choice("priority", d.scheduler.priority, [] { return priorities().names(); },
           "What a continuous iteration plans first within its token budget (serving/priorities/): decode_first, running "
           "decodes take the budget and prefills fill the rest of the same iteration (TensorRT-LLM, Sarathi); "
           "prefill_first, iterations of prefills only while any can be admitted (vLLM v0)",
           [](ServingSetup& s, const json& v) { s.scheduler.priority = v.get<std::string>(); });
  t.whole("max_batch", 1, kMaxBatch, d.scheduler.max_batch, "sequences", "Most sequences in one iteration",
          [](ServingSetup& s, const json& v) { s.scheduler.max_batch = v.get<std::int64_t>(); });
  t.whole("max_tokens", 1, kMaxTokens, d.scheduler.max_tokens, "tokens",
          "Most tokens in one iteration, prefill tokens plus one per decode (TensorRT-LLM's max_num_tokens)",
          [](ServingSetup& s, const json& v) { s.scheduler.max_tokens = v.get<std::int64_t>(); });
  t.whole("max_prompts", 0, kMaxBatch, d.scheduler.max_prompts, "prompts",
          "Most new requests one iteration starts to prefill (0: as many as ${max_tokens} and ${max_batch} hold, as the "
          "engines do)",
          [](ServingSetup& s, const json& v) { s.scheduler.max_prompts = v.get<std::int64_t>(); });
  t.whole("micro_batches", 0, 1024, d.scheduler.micro_batches, "iterations",
          "With pipeline stages (${pp}): iterations under way at once, each with requests of its own and ${max_batch} "
          "sequences at most; a new one starts when the first stage is free (0: one per stage, as TensorRT-LLM and "
          "vLLM run them; 1: one iteration through all stages at a time)",
          [](ServingSetup& s, const json& v) { s.scheduler.micro_batches = v.get<std::int64_t>(); });
  t.whole("batch_wait_iters", 0, SchedulerConfig::kMaxBatchWaitIters, d.scheduler.batch_wait_iters, "iterations",
          "TensorRT-LLM's batch waiting (batch_wait_timeout_iters): while decodes run, hold new prompts back for up to "
          "this many iterations in a row so that more of them prefill together, unless the iteration already has "
          "${batch_wait_tokens_ratio} x ${max_tokens} tokens (0: off; needs both; not with attention data parallelism)",
          [](ServingSetup& s, const json& v) { s.scheduler.batch_wait_iters = v.get<std::int64_t>(); });
  t.number("batch_wait_tokens_ratio", 0, false, 1, d.scheduler.batch_wait_tokens_ratio, "",
           "TensorRT-LLM's batch_wait_max_tokens_ratio: the share of ${max_tokens} at which held prompts start",
           [](ServingSetup& s, const json& v) { s.scheduler.batch_wait_tokens_ratio = v.get<double>(); });
  t.whole("adp_balance_timeout_iters", 0, SchedulerConfig::kMaxBatchWaitIters, d.scheduler.adp_balance_timeout_iters, "iterations",
          "TensorRT-LLM's attention-DP balancing (attention_dp_config enable_balance, timeout_iters): with attention data "
          "parallelism (${ep}), start prompts only when every rank has one and a free slot, holding them up to this many "
          "iterations since prompts last started (0: off)",
          [](ServingSetup& s, const json& v) { s.scheduler.adp_balance_timeout_iters = v.get<std::int64_t>(); });
  t.whole("adp_batching_wait_iters", 0, SchedulerConfig::kMaxBatchWaitIters, d.scheduler.adp_batching_wait_iters, "iterations",
          "With that balancing: when every rank has a prompt and every rank decodes, hold them this many iterations more "
          "(attention_dp_config batching_wait_iters)",
          [](ServingSetup& s, const json& v) { s.scheduler.adp_batching_wait_iters = v.get<std::int64_t>(); });
  t.flag("chunked_prefill", "Split prompts into chunks that fill the token budget (Sarathi-Serve)",
         [](ServingSetup& s, const json& v) { s.scheduler.chunked_prefill = v.get<bool>(); });
  t.flag("late_release",
         "A finished request holds its slot and KV blocks for one more decode step, whose token is dropped, as under "
         "${overlap_scheduler}, but the host work stays in series with the passes",
         [](ServingSetup& s, const json& v) { s.scheduler.late_release = v.get<bool>(); });
  t.flag("schedule_ahead",
         "Form each iteration's batch when the one before starts, as an overlapped engine loop does (TensorRT-LLM's "
         "overlap scheduler, vLLM's async scheduling, SGLang's overlap loop): a request that reaches the engine while an "
         "iteration runs starts one iteration later; implied by ${overlap_scheduler}. Disaggregated: the decode "
         "instances' loops (${prefill_schedule_ahead} for the prefill ones)",
         [](ServingSetup& s, const json& v) { s.scheduler.schedule_ahead = v.get<bool>(); });
  t.flag("limits_per_rank",
         "With ${ep}, each attention-DP rank schedules with the whole ${max_batch}, ${max_tokens} and ${max_prompts} "
         "(TensorRT-LLM's attention DP, vLLM's DP engine cores); off: the limits are the instance's, shared by its ranks "
         "(SGLang's DP attention)",
         [](ServingSetup& s, const json& v) { s.scheduler.limits_per_rank = v.get<bool>(); });

  t.group = "KV cache";
  t.choice("kv_admission", d.kv.admission, [] { return kv_admissions().names(); },
           "How a waiting request enters the paged KV cache (serving/kv_admissions/): reserve, admit it when blocks for its "
           "whole prompt and output are free (TensorRT-LLM's GUARANTEED_NO_EVICT); on_demand, allocate as tokens come, "
           "preempt the newest request and recompute it later when the cache is full (vLLM)",
           [](ServingSetup& s, const json& v) { s.kv.admission = v.get<std::string>(); });
  t.choice("kv_preemption", d.kv.preemption, [] { return kv_preemptions().names(); },
           "What a preempted request's KV cache becomes (serving/kv_preemptions/): recompute (freed; the request prefills "
           "again, vLLM's default) or swap (copied to host memory over the host link and back when readmitted; needs "
           "host.link_gb_per_s)",
           [](ServingSetup& s, const json& v) { s.kv.preemption = v.get<std::string>(); });
  t.flag("prefix_caching",
         "Keep the KV blocks of shared prompt prefixes (a trace's prefix_id and prefix_tokens columns) for later requests "
         "with the same prefix; unused ones are evicted first when the cache is full (vLLM, TensorRT-LLM)",
         [](ServingSetup& s, const json& v) { s.kv.prefix_caching = v.get<bool>(); });
  t.whole("block_tokens", 1, 65536, d.kv.block_tokens, "tokens", "Tokens per KV block",
          [](ServingSetup& s, const json& v) { s.kv.block_tokens = v.get<std::int64_t>(); });
  t.number("kv_memory_fraction", 0, true, 1, d.kv.memory_fraction, "",
           "Share of the HBM left after weights and activations for the KV cache",
           [](ServingSetup& s, const json& v) { s.kv.memory_fraction = v.get<double>(); });
  SettingSpec& blocks = t.whole("kv_blocks", 1, static_cast<double>(INT64_C(1) << 40), 0, "blocks",
                                "KV blocks per chip, instead of computing them from memory",
                                [](ServingSetup& s, const json& v) { s.kv.blocks = v.get<std::int64_t>(); });
  blocks.default_text = "from memory";

  t.group = "host";
  t.number("iteration_overhead_ms", 0, false, INFINITY, d.iteration_overhead_s / ms, "ms",
           "Host time per iteration no kernel hides: scheduling, sampling",
           [ms](ServingSetup& s, const json& v) { s.iteration_overhead_s = v.get<double>() * ms; });
  t.number("sequence_overhead_us", 0, false, INFINITY, d.sequence_overhead_s / us, "us",
           "Host time per sequence of an iteration: request bookkeeping, sampling, streaming",
           [us](ServingSetup& s, const json& v) { s.sequence_overhead_s = v.get<double>() * us; });
  t.flag("overlap_scheduler",
         "Prepare each iteration on the host while the chips run the one before (TensorRT-LLM's overlap scheduler, "
         "vLLM's async scheduling): an iteration launched as a graph takes the longer of its host time and its pass "
         "instead of their sum; a finished request holds its slot for one more step (the engine learns of it a step "
         "late), and each batch is formed as the iteration before starts (${schedule_ahead})",
         [](ServingSetup& s, const json& v) { s.overlap_host = v.get<bool>(); });
  t.number("frontend_request_us", 0, false, INFINITY, d.frontend.request_s / us, "us",
           "API server: host time to take a request in before the engine sees it (0: no API server)",
           [us](ServingSetup& s, const json& v) { s.frontend.request_s = v.get<double>() * us; });
  t.number("frontend_prompt_token_us", 0, false, INFINITY, d.frontend.prompt_token_s / us, "us",
           "API server: and per prompt token (tokenising)",
           [us](ServingSetup& s, const json& v) { s.frontend.prompt_token_s = v.get<double>() * us; });
  t.number("frontend_response_us", 0, false, INFINITY, d.frontend.response_s / us, "us",
           "API server: host time per streamed response (one per request and iteration with new tokens: detokenise, "
           "send); its one thread serves waiting responses before it takes a request in",
           [us](ServingSetup& s, const json& v) { s.frontend.response_s = v.get<double>() * us; });
  SettingSpec& stack = t.add("stack", SettingKind::text, "none",
                             "A software stack (configs/stacks, NAME@VERSION for a release): its [serving] table's scheduler, "
                             "token budget, KV admission and host costs, where no setting gives the same (its kernels go on "
                             "the machine: the run setting of the same name)",
                             [](ServingSetup&, const json& v) { load_stack(v.get<std::string>()); });
  stack.form = "a stack of configs/stacks or a .toml";

  t.group = "disaggregated";
  t.flag("disaggregate", "Prefill instances run the prompts and send each request's KV cache over the fabric to a decode "
                         "instance (DistServe, Dynamo)",
         [](ServingSetup& s, const json& v) { s.disaggregation.enabled = v.get<bool>(); });
  t.whole("prefill_instances", 1, 1024, d.disaggregation.prefill_instances, "instances", "Prefill instances",
          [](ServingSetup& s, const json& v) { s.disaggregation.prefill_instances = v.get<std::int64_t>(); });
  t.whole("decode_instances", 1, 1024, d.disaggregation.decode_instances, "instances", "Decode instances",
          [](ServingSetup& s, const json& v) { s.disaggregation.decode_instances = v.get<std::int64_t>(); });
  t.whole("prefill_tp", 1, 1024, 0, "chips", "Chips per prefill instance, tensor parallel",
          [](ServingSetup& s, const json& v) { s.disaggregation.prefill_tp = v.get<std::int64_t>(); }).default_text = "${tp}";
  t.whole("decode_tp", 1, 1024, 0, "chips", "Chips per decode instance, tensor parallel",
          [](ServingSetup& s, const json& v) { s.disaggregation.decode_tp = v.get<std::int64_t>(); }).default_text = "${tp}";
  t.whole("prefill_max_batch", 1, kMaxBatch, 0, "prompts",
          "Most prompts a prefill instance runs in one iteration (TensorRT-LLM's max_batch_size of a context server)",
          [](ServingSetup& s, const json& v) { s.disaggregation.prefill_max_batch = v.get<std::int64_t>(); }).default_text = "${max_batch}";
  t.whole("prefill_max_tokens", 1, kMaxTokens, 0, "tokens", "Most prompt tokens a prefill instance runs in one iteration",
          [](ServingSetup& s, const json& v) { s.disaggregation.prefill_max_tokens = v.get<std::int64_t>(); }).default_text = "${max_tokens}";
  std::string routings;
  for (const InstanceRouting* r : instance_routings().all()) routings += "; " + r->name() + ", " + r->summary();
  t.choice("instance_routing", d.disaggregation.routing, [] { return instance_routings().names(); },
           "How each request picks its prefill and decode instance (serving/instance_routings/)" + routings,
           [](ServingSetup& s, const json& v) { s.disaggregation.routing = v.get<std::string>(); });
  t.choice("first_token", {"prefill", "decode"},
           "Which instance gives the client its first token: prefill, the prefill instance as soon as it has it; decode, "
           "the decode instance in its first iteration with the request (Dynamo streams every token from the decode "
           "worker): waiting for a decode slot counts in TTFT",
           [](ServingSetup& s, const json& v) {
             s.disaggregation.first_token = v == "decode" ? DisaggregationConfig::FirstToken::decode : DisaggregationConfig::FirstToken::prefill;
           });
  t.flag("prefill_schedule_ahead",
         "The prefill instances form each batch when the iteration before starts, as ${schedule_ahead} does for the "
         "decode ones (SGLang's prefill servers run their overlap loop; TensorRT-LLM's context servers run without the "
         "overlap scheduler in disaggregated recipes)",
         [](ServingSetup& s, const json& v) { s.disaggregation.prefill_schedule_ahead = v.get<bool>(); });
  t.whole("decode_first_response", 1, kMaxTokens, d.disaggregation.decode_first_response, "iterations",
          "With ${first_token} decode: the decode instance's iteration in which it first responds (TensorRT-LLM's overlap "
          "scheduler skips a generation-only request's first iteration, then responds every stream_interval iterations: "
          "give its stream_interval; 1: at once)",
          [](ServingSetup& s, const json& v) { s.disaggregation.decode_first_response = v.get<std::int64_t>(); });

  t.group = "speculative decoding";
  t.whole("speculative_tokens", 0, kMaxVerifyTokens - 1, d.speculative.tokens, "tokens",
          "Speculative decoding: a draft proposes K tokens per sequence before each decode step and the target verifies "
          "K + 1 in one pass (0: off)",
          [](ServingSetup& s, const json& v) { s.speculative.tokens = v.get<std::int64_t>(); });
  t.add("draft", SettingKind::text, d.speculative.draft,
        "The draft: mtp (the target's own next-token head, one more of its layers), or a model preset, .toml or "
        "config.json with the target's vocabulary, on the same chips (with ${pp}: the last stage's, after its part of "
        "the pass)",
        [](ServingSetup& s, const json& v) { s.speculative.draft = v.get<std::string>(); });
  SettingSpec& acceptance = t.add("acceptance", SettingKind::numbers, number_text(d.speculative.acceptance),
                                  "Chance that a drafted token is accepted when the ones before it were: one value, or one "
                                  "per position (0.9,0.7,0.5)",
                                  [](ServingSetup& s, const json& v) {
                                    if (v.is_number()) {
                                      s.speculative.acceptance = v.get<double>();
                                      s.speculative.position_acceptance.clear();
                                    } else {
                                      s.speculative.position_acceptance = v.get<std::vector<double>>();
                                    }
                                  });
  acceptance.lo = 0;
  acceptance.hi = 1;

  t.group = "objectives and simulation";
  t.number("slo_ttft_ms", 0, false, INFINITY, d.slo_ttft_s / ms, "ms", "Time-to-first-token objective for goodput (0: none)",
           [ms](ServingSetup& s, const json& v) { s.slo_ttft_s = v.get<double>() * ms; });
  t.number("slo_tpot_ms", 0, false, INFINITY, d.slo_tpot_s / ms, "ms", "Time-per-output-token objective for goodput (0: none)",
           [ms](ServingSetup& s, const json& v) { s.slo_tpot_s = v.get<double>() * ms; });
  t.whole("buckets", 0, 4096, d.buckets_per_octave, "per doubling",
          "Iteration shapes are rounded to about N values per doubling before they are simulated, so similar iterations "
          "share one simulation (32: at most 1.6% off; 0: exact shapes)",
          [](ServingSetup& s, const json& v) { s.buckets_per_octave = static_cast<int>(v.get<std::int64_t>()); });
  t.flag("all_layers",
         "Simulate every layer of each shape's pass. By default a layer that starts from the same machine state as an "
         "earlier identical one is replayed from it (the same results, faster; docs/speed.md)",
         [](ServingSetup& s, const json& v) { s.sample_layers = !v.get<bool>(); });
  return std::move(t.rows);
}

}  // namespace

const std::vector<ServingSetting>& serving_settings() {
  static const std::vector<ServingSetting> table = make_serving_settings();
  return table;
}

const ServingSetting* find_serving_setting(const std::string& key) { return find_setting(serving_settings(), key); }

bool is_serving_setting(const std::string& key) { return find_serving_setting(key) != nullptr; }

}  // namespace roofsim
