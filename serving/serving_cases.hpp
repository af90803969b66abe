#pragma once
// Measured serving runs (validation/serving CSV: TensorRT-LLM on H100, closed-loop clients at a
// concurrency) and roofsim's serving simulation of each, row by row.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiment/progress.hpp"
#include "serving/serving.hpp"

namespace roofsim {

struct ServingCase {
  std::string id;
  std::string file;  // the table it came from
  long line = 0;
  std::string system, model_path;  // as the row names them
  std::string backend = "trtllm";   // the serving framework (column backend)
  std::string backend_version;     // as the row gives it ("" unrecorded)
  std::string mode = "agg";        // agg or disagg
  std::string hw, model;           // the roofsim presets they map to
  std::int64_t isl = 0, osl = 0, concurrency = 1;
  // The server's max batch per scheduler (batch_size; decode_batch_size disaggregated): each
  // attention-DP rank has a scheduler of its own.
  std::int64_t batch = 1;
  // Parallelism of one instance (the decode one, disaggregated): TP x PP, and EP ranks each with
  // its own attention (data parallel) and a share of the experts; experts TP-split over moe_tp
  // of the tp chips and spread over the rest (0: all tp).
  std::int64_t tp = 1, pp = 1, ep = 1, moe_tp = 0;
  Precision precision;  // weights and activations of the dense linears and of the experts
  bool disaggregated = false;
  std::int64_t prefill_instances = 1, decode_instances = 1, prefill_tp = 1, decode_tp = 1, prefill_batch = 1;
  std::int64_t prefill_ep = 1, prefill_moe_tp = 0;
  // Disaggregated: the prefill workers' own limits per iteration (0: the decode workers'), and
  // whether the decode batch limit is the deployment's own (a harness recipe's), which a
  // concurrency above it does not raise: the clients beyond it queue.
  std::int64_t prefill_max_batch = 0, prefill_max_tokens = 0;
  bool batch_from_recipe = false;
  // The decode worker's iteration in which a request's first token reaches the client
  // (DisaggregationConfig::decode_first_response, a recipe's; 1 at once).
  std::int64_t decode_first_response = 1;
  // Every way the row was filled in or mapped where it does not say or roofsim approximates
  // (a blank concurrency, a layout run another way, a version taken as the nearest documented),
  // one sentence each: printed on the row and counted in the summary.
  std::vector<std::string> assumptions;
  // The row leaves out part of its deployment's size (a blank concurrency, batch limit or
  // disaggregated worker counts): its errors measure the assumption as much as the mechanisms.
  bool deployment_assumed = false;
  // The benchmark that measured the row, told by its silicon_data_source: aiconfigurator's
  // gap-analysis runs (aiperf against generator-deployed servers; fixed lengths) or InferenceMAX
  // (SemiAnalysis' benchmark_serving.py: each request's prompt and output lengths drawn uniformly
  // from [0.8 x isl, isl] and [0.8 x osl, osl], --random-range-ratio 0.8). Unknown: fixed lengths.
  enum class Harness { unknown, aiconfigurator, inferencemax };
  Harness harness = Harness::unknown;
  std::string not_simulated;  // why roofsim cannot run the row ("": it can)
  double ttft_s = 0, tpot_s = 0;  // measured means
  // The group the row's errors are reported in: backend x model x system x mode.
  std::string group() const { return backend + " | " + model_path + " | " + system + " | " + mode; }
  std::string note() const;  // the assumptions, joined
  // The measured run's throughput and clients waiting for a first token (closed_loop_requests_per_s,
  // Little's law).
  double requests_per_s() const;
  double waiting() const { return requests_per_s() * ttft_s; }
};

// Reads the CSV in the format of aiconfigurator's silicon samples (required columns id,
// model_path, system, mode, isl, osl, silicon_ttft_ms, silicon_tpot_ms; the others optional:
// backend, backend_version, silicon_concurrency, batch_size, tp_size, pp_size,
// gemm_quant_mode, moe_quant_mode, attention_dp_size, moe_tp_size, moe_ep_size and, for mode
// disagg, the prefill_ / decode_ columns; any other column is ignored). A file that cannot be
// read, lacks a required column or is over the size limit is refused (InputError). A row that
// roofsim cannot set up (a malformed cell, a system without a preset, an unknown model or
// quantization label) is kept with the reason in `not_simulated`; blank cells are filled in by
// documented assumptions, each recorded on the row (docs/serving.md, "Every row runs").
std::vector<ServingCase> load_serving_cases(const std::string& path);

// How a case is run. Unset values come from the row's stack's [serving] table (configs/stacks),
// so one stack's fitted constants never reach another's rows; a value set here (a flag) applies
// to every row.
struct ServingCaseSettings {
  std::int64_t requests_per_client = 10;  // requests in all = this x concurrency
  // The software stack every row runs (configs/stacks; "" none). Unset: each row's backend's
  // (trtllm: trtllm-1.x, TensorRT-LLM 1.0's PyTorch flow; vllm; sglang).
  std::optional<std::string> stack;
  int buckets_per_octave = 32;
  bool sample_layers = true;
  std::optional<double> iteration_overhead_s, sequence_overhead_s;
  // The host work of graph-launched iterations overlaps the pass before (ServingSetup::overlap_host).
  bool overlap_host = false;
  // Most tokens in one iteration. Unset: as aiconfigurator's generator deployed each engine:
  // TensorRT-LLM's max_num_tokens and vLLM's --max-num-batched-tokens batch_size + prompt + 1500
  // aggregated, prefill_batch x prompt + 1500 for prefill workers; SGLang's --max-prefill-tokens
  // prompt + 1500 under the stack's [serving] max_num_tokens.
  std::optional<std::int64_t> max_tokens;
  std::optional<std::int64_t> batch_offset;  // server batch limit = batch_size + this
  std::optional<std::int64_t> max_prompts;   // most prompts an iteration starts (0: no limit)
  std::optional<bool> late_release;          // finished requests free their slots one step late
  // The API server in front of the executor (serving/frontend.hpp), per request and streamed response.
  std::optional<double> frontend_request_s, frontend_prompt_token_s, frontend_response_s;
  // The clients' first requests spread over this many request durations (estimated: the output
  // tokens x a simulated decode step of the whole batch at the mean context), so that the
  // closed loop starts in the staggered steady state instead of in waves. 0: all at once.
  double ramp_requests = 0;
  // Requests in all are capped at this (0: no cap): at concurrency 4,916 with 10 requests per
  // client a row would take minutes. The cap keeps at least 2 requests per client.
  std::int64_t max_requests = 0;
};

// The benchmark a silicon_data_source cell names (ServingCase::Harness).
ServingCase::Harness serving_harness(const std::string& source);
// InferenceMAX's clients draw each length uniformly from [kInferenceMaxRangeRatio x L, L]
// (benchmark_serving.py sample_random_requests, RANDOM_RANGE_RATIO 0.8 in its workflows).
constexpr double kInferenceMaxRangeRatio = 0.8;

ServingSetup serving_case_setup(const ServingCase& c, const ServingCaseSettings& s);
// The stack a row runs: the settings' if given, else its backend's.
std::string serving_case_stack(const ServingCase& c, const ServingCaseSettings& s);

// Requests per second of `concurrency` closed-loop clients whose requests take TTFT + (output -
// 1) x TPOT each, one in flight per client at all times. The rows give only the means, so this
// is their throughput; the simulated run's is derived the same way, to compare like with like.
double closed_loop_requests_per_s(std::int64_t concurrency, std::int64_t output_tokens, double ttft_s, double tpot_s);

struct ServingCaseResult {
  ServingCase c;
  double ttft_s = 0, tpot_s = 0;  // simulated means
  double wall_s = 0;
  std::string failed;  // why the simulation of the row stopped ("": it ran)
  double ttft_error() const { return ttft_s / c.ttft_s - 1; }
  double tpot_error() const { return tpot_s / c.tpot_s - 1; }
  double requests_per_s() const { return closed_loop_requests_per_s(c.concurrency, c.osl, ttft_s, tpot_s); }
  double requests_error() const { return requests_per_s() / c.requests_per_s() - 1; }
  // Clients waiting for their first token, on average (Little's law: requests/s x TTFT); the
  // others are streaming. Where the throughput agrees and TTFT does not, the two runs split
  // the same clients differently between waiting and streaming.
  double waiting() const { return requests_per_s() * ttft_s; }
};

// Runs the cases, on `jobs` worker processes (1: in this one); progress per case, cancellable
// between cases. A row whose simulation fails (a request its KV cache cannot hold, ...) is
// returned with `failed` set to the reason, not thrown: the rest still run.
std::vector<ServingCaseResult> run_serving_cases(const std::vector<ServingCase>& cases, const ServingCaseSettings& s,
                                                 const RunControl& control = {}, int jobs = 1);

}  // namespace roofsim
