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
  long line = 0;
  std::string system, model_path;  // as the row names them
  std::string backend = "trtllm";   // the serving framework (column backend)
  std::string hw, model;           // the roofsim presets they map to
  std::int64_t isl = 0, osl = 0, concurrency = 1;
  std::int64_t batch = 1;  // the server's max_batch_size (batch_size; decode_batch_size disaggregated)
  // Parallelism of one instance: TP x PP, and EP ranks each with its own attention (data
  // parallel) and a share of the experts.
  std::int64_t tp = 1, pp = 1, ep = 1;
  std::int64_t moe_tp = 0;  // experts TP-split over this many of the tp chips, spread over the rest (0: all tp)
  DType dtype = DType::bf16;  // weights and activations
  bool fp8_block = false;     // fp8 weights with block scales, 16-bit activations (Precision::scale_block_k)
  bool disaggregated = false;
  std::int64_t prefill_instances = 1, decode_instances = 1, prefill_tp = 1, decode_tp = 1, prefill_batch = 1;
  std::string note;           // how the row was mapped where roofsim approximates it
  std::string not_simulated;  // why roofsim cannot set the row up ("": it can)
  double ttft_s = 0, tpot_s = 0;  // measured means
  // The measured run's throughput and clients waiting for a first token (closed_loop_requests_per_s,
  // Little's law).
  double requests_per_s() const;
  double waiting() const { return requests_per_s() * ttft_s; }
};

// Reads the CSV in the format of aiconfigurator's silicon samples (columns id, model_path,
// system, mode, isl, osl, batch_size, tp_size, pp_size, silicon_concurrency, silicon_ttft_ms,
// silicon_tpot_ms; optional gemm_quant_mode, moe_quant_mode, attention_dp_size, moe_tp_size,
// moe_ep_size and, for mode disagg, prefill_/decode_ num_workers, tp_size, pp_size,
// batch_size). A malformed row (a missing column, a number that is none) is refused with its
// file:line; a row roofsim cannot set up (a system or model without a preset, a quantization
// or parallel layout it does not model) is kept with the reason in `not_simulated`.
std::vector<ServingCase> load_serving_cases(const std::string& path);

// How a case is run: the engine's defaults as the measurements' software had them.
struct ServingCaseSettings {
  std::int64_t requests_per_client = 10;  // requests in all = this x concurrency
  // The software stack every row runs (configs/stacks; "" none). Unset: each row's backend's
  // (trtllm: trtllm-1.x, TensorRT-LLM 1.0's PyTorch flow; vllm; sglang).
  std::optional<std::string> stack;
  int buckets_per_octave = 32;
  bool sample_layers = true;
  double iteration_overhead_s = 0;
  // TensorRT-LLM's host time per sequence and iteration: fitted on the even rows of the table
  // (least TPOT MAPE of 0, 10, 15, 20 and 30 us), checked on the odd ones (docs/serving.md).
  double sequence_overhead_s = 15e-6;
  // TensorRT-LLM's overlap scheduler (ServingSetup::overlap_host). Off: the fit above was made
  // without it; with it no host time per sequence fitted both TTFT and TPOT (docs/serving.md).
  bool overlap_host = false;
  // Most tokens in one iteration (TensorRT-LLM's max_num_tokens). 0: as aiconfigurator's
  // generator set it for these aggregated deployments, batch_size + prompt + 1500, so that one
  // prompt (two of 1024 tokens) is prefilled per iteration beside the decodes.
  std::int64_t max_tokens = 0;
  // Server batch limit = the rows' batch_size (= their concurrency) + this. -1, fitted on the odd
  // file lines (TTFT MAPE 47.1 / 19.1 / 48.7% for 0 / -1 / -2): at concurrency 8-32 the measured
  // runs behave as if one request always waits for a slot (a median of 0.87 queued over 108 rows;
  // TTFT exceeds the prefill by one interval between completions; docs/serving.md). The cause is
  // not known.
  std::int64_t batch_offset = -1;
  // TensorRT-LLM rows: most prompts an iteration starts (SchedulerConfig::max_prompts). 1,
  // chosen from the rows (docs/serving.md, "Session 31"): the measured concurrency-128 runs
  // at TP 4-8 give about one prompt per eager iteration (36 requests/s whether an iteration
  // could hold one 1024-token prompt or two), and TPOT at every concurrency fits better. Their
  // clients reach the engine one at a time; roofsim's identical, lock-step clients would pair
  // up. TensorRT-LLM itself has no such limit. 0: none.
  std::int64_t max_prompts = 1;
  // TensorRT-LLM rows: a finished request frees its slot one step late (SchedulerConfig::
  // late_release), as under the overlap scheduler that aiconfigurator's benchmark rule turns on
  // for aggregated workers, with the host work kept in series as the TPOT rows need. Chosen
  // from the rows: it gives the 4096-token prompts at concurrency 8-32 the wait they measure.
  bool late_release = true;
  // The API server in front of the executor (serving/frontend.hpp): 80 us per streamed response,
  // fitted on the odd file lines together with the stack's eager launch interval (least TTFT
  // MAPE over 70-100 us), checked on the even ones (docs/serving.md).
  FrontendConfig frontend = {0, 0, 80e-6};
  // The clients' first requests spread over this many request durations (estimated: the output
  // tokens x a simulated decode step of the whole batch at the mean context), so that the
  // closed loop starts in the staggered steady state instead of in waves. 0: all at once.
  double ramp_requests = 0;
};

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
  double ttft_error() const { return ttft_s / c.ttft_s - 1; }
  double tpot_error() const { return tpot_s / c.tpot_s - 1; }
  double requests_per_s() const { return closed_loop_requests_per_s(c.concurrency, c.osl, ttft_s, tpot_s); }
  double requests_error() const { return requests_per_s() / c.requests_per_s() - 1; }
  // Clients waiting for their first token, on average (Little's law: requests/s x TTFT); the
  // others are streaming. Where the throughput agrees and TTFT does not, the two runs split
  // the same clients differently between waiting and streaming.
  double waiting() const { return requests_per_s() * ttft_s; }
};

// Runs the cases one after another; progress per case, cancellable between cases.
std::vector<ServingCaseResult> run_serving_cases(const std::vector<ServingCase>& cases, const ServingCaseSettings& s,
                                                 const RunControl& control = {});

}  // namespace roofsim
