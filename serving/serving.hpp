#pragma once
// A serving run: requests arrive over time (serving/workload.hpp), a scheduler forms each
// iteration's batch (serving/scheduler.hpp) under a paged KV cache (serving/kv_cache.hpp), and
// every iteration is a forward pass with that iteration's real shapes, simulated on the
// event-level chip and fabric model (experiment PassSimulator). The serving clock is an event
// loop over iterations and arrivals, outside SystemC: each distinct iteration shape is
// simulated once on idle chips, and an identical iteration later reuses that result exactly.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "experiment/inference.hpp"
#include "experiment/progress.hpp"
#include "serving/frontend.hpp"
#include "serving/workload.hpp"

namespace roofsim {

struct SchedulerConfig {
  // How each iteration's batch is formed: a policy of batchings() (serving/batchings/:
  // continuous, iteration-level; static, a batch runs to its end), by name.
  std::string policy = "continuous";
  // What a continuous iteration plans first: a policy of priorities() (serving/priorities/:
  // decode_first, prefill_first, ...), by name.
  std::string priority = "decode_first";
  std::int64_t max_batch = 256;    // sequences in one iteration
  std::int64_t max_tokens = 8192;  // tokens in one iteration (prefill tokens + one per decode)
  // Most new requests an iteration starts to prefill; 0: as many as max_tokens and max_batch
  // hold. No engine we model has such a limit (trtllm-1.x used 1 until session 34, docs/serving.md).
  std::int64_t max_prompts = 0;
  // Split prompts into chunks that fill the budget (Sarathi); off: a prompt runs whole, and
  // waits until the budget has room for all of it.
  bool chunked_prefill = false;
  // TensorRT-LLM's batch waiting (batch_wait_timeout_iters and batch_wait_max_tokens_ratio,
  // PyExecutor._waiting_requests, 1.1 on): in an iteration that has decodes, the prompts it
  // would start are held back, so that more of them prefill together later, until its tokens
  // (prompts and decodes) reach batch_wait_tokens_ratio x max_tokens or batch_wait_iters
  // iterations in a row have held them. 0 iterations: off (TensorRT-LLM's default; the ratio
  // alone holds nothing). Not with attention data parallelism, as TensorRT-LLM.
  std::int64_t batch_wait_iters = 0;
  double batch_wait_tokens_ratio = 0;
  static constexpr std::int64_t kMaxBatchWaitIters = 1 << 20;
  // TensorRT-LLM's attention-DP balancing (attention_dp_config: enable_balance, timeout_iters,
  // batching_wait_iters; PyExecutor._balance_adp_requests): with attention data parallelism an
  // iteration starts prompts only when every rank has one to start and a free slot - else it
  // holds them, until adp_balance_timeout_iters iterations have passed since prompts last
  // started or some rank has nothing decoding; when every rank has one and every rank decodes,
  // it may still hold them adp_batching_wait_iters iterations. Both 0: off (TensorRT-LLM's
  // default). Only with attention DP (expert-parallel ranks).
  std::int64_t adp_balance_timeout_iters = 0;
  std::int64_t adp_batching_wait_iters = 0;
  // Tokens a decode feeds the target per step: 1, or k + 1 with speculative decoding (the last
  // accepted token and k drafted ones to verify). Set from SpeculativeConfig by the engine.
  std::int64_t verify_tokens = 1;
  // Iterations in flight at once on an instance of pipeline stages (TensorRT-LLM's and vLLM's
  // micro-batches): a new one starts when the first stage is free, each with requests of its
  // own; max_batch limits each, so up to max_batch x micro_batches requests run. 0: one per
  // pipeline stage (${pp}); 1 runs one iteration through all stages at a time.
  std::int64_t micro_batches = 0;
  // The engine learns an iteration's finished requests only after it has planned the next
  // (TensorRT-LLM's overlap scheduler; ServingSetup::overlap_host implies it): a finished request
  // takes one more decode step, whose token is dropped, and leaves its slot and KV blocks after it.
  // Set alone, the host work stays in series with the passes.
  bool late_release = false;
  // The engine forms an iteration's batch when it launches the one before, while the chips still
  // run it (TensorRT-LLM's overlap scheduler: PyExecutor._executor_loop_overlap fetches new
  // requests and schedules iteration k + 1 right after launching k; vLLM's async scheduling;
  // SGLang's overlap loop): a request that reaches the engine after iteration k started joins
  // k + 2 at the earliest, one iteration later than with a loop that fetches, schedules and
  // waits in turn. An engine holding no requests takes a new one at once.
  bool schedule_ahead = false;
  // With expert parallelism (attention data parallel over the EP ranks) each rank runs its own
  // scheduler with the whole max_batch, max_tokens and max_prompts: TensorRT-LLM's attention DP
  // (max_batch_size and max_num_tokens are each rank's) and vLLM's data-parallel engine cores.
  // Off, the limits are the instance's, shared by its ranks: SGLang's DP attention divides
  // chunked_prefill_size and max_running_requests by dp_size (server_args.py).
  bool limits_per_rank = false;
  // Micro-batches under way on an instance of `stages` pipeline stages.
  std::int64_t micro_batches_on(std::int64_t stages) const { return micro_batches > 0 ? micro_batches : stages; }
};

// Speculative decoding: before each decode step a draft proposes k tokens per sequence, one
// draft pass after another; the target then verifies the k + 1 tokens of every sequence in one
// pass and keeps the drafted tokens up to the first rejected one, plus its own next token.
struct SpeculativeConfig {
  std::int64_t tokens = 0;  // k drafted per step; 0: off
  // "mtp": the target's own multi-token-prediction head (DeepSeek-V3, EAGLE-style), built as
  // one more of the target's layers with its LM head; otherwise a model preset, .toml or
  // Hugging Face config.json, run on the same chips with the same parallelism.
  std::string draft = "mtp";
  // The chance that a drafted token is accepted given the ones before it were (positions
  // independent), or one such chance per position (k values) when not empty.
  double acceptance = 0.7;
  std::vector<double> position_acceptance;
  double accept_chance(std::int64_t position) const {
    return position_acceptance.empty() ? acceptance : position_acceptance[static_cast<std::size_t>(position)];
  }
};

// Disaggregated prefill and decode (DistServe, Splitwise, NVIDIA Dynamo): prefill instances
// run the prompts and produce the first token, then send each request's KV cache over the
// fabric to a decode instance, which generates the rest. Each instance is its own TP group with
// its own KV cache; requests go to the instance holding the fewest.
struct DisaggregationConfig {
  bool enabled = false;
  std::int64_t prefill_instances = 1, decode_instances = 1;
  std::int64_t prefill_tp = 0, decode_tp = 0;  // 0: the machine's tp
  // Each pool's expert parallelism (EP ranks with data-parallel attention) and experts' TP
  // split; 0: the machine's ep and moe_tp.
  std::int64_t prefill_ep = 0, decode_ep = 0, prefill_moe_tp = 0, decode_moe_tp = 0;
  // A worker wider than this many GPUs spans nodes joined by the NICs (Experiment::nodes);
  // 0: every worker on one switch.
  std::int64_t gpus_per_node = 0;
  // How a request picks its prefill and its decode instance: a policy of instance_routings()
  // (serving/instance_routings/: least_loaded, round_robin, ...), by name.
  std::string routing = "least_loaded";
  // Where the client's first token comes from: the prefill instance, as soon as it has it
  // (DistServe), or the decode instance, in its first iteration with the request (Dynamo: its
  // frontend sends the prompt to a prefill worker for the KV cache and streams every token from
  // the decode worker), so a request that waits for a decode slot waits for its first token.
  enum class FirstToken { prefill, decode };
  FirstToken first_token = FirstToken::prefill;
  // With the first token from the decode instance: the iteration of its own in which it first
  // responds (TensorRT-LLM's overlap scheduler skips a generation-only request's first iteration
  // and then responds every stream_interval iterations: its stream_interval; 1: at once).
  std::int64_t decode_first_response = 1;
  // The prefill instances' engine loops form each batch when the iteration before starts, as the
  // decode instances' do under SchedulerConfig::schedule_ahead: SGLang's prefill servers run
  // their overlap loop (event_loop_overlap_disagg_prefill); TensorRT-LLM's context servers run
  // without the overlap scheduler in the disaggregated recipes (disable_overlap_scheduler).
  bool prefill_schedule_ahead = false;
  // The prefill instances' own limits per iteration (TensorRT-LLM's max_batch_size and
  // max_num_tokens of a context server); 0: the scheduler's, as the decode instances.
  std::int64_t prefill_max_batch = 0, prefill_max_tokens = 0;
};

struct KvCacheConfig {
  // How a waiting request is admitted into the cache: a policy of serving/kv_admissions/ by
  // name (reserve: its whole prompt and output up front, never preempting; on_demand: blocks as
  // tokens arrive, preempting the newest request when the cache is full).
  std::string admission = "reserve";
  // What a preempted request's KV cache becomes: a policy of serving/kv_preemptions/ by name
  // (recompute: freed, the request prefills again; swap: copied to host memory and back).
  std::string preemption = "recompute";
  std::int64_t block_tokens = 32;
  // Share of the HBM left after weights and activations that holds the KV cache
  // (TensorRT-LLM's kv_cache_free_gpu_mem_fraction, vLLM's gpu_memory_utilization).
  double memory_fraction = 0.9;
  // Blocks per chip, overriding the memory computation (0: computed).
  std::int64_t blocks = 0;
  // Keep the whole blocks of shared prompt prefixes (a trace's prefix_id and prefix_tokens) for
  // later requests with the same prefix (serving/kv_cache.hpp, PrefixCache).
  bool prefix_caching = false;
};

struct ServingSetup {
  // The machine and model: hw, model, dtypes, attention, tp, pp, topology, near_memory,
  // launch; batch, prompt and generate are not used.
  Experiment machine;
  WorkloadSpec workload;
  SchedulerConfig scheduler;
  KvCacheConfig kv;
  SpeculativeConfig speculative;
  DisaggregationConfig disaggregation;
  // Host time per iteration that no kernel covers (scheduling, sampling, detokenising),
  // added before each iteration's pass.
  double iteration_overhead_s = 0;
  // And per sequence in the iteration (request bookkeeping, sampling, streaming the token out).
  double sequence_overhead_s = 0;
  // Overlap scheduler (TensorRT-LLM's, vLLM's async scheduling, SGLang's overlap): the host
  // prepares an iteration while the chips still run the one before, so an iteration launched as
  // a graph takes the longer of its host time and its pass, not their sum. An iteration
  // launched op by op keeps its host time in series: the thread that would overlap it is busy
  // launching. The engine then learns an iteration's finished requests one step late
  // (SchedulerConfig::late_release): each takes one more decode step and frees its slot after it.
  bool overlap_host = false;
  // Whether finished requests free their slots one step late: under the overlap scheduler, or
  // asked for alone (SchedulerConfig::late_release).
  bool late_release() const { return overlap_host || scheduler.late_release; }
  // The batch of each iteration formed when the one before starts (SchedulerConfig::schedule_ahead):
  // the overlap scheduler does, or it is asked for alone. Disaggregated, the decode instances'
  // loops; the prefill instances' is DisaggregationConfig::prefill_schedule_ahead.
  bool schedule_ahead() const { return overlap_host || scheduler.schedule_ahead; }
  // The API server between the clients and the engine (serving/frontend.hpp); none by default.
  FrontendConfig frontend;
  // Iteration shapes are bucketed before they are simulated: every token count and context
  // is rounded to the nearest multiple of 2^floor(log2(v / bucket_per_octave)), i.e. about
  // bucket_per_octave values per doubling (32: at most 1.6% off). 0: exact shapes.
  int buckets_per_octave = 32;
  // Each shape's pass with layer replay (PassSimulator::simulate_sampled): layers that start
  // as an earlier identical one did are replayed, exactly; false simulates every layer.
  bool sample_layers = true;
  // Service-level objectives for goodput: a request counts when both hold (0: no limit).
  double slo_ttft_s = 0, slo_tpot_s = 0;
  // The first this many requests (by id) run but are left out of the statistics: a closed
  // loop starts with every client sending at once, which steady state never sees.
  std::int64_t warmup_requests = 0;
  std::string source = "built-in default";
};

// One request as it went.
struct RequestRecord {
  RequestSpec spec;
  double arrival_s = 0, first_token_s = -1, finish_s = -1;
  double kv_arrival_s = -1;  // disaggregated: when its KV cache reached the decode instance
  std::int64_t preemptions = 0;
  double ttft_s() const { return first_token_s - arrival_s; }
  double tpot_s() const {
    return spec.output_tokens > 1 ? (finish_s - first_token_s) / static_cast<double>(spec.output_tokens - 1) : 0.0;
  }
  double e2e_s() const { return finish_s - arrival_s; }
};

// One iteration: when it started, what it held, what it took.
struct IterationRecord {
  double start_s = 0, seconds = 0;
  std::int32_t prefill_sequences = 0, decode_sequences = 0;
  std::int64_t prefill_tokens = 0;
  std::int64_t kv_blocks_used = 0;
  std::int32_t waiting = 0;
  std::int32_t shape = 0;  // index into ServingResult::shapes
  double draft_seconds = 0;         // of `seconds`: the draft passes (speculative decoding)
  double draft_energy_j = 0;        // their dynamic energy (0 without an [energy] table)
  double swap_seconds = 0;          // of `seconds`: KV copies to and from the host (swap preemption)
  std::int64_t swap_out_tokens = 0, swap_in_tokens = 0;
  std::int32_t worker = 0;          // the instance that ran it (disaggregated: prefill ones first)
  std::int32_t micro_batch = 0;     // pipeline stages: which of the micro-batches under way at once (0 without)
  std::int64_t decode_tokens = 0;   // output tokens the decodes produced (more than one each when drafts are accepted)
  // Expert parallelism: the tokens the iteration fed (prefill chunks, decodes' verify tokens)
  // and those of its busiest EP rank, whose work was simulated (all of them with one rank).
  std::int64_t tokens = 0, busiest_rank_tokens = 0;
};

// A distinct (bucketed) iteration shape and what simulating it gave.
struct IterationShape {
  std::vector<SequenceGroup> groups;
  std::string pool;  // disaggregated: "prefill" or "decode"; "" otherwise
  PassOutcome outcome;
  std::int64_t uses = 0;
};

struct Percentiles {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};

struct ServingSummary {
  std::int64_t requests = 0;  // counted in the statistics
  double duration_s = 0;      // first arrival to last finish of the counted requests
  double output_tok_s = 0, total_tok_s = 0, requests_per_s = 0;
  double output_tok_s_per_chip = 0;
  double tok_s_per_user = 0;  // 1 / mean TPOT
  Percentiles ttft_s, tpot_s, e2e_s;
  double goodput_requests_per_s = 0;  // counted requests meeting both SLOs, per second
  double slo_attainment = 0;          // share of counted requests meeting both SLOs
  std::int64_t preemptions = 0;
  // Swap preemption: KV tokens copied to the host and back, and the share of the time the
  // iterations waited for those copies.
  std::int64_t swapped_out_tokens = 0, swapped_in_tokens = 0;
  double swap_share = 0;
  double mean_batch = 0;              // sequences per iteration
  double decode_intensity = 0;        // FLOP/B of the decode-only iterations: their FLOPs over their bytes
  // Speculative decoding: output tokens per sequence and target decode step (1 without), and
  // the share of the time the draft passes took.
  double tokens_per_step = 0;
  double draft_share = 0;
  // The target passes' analytic bound over their simulated time, summed over the iterations
  // (how close to the roofline the server runs; host time and drafts not counted).
  double roofline_share = 0;
  // Expert parallelism: the busiest rank's tokens over an even share, summed over the
  // iterations (1: the ranks always evenly loaded; the iterations took as long as the busiest).
  double ep_imbalance = 1;
  // Energy (the chip's [energy] table; all zero without one): every iteration's passes' dynamic
  // energy (draft and target) and every chip's static power from the first
  // iteration's start to the last one's end, per output token and request of all the requests
  // run (warm-up included: the energy is the whole run's), and the average power per chip.
  bool energy_modelled = false;
  double energy_j = 0, energy_per_output_token_j = 0, energy_per_request_j = 0, avg_power_w = 0;
};

struct ServingResult {
  ServingSetup setup;
  HardwareSpec hw;
  ModelConfig model;
  std::string topology;
  std::int64_t chips = 1;
  std::vector<std::string> notes;
  std::int64_t kv_blocks = 0;           // per chip (disaggregated: of a decode instance)
  double kv_bytes_per_block = 0;        // per chip
  double weights_bytes = 0, activations_bytes = 0;  // per chip
  // Disaggregated serving: the prefill instances' cache, and the KV transfers to decode.
  std::int64_t prefill_kv_blocks = 0;
  std::string transfer_topology;  // the fabric a prefill and a decode instance share
  std::int64_t kv_transfers = 0;  // transfers simulated (one per prefill iteration that finished prompts)
  double kv_transfer_bytes = 0;   // sent by the prefill chips
  double kv_link_bytes = 0;       // carried by the fabric's links
  double kv_transfer_s = 0;       // the transfers' time, summed
  // Prefix caching: requests whose prefix was cached, prompt tokens not computed, prefixes evicted.
  std::int64_t prefix_hits = 0, prefix_tokens_reused = 0, prefix_evictions = 0;
  std::vector<RequestRecord> requests;
  std::vector<IterationRecord> iterations;
  std::vector<IterationShape> shapes;
  ServingSummary summary;
  double frontend_busy_share = 0;  // of the serving clock, the API server's thread was busy
  double simulated_s = 0;  // the serving clock at the end
  double wall_s = 0;       // what the run took
  double sim_wall_s = 0;   // of which simulating passes
};

// Runs the serving simulation. Throws InputError for impossible settings (a request that the
// KV cache cannot hold, a prompt beyond the token budget without chunked prefill, a context
// beyond the model's), Cancelled when `control` asks. Progress: requests finished.
ServingResult run_serving(const ServingSetup& setup, const RunControl& control = {});

// The statistics of finished requests (the summary run_serving fills).
ServingSummary summarize(const ServingResult& r);

// Rounds v to the bucket grid (see ServingSetup::buckets_per_octave; 0 returns v).
std::int64_t bucket_tokens(std::int64_t v, int buckets_per_octave);

}  // namespace roofsim
