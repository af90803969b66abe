#pragma once
// The deployments a benchmark harness published for its disaggregated runs (configs/harnesses):
// how many prefill and decode workers, their layouts and limits, at each benchmark concurrency.
// A measured row that leaves its deployment out is deployed as the recipes at its concurrency
// say, where they agree.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace roofsim {

// One worker pool of a recipe.
struct RecipePool {
  std::int64_t workers = 1;
  // "tp": attention and experts tensor parallel over the worker's GPUs; "tep": attention TP,
  // experts spread over the GPUs; "dep": attention data parallel, experts spread.
  std::string layout = "tp";
  std::int64_t gpus = 1;
  std::int64_t max_batch = 0;   // the engine's own limit (TensorRT-LLM: each DP rank's; SGLang: the worker's)
  std::int64_t max_tokens = 0;  // prefill only; 0 unset
  // Decode only: the worker's iteration in which a request's first token reaches the client
  // (DisaggregationConfig::decode_first_response).
  std::int64_t first_response = 1;
  bool operator==(const RecipePool& o) const {
    return workers == o.workers && layout == o.layout && gpus == o.gpus && max_batch == o.max_batch && max_tokens == o.max_tokens &&
           first_response == o.first_response;
  }
};

struct HarnessRecipe {
  std::vector<std::string> models;  // the rows' model_path values it deploys
  std::string framework, system;  // as the measured rows name them (trtllm, sglang; h100_sxm, ...)
  std::int64_t isl = 0, osl = 0, concurrency = 0;
  std::int64_t mtp = 0;  // draft tokens per step; 0 none
  RecipePool prefill, decode;
  std::string recipe;  // where it was read
  long line = 0;
};

// The recipes of configs/harnesses/<name>.csv. Throws InputError naming the file, line and
// column of a malformed cell.
std::vector<HarnessRecipe> load_harness_recipes(const std::string& path);
// InferenceMAX's disaggregated recipes (configs/harnesses/inferencemax_disagg.csv), read once.
const std::vector<HarnessRecipe>& inferencemax_disagg_recipes();

// What the recipes at one benchmark point agree on: each field is set when every recipe left
// has the same value. `recipes` names them all. Where recipes with and without speculative
// decoding both fit and differ in more than that, only those without are kept (roofsim runs
// these deployments without speculation), and `without_speculation` says so.
struct RecipeDeployment {
  std::optional<std::int64_t> prefill_workers, decode_workers, mtp;
  std::optional<RecipePool> prefill, decode;  // layout, GPUs and limits together
  std::vector<std::string> recipes;
  bool without_speculation = false;
};

// The recipes for `framework` on `system` at isl/osl/concurrency, narrowed by what the row says:
// its worker counts when given, and whether its decode experts are spread (expert parallel) when
// that leaves some. nullopt: no recipe for that point.
std::optional<RecipeDeployment> recipe_deployment(const std::vector<HarnessRecipe>& recipes, const std::string& model,
                                                  const std::string& framework, const std::string& system, std::int64_t isl, std::int64_t osl,
                                                  std::int64_t concurrency, std::optional<std::int64_t> prefill_workers,
                                                  std::optional<std::int64_t> decode_workers, std::optional<bool> decode_expert_parallel);

// A harness's engine settings for one framework (and model family): the per-iteration token
// budget, a fixed one or round_up_64(concurrency + prompt + spare_tokens), at least
// max_num_tokens; and the KV cache's dtype.
struct HarnessBudget {
  std::string framework, model_contains;  // model_contains "": every model
  std::int64_t max_num_tokens = 0, spare_tokens = 0;
  bool fp8_kv_cache = false;  // kv_cache_dtype fp8; auto: the model's own dtype
  // overlap_loop on: the script turns the engine's overlapped loop on (vLLM's async-scheduling:
  // true), so each batch is formed an iteration ahead and finished requests are learnt of a step
  // late (SchedulerConfig::schedule_ahead, late_release); default:
  // the stack's release decides.
  bool overlap_loop = false;
  std::string launch_script;  // where it was read
  long line = 0;
};

std::vector<HarnessBudget> load_harness_budgets(const std::string& path);
// InferenceMAX's single-node budgets (configs/harnesses/inferencemax_budgets.csv), read once.
const std::vector<HarnessBudget>& inferencemax_budgets();
// The first budget for `framework` whose model_contains is blank or in `model_path`; nullptr: none.
const HarnessBudget* harness_budget(const std::vector<HarnessBudget>& budgets, const std::string& framework,
                                    const std::string& model_path);
// Its tokens per iteration at `concurrency` clients and `prompt` tokens.
std::int64_t budget_tokens(const HarnessBudget& b, std::int64_t concurrency, std::int64_t prompt);

// TensorRT-LLM's scheduling options as a harness's launch script sets them for one framework,
// model family and benchmark point: batch waiting (SchedulerConfig::batch_wait_iters,
// batch_wait_tokens_ratio) and attention-DP balancing (adp_balance_timeout_iters,
// adp_batching_wait_iters); 0: not set.
struct HarnessScheduling {
  std::string framework, model_contains;
  std::int64_t isl = 0, osl = 0;  // 0: any
  std::int64_t tp_below = 0;      // applies to deployments of fewer GPUs per instance; 0: any
  std::int64_t batch_wait_iters = 0;
  double batch_wait_tokens_ratio = 0;
  std::int64_t adp_balance_timeout_iters = 0, adp_batching_wait_iters = 0;
  std::string launch_script;  // where it was read
  long line = 0;
};

std::vector<HarnessScheduling> load_harness_scheduling(const std::string& path);
// InferenceMAX's (configs/harnesses/inferencemax_scheduling.csv), read once.
const std::vector<HarnessScheduling>& inferencemax_scheduling();
// The first line for `framework` whose model_contains is in `model_path`, at isl/osl, with tp
// below its tp_below; nullptr: none (TensorRT-LLM's defaults).
const HarnessScheduling* harness_scheduling(const std::vector<HarnessScheduling>& lines, const std::string& framework,
                                            const std::string& model_path, std::int64_t isl, std::int64_t osl, std::int64_t tp);

}  // namespace roofsim
