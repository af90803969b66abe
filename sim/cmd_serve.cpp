// `roofsim serve`: requests over time on the simulated machine, with continuous batching and a
// paged KV cache; latency percentiles, throughput and goodput.
#include <algorithm>
#include <iostream>
#include <memory>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/parse.hpp"
#include "experiment/plot.hpp"
#include "serving/stack_serving.hpp"
#include "serving/report.hpp"
#include "serving/serving.hpp"
#include "serving/timeline.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"
#include "sim/progress_line.hpp"
#include "sim/serve_report.hpp"
#include "validation/analytic.hpp"

namespace roofsim {

namespace {

struct ServeOptions {
  std::string hw;
  ExperimentFlags x;
  std::int64_t concurrency = 8, requests = 0, burst = 0, seed = 1, warmup = 0;
  double rate = 0, burst_interval_ms = 1000, ramp_ms = 0;
  std::string trace_file, prompt, output;  // "": the default workload's lengths
  std::string scheduler = "continuous", priority = "decode_first", admission = "reserve", preemption = "recompute";
  std::int64_t max_batch = 256, max_tokens = 8192, max_prompts = 0, block_tokens = 32, kv_blocks = 0, micro_batches = 0;
  std::int64_t batch_wait_iters = 0, adp_balance_timeout_iters = 0, adp_batching_wait_iters = 0;
  double batch_wait_tokens_ratio = 0;
  bool chunked = false;
  bool all_layers = false;
  bool prefix_caching = false;
  bool overlap_scheduler = false, late_release = false, schedule_ahead = false, limits_per_rank = false;
  std::int64_t speculative_tokens = 0;
  bool disaggregate = false, prefill_schedule_ahead = false;
  std::int64_t prefill_instances = 1, decode_instances = 1, prefill_tp = 0, decode_tp = 0;
  std::int64_t prefill_max_batch = 0, prefill_max_tokens = 0, decode_first_response = 1;
  std::string routing = "least_loaded", first_token = "prefill";
  std::string draft = "mtp", acceptance = "0.7";
  double frontend_request_us = 0, frontend_prompt_token_us = 0, frontend_response_us = 0;
  double kv_fraction = 0.9, overhead_ms = 0, sequence_overhead_us = 0, slo_ttft_ms = 0, slo_tpot_ms = 0;
  int buckets = 32;
  std::string json, requests_csv, iterations_csv;
  std::string trace, plot;
};

// --acceptance: one chance for every position, or one per position, comma-separated.
void parse_acceptance(const std::string& text, SpeculativeConfig& d) {
  std::vector<double> values;
  for (const std::string& part : split_commas(text)) {
    const std::optional<double> v = parse_number(part);
    if (!v || *v < 0 || *v > 1) {
      throw InputError("--acceptance " + text + ": '" + part + "' is not a chance in [0, 1]; give one (0.7) or one per "
                       "drafted token (0.9,0.7,0.5)");
    }
    values.push_back(*v);
  }
  if (values.size() == 1) {
    d.acceptance = values.front();
  } else {
    d.position_acceptance = values;
  }
}

void serve(const ServeOptions& o, const CLI::App& cmd) {
  for (const auto& [path, flag] : {std::pair{o.json, "--json"}, {o.requests_csv, "--requests-csv"}, {o.iterations_csv, "--iterations-csv"},
                                   {o.trace, "--trace"}, {o.plot, "--plot"}}) {
    check_output_path(path, flag);
  }
  if (!o.plot.empty()) plot_terminal(o.plot);  // a .png or .svg name, before the run
  if (!o.plot.empty() && o.disaggregate) {
    throw InputError("--plot charts one instance's batch, queue and cache; a disaggregated run has several: use --trace, "
                     "which has a track and counters per instance");
  }
  ServingSetup s;
  if (cmd.count("--hw")) s.machine.hw = o.hw;
  apply_experiment_flags(o.x, cmd, s.machine);
  s.source = "flags";
  WorkloadSpec& w = s.workload;
  const int modes = (cmd.count("--rate") ? 1 : 0) + (cmd.count("--burst") ? 1 : 0) + (cmd.count("--trace-file") ? 1 : 0) +
                    (cmd.count("--concurrency") ? 1 : 0);
  if (modes > 1) throw InputError("give one of --concurrency, --rate, --burst and --trace-file");
  const WorkloadSpec defaults = default_serving_workload();
  if (cmd.count("--rate")) {
    w.arrivals.kind = Arrivals::Kind::poisson;
    w.arrivals.rate_per_s = o.rate;
  } else if (modes == 0 && !cmd.count("--ramp-ms")) {
    // No arrivals given: the default workload's Poisson arrivals (about 70% of what the default
    // chip serves at the default lengths).
    w.arrivals = defaults.arrivals;
  } else if (cmd.count("--burst")) {
    w.arrivals.kind = Arrivals::Kind::burst;
    w.arrivals.burst_size = o.burst;
    w.arrivals.burst_interval_s = o.burst_interval_ms * 1e-3;
  } else if (cmd.count("--trace-file")) {
    w.arrivals.kind = Arrivals::Kind::trace;
    w.trace_path = o.trace_file;
  } else {
    w.arrivals.kind = Arrivals::Kind::closed_loop;
    w.arrivals.concurrency = o.concurrency;
    w.arrivals.ramp_s = o.ramp_ms * 1e-3;
  }
  w.requests = o.requests > 0 ? o.requests : default_request_count(w.arrivals);
  w.prompt = cmd.count("--prompt") ? parse_length_distribution(o.prompt, "--prompt") : defaults.prompt;
  w.output = cmd.count("--output") ? parse_length_distribution(o.output, "--output") : defaults.output;
  w.seed = static_cast<std::uint64_t>(o.seed);
  SchedulerConfig& c = s.scheduler;
  c.policy = o.scheduler == "static" ? SchedulerConfig::Policy::static_batch : SchedulerConfig::Policy::continuous;
  c.priority = o.priority == "prefill_first" ? SchedulerConfig::Priority::prefill_first : SchedulerConfig::Priority::decode_first;
  c.max_batch = o.max_batch;
  c.max_tokens = o.max_tokens;
  c.max_prompts = o.max_prompts;
  c.batch_wait_iters = o.batch_wait_iters;
  c.batch_wait_tokens_ratio = o.batch_wait_tokens_ratio;
  c.adp_balance_timeout_iters = o.adp_balance_timeout_iters;
  c.adp_batching_wait_iters = o.adp_batching_wait_iters;
  c.late_release = o.late_release;
  c.schedule_ahead = o.schedule_ahead;
  c.limits_per_rank = o.limits_per_rank;
  c.micro_batches = o.micro_batches;
  c.chunked_prefill = o.chunked;
  s.kv.admission = o.admission == "on_demand" ? KvCacheConfig::Admission::on_demand : KvCacheConfig::Admission::reserve;
  s.kv.preemption = o.preemption == "swap" ? KvCacheConfig::Preemption::swap : KvCacheConfig::Preemption::recompute;
  s.kv.block_tokens = o.block_tokens;
  s.kv.memory_fraction = o.kv_fraction;
  s.kv.blocks = o.kv_blocks;
  s.kv.prefix_caching = o.prefix_caching;
  s.iteration_overhead_s = o.overhead_ms * 1e-3;
  s.sequence_overhead_s = o.sequence_overhead_us * 1e-6;
  s.overlap_host = o.overlap_scheduler;
  s.frontend.request_s = o.frontend_request_us * 1e-6;
  s.frontend.prompt_token_s = o.frontend_prompt_token_us * 1e-6;
  s.frontend.response_s = o.frontend_response_us * 1e-6;
  s.buckets_per_octave = o.buckets;
  s.sample_layers = !o.all_layers;
  s.slo_ttft_s = o.slo_ttft_ms * 1e-3;
  s.slo_tpot_s = o.slo_tpot_ms * 1e-3;
  s.warmup_requests = o.warmup;
  DisaggregationConfig& d = s.disaggregation;
  d.enabled = o.disaggregate;
  d.prefill_instances = o.prefill_instances;
  d.decode_instances = o.decode_instances;
  d.prefill_tp = o.prefill_tp;
  d.decode_tp = o.decode_tp;
  d.prefill_max_batch = o.prefill_max_batch;
  d.prefill_max_tokens = o.prefill_max_tokens;
  d.routing = o.routing == "round_robin" ? DisaggregationConfig::Routing::round_robin : DisaggregationConfig::Routing::least_loaded;
  d.first_token = o.first_token == "decode" ? DisaggregationConfig::FirstToken::decode : DisaggregationConfig::FirstToken::prefill;
  d.decode_first_response = o.decode_first_response;
  d.prefill_schedule_ahead = o.prefill_schedule_ahead;
  for (const char* flag : {"--prefill-instances", "--decode-instances", "--prefill-tp", "--decode-tp", "--prefill-max-batch",
                           "--prefill-max-tokens", "--instance-routing", "--first-token", "--decode-first-response",
                           "--prefill-schedule-ahead"}) {
    if (cmd.count(flag) && !o.disaggregate) throw InputError(std::string(flag) + " describes disaggregated serving: give --disaggregate too");
  }
  s.speculative.tokens = o.speculative_tokens;
  s.speculative.draft = o.draft;
  parse_acceptance(o.acceptance, s.speculative);
  if ((cmd.count("--draft") || cmd.count("--acceptance")) && o.speculative_tokens == 0) {
    throw InputError("--draft and --acceptance describe speculative decoding: give --speculative-tokens K too");
  }

  // A stack runs its server as its [serving] table says (configs/stacks), where no flag says otherwise.
  if (cmd.count("--stack") && !o.x.stack.empty()) {
    apply_stack_serving(load_stack(o.x.stack).serving, s, [&](const std::string& name) {
      const std::string flag = name == "admission" ? "--kv-admission" : "--" + [&] {
        std::string f = name;
        std::replace(f.begin(), f.end(), '_', '-');
        return f;
      }();
      return cmd.count(flag) > 0;
    });
  }

  std::ostream& os = human_out({{o.json, "--json"}, {o.requests_csv, "--requests-csv"}, {o.iterations_csv, "--iterations-csv"},
                                {o.trace, "--trace"}});
  // Progress once a second after the first (in place on a terminal, a line each in a log).
  ProgressLine progress("serve", "requests finished");
  ServingResult r = run_serving(s, progress.control());
  progress.finish();
  print_serve_report(os, r);
  if (!o.json.empty()) write_json(o.json, serving_json(r));
  if (!o.requests_csv.empty()) write_text(o.requests_csv, requests_csv(r));
  if (!o.iterations_csv.empty()) write_text(o.iterations_csv, iterations_csv(r));
  if (!o.trace.empty()) write_text(o.trace, serving_trace_json(r));
  if (!o.plot.empty()) write_serving_timeseries_plot(o.plot, r);
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "Simulate serving: requests arrive over time and a scheduler batches them iteration by iteration\n"
               "(continuous batching, a paged KV cache); every iteration is a forward pass with its real shapes on the\n"
               "chip model. With no arguments: Llama-3-8B on one H100 SXM5, TensorRT-LLM-like in-flight batching, 100\n"
               "requests arriving as a Poisson process at 20 per second (about 70% of what that chip serves at these\n"
               "lengths), prompts lognormal with mean 1024 and sd 512 tokens, outputs lognormal with mean 128 and sd 64.\n"
               "Examples: roofsim serve --concurrency 64 --prompt normal:1000:200 --output lognormal:500:200\n"
               "          roofsim serve --rate 4 --requests 1000 --slo-ttft-ms 500 --slo-tpot-ms 50\n"
               "          roofsim serve --scheduler static --max-batch 16");
  cmd->add_option("--hw", o->hw, "Hardware preset or .toml (default h100_sxm5)");
  add_experiment_flags(cmd, o->x, true);
  auto* arrivals = cmd->add_option_group("arrivals", "How requests arrive (one of these; default --rate 20)");
  arrivals->add_option("--concurrency", o->concurrency, "Closed loop: N clients, each sending its next request when "
                                                        "the previous one finishes (as trtllm-bench and vLLM's benchmark)")
      ->check(whole_number_between(1, 1 << 20));
  arrivals->add_option("--rate", o->rate, "Open loop: Poisson arrivals at R requests per second")->check(positive_number());
  arrivals->add_option("--burst", o->burst, "Open loop: N requests at once every --burst-interval-ms")
      ->check(whole_number_between(1, 1 << 20));
  arrivals->add_option("--trace-file", o->trace_file, "Requests from a CSV or JSONL trace (arrival_s or arrival_ms, "
                                                      "prompt_tokens, output_tokens; configs/traces/ has examples)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--ramp-ms", o->ramp_ms, "Closed loop: spread the clients' first requests evenly over this time "
                                           "instead of sending all at 0 (default 0; alone, a closed loop of 8 clients)")
      ->check(non_negative_number());
  cmd->add_option("--burst-interval-ms", o->burst_interval_ms, "Time between bursts (default 1000)")->check(positive_number());
  cmd->add_option("--requests", o->requests, "Requests in all (default 10 x concurrency in a closed loop, else 100)")
      ->check(whole_number_between(1, 10000000));
  cmd->add_option("--prompt", o->prompt, "Prompt tokens: N, uniform:MIN:MAX, normal:MEAN:SD or lognormal:MEAN:SD "
                                         "(optionally :MIN:MAX after them; default lognormal:1024:512)");
  cmd->add_option("--output", o->output, "Output tokens, the same forms (default lognormal:128:64)");
  cmd->add_option("--seed", o->seed, "Seed for arrivals and lengths (default 1)")->check(whole_number_between(0, INT64_MAX));
  cmd->add_option("--warmup", o->warmup, "Leave the first N requests out of the statistics (default 0)")
      ->check(whole_number_between(0, 10000000));
  cmd->add_option("--scheduler", o->scheduler, "continuous: iteration-level batching, requests join and leave every "
                                               "iteration (default); static: a batch prefills together and decodes "
                                               "until its last request finishes")
      ->check(CLI::IsMember({"continuous", "static"}));
  cmd->add_option("--priority", o->priority, "decode_first: running decodes take the token budget, prefills fill the "
                                             "rest of the same iteration (TensorRT-LLM, Sarathi; default); "
                                             "prefill_first: iterations of prefills only while any can be admitted (vLLM v0)")
      ->check(CLI::IsMember({"decode_first", "prefill_first"}));
  cmd->add_option("--max-batch", o->max_batch, "Most sequences in one iteration (default 256)")->check(whole_number_between(1, 1 << 20));
  cmd->add_option("--max-tokens", o->max_tokens, "Most tokens in one iteration, prefill tokens plus one per decode "
                                                 "(default 8192, TensorRT-LLM's max_num_tokens)")
      ->check(whole_number_between(1, 1 << 24));
  cmd->add_option("--max-prompts", o->max_prompts, "Most new requests one iteration starts to prefill (default 0: as many "
                                                   "as --max-tokens and --max-batch hold, as the engines do)")
      ->check(whole_number_between(0, 1 << 20));
  cmd->add_option("--micro-batches", o->micro_batches,
                  "With pipeline stages (--pp): iterations under way at once, each with requests of its own and "
                  "--max-batch sequences at most; a new one starts when the first stage is free (default 0: one per "
                  "stage, as TensorRT-LLM and vLLM run them; 1: one iteration through all stages at a time)")
      ->check(whole_number_between(0, 1024));
  cmd->add_option("--batch-wait-iters", o->batch_wait_iters,
                  "TensorRT-LLM's batch waiting (batch_wait_timeout_iters): while decodes run, hold new prompts back "
                  "for up to this many iterations in a row so that more of them prefill together, unless the "
                  "iteration already has --batch-wait-tokens-ratio x --max-tokens tokens (default 0: off; needs "
                  "both; not with attention data parallelism)")
      ->check(whole_number_between(0, SchedulerConfig::kMaxBatchWaitIters));
  cmd->add_option("--batch-wait-tokens-ratio", o->batch_wait_tokens_ratio,
                  "TensorRT-LLM's batch_wait_max_tokens_ratio: the share of --max-tokens at which held prompts start "
                  "(default 0)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--adp-balance-timeout-iters", o->adp_balance_timeout_iters,
                  "TensorRT-LLM's attention-DP balancing (attention_dp_config enable_balance, timeout_iters): with "
                  "attention data parallelism (--ep), start prompts only when every rank has one and a free slot, "
                  "holding them up to this many iterations since prompts last started (default 0: off)")
      ->check(whole_number_between(0, SchedulerConfig::kMaxBatchWaitIters));
  cmd->add_option("--adp-batching-wait-iters", o->adp_batching_wait_iters,
                  "With that balancing: when every rank has a prompt and every rank decodes, hold them this many "
                  "iterations more (attention_dp_config batching_wait_iters; default 0)")
      ->check(whole_number_between(0, SchedulerConfig::kMaxBatchWaitIters));
  cmd->add_flag("--chunked-prefill", o->chunked, "Split prompts into chunks that fill the token budget (Sarathi-Serve)");
  cmd->add_option("--kv-admission", o->admission, "reserve: admit a request when blocks for its whole prompt and "
                                                  "output are free (TensorRT-LLM's GUARANTEED_NO_EVICT; default); "
                                                  "on_demand: allocate as tokens come, preempt the newest request and "
                                                  "recompute it later when the cache is full (vLLM)")
      ->check(CLI::IsMember({"reserve", "on_demand"}));
  cmd->add_option("--kv-preemption", o->preemption, "What a preempted request's KV cache becomes: recompute (freed; the "
                                                    "request prefills again, vLLM's default) or swap (copied to host memory "
                                                    "over the host link and back when readmitted; needs host.link_gb_per_s)")
      ->check(CLI::IsMember({"recompute", "swap"}));
  cmd->add_flag("--prefix-caching", o->prefix_caching, "Keep the KV blocks of shared prompt prefixes (a trace's prefix_id "
                                                     "and prefix_tokens columns) for later requests with the same prefix; "
                                                     "unused ones are evicted first when the cache is full (vLLM, TensorRT-LLM)");
  cmd->add_option("--block-tokens", o->block_tokens, "Tokens per KV block (default 32)")->check(whole_number_between(1, 65536));
  cmd->add_option("--kv-memory-fraction", o->kv_fraction, "Share of the HBM left after weights and activations "
                                                           "for the KV cache (default 0.9)")
      ->check(positive_number());
  cmd->add_option("--kv-blocks", o->kv_blocks, "KV blocks per chip, instead of computing them from memory")
      ->check(whole_number_between(1, INT64_C(1) << 40));
  cmd->add_option("--iteration-overhead-ms", o->overhead_ms, "Host time per iteration no kernel hides: scheduling, "
                                                             "sampling (default 0)")
      ->check(non_negative_number());
  cmd->add_option("--sequence-overhead-us", o->sequence_overhead_us, "Host time per sequence of an iteration: request "
                                                                     "bookkeeping, sampling, streaming (default 0)")
      ->check(non_negative_number());
  cmd->add_flag("--overlap-scheduler", o->overlap_scheduler, "Prepare each iteration on the host while the chips run the one "
                                                            "before (TensorRT-LLM's overlap scheduler, vLLM's async scheduling): "
                                                            "an iteration launched as a graph takes the longer of its host time "
                                                            "and its pass instead of their sum; a finished request holds its "
                                                            "slot for one more step (the engine learns of it a step late), "
                                                            "and each batch is formed as the iteration before starts "
                                                            "(--schedule-ahead)");
  cmd->add_flag("--late-release", o->late_release, "A finished request holds its slot and KV blocks for one more decode "
                                                  "step, whose token is dropped, as under --overlap-scheduler, but the host "
                                                  "work stays in series with the passes");
  cmd->add_flag("--schedule-ahead", o->schedule_ahead, "Form each iteration's batch when the one before starts, as an "
                                                      "overlapped engine loop does (TensorRT-LLM's overlap scheduler, "
                                                      "vLLM's async scheduling, SGLang's overlap loop): a request that "
                                                      "reaches the engine while an iteration runs starts one iteration "
                                                      "later; implied by --overlap-scheduler. Disaggregated: the "
                                                      "decode instances' loops (--prefill-schedule-ahead for the "
                                                      "prefill ones)");
  cmd->add_flag("--limits-per-rank", o->limits_per_rank, "With --ep, each attention-DP rank schedules with the whole "
                                                        "--max-batch, --max-tokens and --max-prompts (TensorRT-LLM's "
                                                        "attention DP, vLLM's DP engine cores); default: the limits are "
                                                        "the instance's, shared by its ranks (SGLang's DP attention)");
  cmd->add_option("--frontend-request-us", o->frontend_request_us, "API server: host time to take a request in before "
                                                                    "the engine sees it (default 0: no API server)")
      ->check(non_negative_number());
  cmd->add_option("--frontend-prompt-token-us", o->frontend_prompt_token_us, "API server: and per prompt token "
                                                                              "(tokenising; default 0)")
      ->check(non_negative_number());
  cmd->add_option("--frontend-response-us", o->frontend_response_us, "API server: host time per streamed response (one per "
                                                                      "request and iteration with new tokens: detokenise, "
                                                                      "send); its one thread serves waiting responses before "
                                                                      "it takes a request in (default 0)")
      ->check(non_negative_number());
  cmd->add_option("--buckets", o->buckets, "Iteration shapes are rounded to about N values per doubling before they "
                                           "are simulated, so similar iterations share one simulation (default 32, "
                                           "at most 1.6% off; 0: exact shapes)")
      ->check(whole_number_between(0, 4096));
  cmd->add_flag("--all-layers", o->all_layers, "Simulate every layer of each shape's pass. By default a layer that "
                                               "starts from the same machine state as an earlier identical one is "
                                               "replayed from it (the same results, faster; docs/speed.md)");
  auto* disagg = cmd->add_option_group("disaggregated", "Separate prefill and decode instances");
  disagg->add_flag("--disaggregate", o->disaggregate, "Prefill instances run the prompts and send each request's KV "
                                                      "cache over the fabric to a decode instance (DistServe, Dynamo)");
  disagg->add_option("--prefill-instances", o->prefill_instances, "Prefill instances (default 1)")->check(whole_number_between(1, 1024));
  disagg->add_option("--decode-instances", o->decode_instances, "Decode instances (default 1)")->check(whole_number_between(1, 1024));
  disagg->add_option("--prefill-tp", o->prefill_tp, "Chips per prefill instance, tensor parallel (default --tp)")
      ->check(whole_number_between(1, 1024));
  disagg->add_option("--decode-tp", o->decode_tp, "Chips per decode instance, tensor parallel (default --tp)")
      ->check(whole_number_between(1, 1024));
  disagg->add_option("--prefill-max-batch", o->prefill_max_batch,
                     "Most prompts a prefill instance runs in one iteration (TensorRT-LLM's max_batch_size of a "
                     "context server; default --max-batch)")
      ->check(whole_number_between(1, kMaxBatch));
  disagg->add_option("--prefill-max-tokens", o->prefill_max_tokens,
                     "Most prompt tokens a prefill instance runs in one iteration (default --max-tokens)")
      ->check(whole_number_between(1, kMaxTokens));
  disagg->add_option("--instance-routing", o->routing,
                     "How each request picks its prefill and decode instance:\n"
                     "  least_loaded: the one holding the fewest requests (default)\n"
                     "  round_robin: each in turn, as NVIDIA Dynamo's frontend routes by default; a request may "
                     "queue at a busy instance while another idles")
      ->check(CLI::IsMember({"least_loaded", "round_robin"}));
  disagg->add_option("--first-token", o->first_token,
                     "Which instance gives the client its first token:\n"
                     "  prefill: the prefill instance, as soon as it has it (default)\n"
                     "  decode: the decode instance, in its first iteration with the request (Dynamo streams every "
                     "token from the decode worker): waiting for a decode slot counts in TTFT")
      ->check(CLI::IsMember({"prefill", "decode"}));
  disagg->add_flag("--prefill-schedule-ahead", o->prefill_schedule_ahead,
                   "The prefill instances form each batch when the iteration before starts, as --schedule-ahead "
                   "does for the decode ones (SGLang's prefill servers run their overlap loop; TensorRT-LLM's "
                   "context servers run without the overlap scheduler in disaggregated recipes: default off)");
  disagg->add_option("--decode-first-response", o->decode_first_response,
                     "With --first-token decode: the decode instance's iteration in which it first responds "
                     "(TensorRT-LLM's overlap scheduler skips a generation-only request's first iteration, then "
                     "responds every stream_interval iterations: give its stream_interval; default 1: at once)")
      ->check(whole_number_between(1, kMaxTokens));
  cmd->add_option("--speculative-tokens", o->speculative_tokens,
                  "Speculative decoding: a draft proposes K tokens per sequence before each decode step and the "
                  "target verifies K + 1 in one pass (default 0: off)")
      ->check(whole_number_between(0, kMaxVerifyTokens - 1));
  cmd->add_option("--draft", o->draft, "The draft: mtp (the target's own next-token head, one more of its layers; "
                                       "default), or a model preset, .toml or config.json with the target's vocabulary, "
                                       "on the same chips (with --pp: the last stage's, after its part of the pass)");
  cmd->add_option("--acceptance", o->acceptance, "Chance that a drafted token is accepted when the ones before it were: "
                                                 "one value (default 0.7) or one per position (0.9,0.7,0.5)");
  cmd->add_option("--slo-ttft-ms", o->slo_ttft_ms, "Time-to-first-token objective for goodput")->check(non_negative_number());
  cmd->add_option("--slo-tpot-ms", o->slo_tpot_ms, "Time-per-output-token objective for goodput")->check(non_negative_number());
  add_json_option(cmd, o->json);
  cmd->add_option("--requests-csv", o->requests_csv, "Write one row per request to FILE ('-' = standard output)");
  cmd->add_option("--iterations-csv", o->iterations_csv, "Write one row per iteration (batch, tokens, KV blocks, queue) to FILE");
  cmd->add_option("--trace", o->trace, "Write a Chrome trace-event JSON timeline to FILE (open it in Perfetto): a slice per "
                                       "iteration (prefill, decode or mixed, with its batch and shape), counters of batch "
                                       "size, tokens per iteration, KV blocks in use and requests waiting, and each "
                                       "request's waiting and generating on tracks shared by requests that never overlap");
  cmd->add_option("--plot", o->plot, "Write a chart over simulated time (FILE.png or FILE.svg, drawn by gnuplot): batch "
                                     "size and queue length, tokens per iteration, KV blocks in use against the capacity");
  cmd->callback([o, cmd] { serve(*o, *cmd); });
}

}  // namespace roofsim
