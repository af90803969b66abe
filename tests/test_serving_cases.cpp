// Serving cases (`cases serving`): the measured-runs gates, the benchmark harnesses' lengths,
// budgets and disaggregated recipes, hub names, backend versions and names.
#include <catch2/catch.hpp>
#include <filesystem>

#include <set>

#include "core/error.hpp"
#include "experiment/inference.hpp"
#include "serving/case_models.hpp"
#include "serving/harness_recipes.hpp"
#include "serving/report.hpp"
#include "serving/scheduler.hpp"
#include "serving/serving.hpp"
#include "serving/serving_cases.hpp"
#include "tests/serving_test_util.hpp"
#include "tests/test_util.hpp"
#include "workloads/transformer.hpp"

using namespace roofsim;
using namespace roofsim::test;


TEST_CASE("measured TensorRT-LLM serving runs: every 16th row, TPOT within 8%, requests/s within 11% and TTFT at concurrency 8-32 within 50% mean absolute error", "[validation][serving]") {
  // validation/serving: Llama-3.1-8B on H100, concurrency 8-128, TP 1-8. Session 33 removed the
  // server slot held back from new requests (fitted on this file, it did not transfer to any
  // other group: docs/serving.md, "Every row runs"): at concurrency 8-32 these runs measure
  // one completion interval more TTFT than roofsim gives (TTFT 7.5% -> 44.6% on this sample).
  // Session 34 dropped the one prompt per iteration chosen on this file (TensorRT-LLM has no
  // such limit; over all 909 rows TTFT 64.9 -> 61.0%, TPOT 28.1 -> 27.6%): the TP 4-8 runs at
  // concurrency 128 now prefill several prompts per eager iteration and serve more requests/s
  // than measured (this sample: requests/s 5.4 -> 9.8%, TPOT 5.6 -> 7.7%; the gate on
  // requests/s moved from 8 to 11% with it, docs/serving.md).
  const std::vector<ServingCase> all = load_serving_cases(std::string(ROOFSIM_CONFIG_DIR) + "/../validation/serving/h100_llama31_8b_trtllm.csv");
  REQUIRE(all.size() == 177);
  std::vector<ServingCase> sample;
  for (std::size_t i = 0; i < all.size(); i += 16) sample.push_back(all[i]);
  double tpot_ape = 0, ttft_ape = 0, requests_ape = 0;
  int low_concurrency = 0;
  for (const ServingCaseResult& r : run_serving_cases(sample, ServingCaseSettings{})) {
    INFO(r.c.id << ": TPOT " << r.tpot_s << " s against " << r.c.tpot_s << ", TTFT " << r.ttft_s << " s against " << r.c.ttft_s);
    REQUIRE(r.failed.empty());
    CHECK(r.tpot_s > 0);
    tpot_ape += std::abs(r.tpot_error());
    requests_ape += std::abs(r.requests_error());
    if (r.c.concurrency <= 32) {
      ttft_ape += std::abs(r.ttft_error());
      ++low_concurrency;
    }
  }
  REQUIRE(low_concurrency >= 5);
  const double tpot_mape = tpot_ape / static_cast<double>(sample.size());
  const double ttft_mape = ttft_ape / low_concurrency;
  const double requests_mape = requests_ape / static_cast<double>(sample.size());
  INFO("TPOT mean absolute error " << tpot_mape << ", requests/s " << requests_mape << ", TTFT at concurrency 8-32 " << ttft_mape);
  // Session 34: 7.7%, 9.8% and 42.8% on this sample; session 44 (batches formed an iteration
  // ahead, as TensorRT-LLM's overlap scheduler does): 7.1%, 9.7% and 26.6%.
  CHECK(tpot_mape <= 0.08);
  CHECK(requests_mape <= 0.11);
  CHECK(ttft_mape <= 0.30);
}

TEST_CASE("serving cases: every 24th row of multi_stack.csv within what session 42 reached", "[validation][serving]") {
  // A regression guard, not the issue's target (TTFT 20%, TPOT 10%; docs/serving.md, "Every
  // row runs"): TensorRT-LLM, vLLM and SGLang rows, each on its stack's [serving] table, with
  // the lengths, token budgets and (disaggregated) recipes of the benchmark that measured it.
  // Session 39 on these 31 rows: TTFT 44.7%, TPOT 20.7%, requests/s 22.1% (all 909 rows: 49.1%,
  // 19.1%, 21.0%). Session 38: 50.1 / 23.5 / 19.2%; the five disaggregated rows here now run
  // their recipes' worker counts, which took TTFT and TPOT closer on three and requests/s
  // further on four (docs/serving.md, "Session 39"). Session 42 (batch waiting and fp8 KV caches
  // where InferenceMAX's scripts set them, its attention-DP balancing, vLLM's fp8-cache decode;
  // all 909 rows 43.8 / 19.4 / 19.2%): 34.4 / 17.9 / 19.0% on these rows. Session 44 (overlapped
  // loops form each batch an iteration ahead; all 909 rows 37.8 / 19.5 / 19.2%): 28.9 / 18.0 /
  // 19.0%, the limits a point or more above.
  const std::vector<ServingCase> all = load_serving_cases(std::string(ROOFSIM_CONFIG_DIR) + "/../validation/serving/multi_stack.csv");
  REQUIRE(all.size() == 732);
  std::vector<ServingCase> sample;
  for (std::size_t i = 0; i < all.size(); i += 24) sample.push_back(all[i]);
  ServingCaseSettings settings;
  settings.max_requests = 2000;  // as the report runs them (docs/serving.md)
  double tpot_ape = 0, ttft_ape = 0, requests_ape = 0;
  std::set<std::string> backends;
  for (const ServingCaseResult& r : run_serving_cases(sample, settings)) {
    INFO(r.c.id << ": TPOT " << r.tpot_s << " s against " << r.c.tpot_s << ", TTFT " << r.ttft_s << " s against " << r.c.ttft_s);
    REQUIRE(r.failed.empty());
    tpot_ape += std::abs(r.tpot_error());
    ttft_ape += std::abs(r.ttft_error());
    requests_ape += std::abs(r.requests_error());
    backends.insert(r.c.backend);
  }
  CHECK(backends.size() == 3);
  const double n = static_cast<double>(sample.size());
  INFO("TTFT mean absolute error " << ttft_ape / n << ", TPOT " << tpot_ape / n << ", requests/s " << requests_ape / n);
  CHECK(ttft_ape / n <= 0.30);
  CHECK(tpot_ape / n <= 0.19);
  CHECK(requests_ape / n <= 0.20);
}

TEST_CASE("both shared serving files: every row is set up, nothing refused", "[systemc][serving]") {
  // Loading only (no simulation): models by hub id, checkpoint formats, layouts, blank cells.
  const std::string dir = std::string(ROOFSIM_CONFIG_DIR) + "/../validation/serving/";
  std::size_t rows = 0;
  for (const char* file : {"h100_llama31_8b_trtllm.csv", "multi_stack.csv"}) {
    const std::string path = dir + file;
    for (const ServingCase& c : load_serving_cases(path)) {
      INFO(file << ":" << c.line << " " << c.id);
      CHECK(c.not_simulated.empty());
      ++rows;
    }
  }
  CHECK(rows == 177 + 732);
}

TEST_CASE("serving cases: the benchmark a row's source names sets its lengths and, for InferenceMAX, its engines' token budgets", "[systemc][serving]") {
  using H = ServingCase::Harness;
  CHECK(serving_harness("source_file=2026-03-25.csv; model=DeepSeek-R1; silicon_concurrency=4; wip=False") == H::inferencemax);
  CHECK(serving_harness("db-dump/2026-04-27; config_id=81; silicon_concurrency=16; workflow_run_id=337") == H::inferencemax);
  CHECK(serving_harness("source_file=/Users/x/aic-auto-gap-analysis/data/h100_sxm/trtllm/1.0.0rc3/m.csv") == H::aiconfigurator);
  CHECK(serving_harness("") == H::unknown);
  CHECK(serving_harness("source_file=2026-03-25.csv.bak") == H::unknown);
  const std::string head =
      "id,silicon_data_source,backend,model_path,system,mode,isl,osl,gemm_quant_mode,batch_size,tp_size,silicon_ttft_ms,silicon_tpot_ms,"
      "silicon_concurrency\n";
  const std::string path = write_temp(head +
                                          "imax_vllm,source_file=2026-04-06.csv; model=Llama,vllm,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,8192,,8,1,50,5,8\n"
                                          "aic_vllm,source_file=/d/aic-auto-gap-analysis/x.csv,vllm,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,8192,,8,1,50,5,8\n"
                                          "imax_sglang,db-dump/2026-04-27; config_id=1,sglang,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,8192,1024,,8,1,50,5,8\n"
                                          "imax_trt,db-dump/2026-04-27; config_id=2,trtllm,deepseek-ai/DeepSeek-R1,h200_sxm,agg,8192,1024,fp8,64,8,50,5,64\n",
                                      "harness");
  const std::vector<ServingCase> cases = load_serving_cases(path);
  REQUIRE(cases.size() == 4);
  for (const ServingCase& c : cases) REQUIRE(c.not_simulated.empty());
  // InferenceMAX's client: uniform integers in [int(0.8 L), L], said on the row.
  const ServingSetup imax = serving_case_setup(cases[0], ServingCaseSettings{});
  CHECK(imax.workload.prompt.kind == LengthDistribution::Kind::uniform);
  CHECK((imax.workload.prompt.min == 819 && imax.workload.prompt.max == 1024));
  CHECK((imax.workload.output.min == 6553 && imax.workload.output.max == 8192));
  CHECK(cases[0].note().find("InferenceMAX") != std::string::npos);
  CHECK(imax.scheduler.max_tokens == 8192);  // --max-num-batched-tokens 8192
  CHECK(imax.machine.precision.kv == DType::fp8);  // kv-cache-dtype: fp8 (70b_fp8_h*_slurm.sh)
  // aiconfigurator's runs: fixed lengths and the generator's budget, batch + prompt + 1500.
  const ServingSetup aic = serving_case_setup(cases[1], ServingCaseSettings{});
  CHECK(aic.workload.prompt.kind == LengthDistribution::Kind::fixed);
  CHECK(aic.workload.output.mean == 8192);
  CHECK(aic.scheduler.max_tokens == 8 + 1024 + 1500);
  CHECK(aic.machine.precision.kv == DType::bf16);
  // SGLang as InferenceMAX launched it: 32768-token chunks, prefill batches alone.
  const ServingSetup sglang = serving_case_setup(cases[2], ServingCaseSettings{});
  CHECK(sglang.scheduler.max_tokens == 32768);
  CHECK(sglang.scheduler.priority == "prefill_first");
  CHECK(sglang.machine.precision.kv == DType::bf16);  // no --kv-cache-dtype
  // TensorRT-LLM DeepSeek-R1: batch + prompt + 64 rounded up to 64 (8320), at least 8192.
  CHECK(serving_case_setup(cases[3], ServingCaseSettings{}).scheduler.max_tokens == 8320);
  CHECK(serving_case_setup(cases[3], ServingCaseSettings{}).scheduler.batch_wait_iters == 0);
  // Overlapped loops (each batch formed an iteration ahead): vLLM's async scheduling, which
  // InferenceMAX's vLLM scripts turn on whatever the release; aiconfigurator's vLLM rows of
  // releases before 0.14, where it was off by default, run without it.
  CHECK(imax.schedule_ahead());
  CHECK(sglang.schedule_ahead());
  CHECK(serving_case_setup(cases[3], ServingCaseSettings{}).schedule_ahead());
  CHECK(aic.schedule_ahead());  // no version given: the newest vLLM's default
  ServingCase old_release = cases[1];
  old_release.backend_version = "0.12.0";
  CHECK_FALSE(serving_case_setup(old_release, ServingCaseSettings{}).schedule_ahead());
  ServingCase scripted = cases[0];
  scripted.backend_version = "0.11.2";
  CHECK(serving_case_setup(scripted, ServingCaseSettings{}).schedule_ahead());
}

TEST_CASE("serving cases: InferenceMAX's TensorRT-LLM Llama runs hold prompts back for batching where its script says so", "[systemc][serving]") {
  const std::string head =
      "id,silicon_data_source,backend,model_path,system,mode,isl,osl,gemm_quant_mode,batch_size,tp_size,silicon_ttft_ms,silicon_tpot_ms,"
      "silicon_concurrency\n";
  const std::vector<ServingCase> cases = load_serving_cases(write_temp(
      head + "tp4,source_file=2026-04-06.csv,trtllm,meta-llama/Llama-3.1-70B,h200_sxm,agg,1024,1024,fp8,16,4,200,9,16\n"
             "tp8,source_file=2026-04-06.csv,trtllm,meta-llama/Llama-3.1-70B,h200_sxm,agg,1024,1024,fp8,16,8,100,8,16\n"
             "long,source_file=2026-04-06.csv,trtllm,meta-llama/Llama-3.1-70B,h200_sxm,agg,1024,8192,fp8,16,4,100,9,16\n"
             "aic,source_file=/d/aic-auto-gap-analysis/x.csv,trtllm,meta-llama/Llama-3.1-70B,h200_sxm,agg,1024,1024,fp8,16,4,100,9,16\n",
      "batch_wait"));
  REQUIRE(cases.size() == 4);
  // 70b_fp8_h200_trt_slurm.sh: batch_wait_timeout_iters 20, batch_wait_max_tokens_ratio 0.9 at
  // 1k/1k below TP 8; said on the row.
  const SchedulerConfig tp4 = serving_case_setup(cases[0], ServingCaseSettings{}).scheduler;
  CHECK(tp4.batch_wait_iters == 20);
  CHECK(tp4.batch_wait_tokens_ratio == Approx(0.9));
  CHECK(tp4.max_tokens == 16384);
  CHECK(cases[0].note().find("holds prompts back for batching") != std::string::npos);
  for (std::size_t i = 1; i < cases.size(); ++i) {
    CHECK(serving_case_setup(cases[i], ServingCaseSettings{}).scheduler.batch_wait_iters == 0);
    CHECK(cases[i].note().find("batching") == std::string::npos);
  }
  // Held prompts wait for decode iterations: the same row's TTFT grows, its throughput barely moves.
  ServingCaseSettings quick;
  quick.max_requests = 48;
  ServingSetup held = serving_case_setup(cases[0], quick), free = held;
  free.scheduler.batch_wait_iters = 0;
  held.workload.output = free.workload.output = parse_length_distribution("uniform:48:64", "output");
  const ServingResult with_wait = run_serving(held), without = run_serving(free);
  CHECK(with_wait.summary.ttft_s.mean > without.summary.ttft_s.mean + 5 * without.summary.tpot_s.mean);
  // A malformed cell names its file, line and column.
  const std::string head2 =
      "framework,model_contains,isl,osl,tp_below,batch_wait_iters,batch_wait_tokens_ratio,adp_balance_timeout_iters,adp_batching_wait_iters,launch_script\n";
  CHECK(load_harness_scheduling(write_temp(head2 + "trtllm,Llama,1024,1024,8,20,0.9,0,0,s.sh\n", "sched")).size() == 1);
  CHECK_THROWS_WITH(load_harness_scheduling(write_temp(head2 + "trtllm,Llama,1024,1024,8,20,1.5,0,0,s.sh\n", "sched")),
                    Catch::Contains(":2: batch_wait_tokens_ratio"));
  CHECK_THROWS_WITH(load_harness_scheduling(write_temp(head2 + "trtllm,Llama,1024,1024,8,0,0.9,0,0,s.sh\n", "sched")),
                    Catch::Contains(":2: batch_wait_iters and batch_wait_tokens_ratio: set both or neither"));
  CHECK_THROWS_WITH(load_harness_scheduling(write_temp(head2 + "trtllm,DeepSeek,0,0,0,0,0,-60,0,s.sh\n", "sched")),
                    Catch::Contains(":2: adp_balance_timeout_iters"));
  CHECK_THROWS_WITH(load_harness_scheduling(write_temp(head2 + "trtllm,Llama,1024,1024,8,20,most,0,0,s.sh\n", "sched")),
                    Catch::Contains(":2: batch_wait_tokens_ratio: expected a number, got 'most'"));
}

TEST_CASE("harness recipes and budgets: the shipped tables load, and a malformed cell names its file, line and column", "[systemc][serving]") {
  const std::vector<HarnessRecipe>& shipped = inferencemax_disagg_recipes();
  CHECK(shipped.size() > 100);
  for (const HarnessRecipe& r : shipped) CHECK(r.recipe.find("recipes/") != std::string::npos);
  for (const HarnessRecipe& r : shipped) CHECK(std::find(r.models.begin(), r.models.end(), "deepseek-ai/DeepSeek-R1") != r.models.end());
  const std::string head =
      "models,framework,system,isl,osl,concurrency,mtp,prefill_workers,prefill_layout,prefill_gpus,prefill_max_batch,prefill_max_tokens,"
      "decode_workers,decode_layout,decode_gpus,decode_max_batch,decode_first_response,recipe\n";
  const std::string good = "a/M b/N,trtllm,h200_sxm,1024,1024,36,0,1,dep,8,8,8192,9,tep,8,256,100,r.yaml\n";
  const std::vector<HarnessRecipe> one = load_harness_recipes(write_temp(head + good, "recipe"));
  REQUIRE(one.size() == 1);
  CHECK(one.front().models == std::vector<std::string>{"a/M", "b/N"});
  CHECK(recipe_deployment(one, "a/M", "trtllm", "h200_sxm", 1024, 1024, 36, std::nullopt, std::nullopt, std::nullopt).has_value());
  CHECK_FALSE(recipe_deployment(one, "c/O", "trtllm", "h200_sxm", 1024, 1024, 36, std::nullopt, std::nullopt, std::nullopt).has_value());
  CHECK_THROWS_WITH(load_harness_recipes(write_temp(head + replace_once(good, "a/M b/N", ""), "recipe")), Catch::Contains(":2: models"));
  CHECK_THROWS_WITH(load_harness_recipes(write_temp(head + "# a comment\n" + good + replace_once(good, "tep", "ring"), "recipe")),
                    Catch::Contains(":4: decode_layout: expected tp, tep or dep, got 'ring'"));
  CHECK_THROWS_WITH(load_harness_recipes(write_temp(head + replace_once(good, ",36,", ",-36,"), "recipe")),
                    Catch::Contains(":2: concurrency"));
  // The launch scripts' token budgets: the first line for the framework whose model_contains
  // is in the model's name; a fixed budget, or round_up_64(concurrency + prompt + spare).
  const std::vector<HarnessBudget>& budgets = inferencemax_budgets();
  const HarnessBudget* dsr1 = harness_budget(budgets, "trtllm", "deepseek-ai/DeepSeek-R1");
  REQUIRE(dsr1 != nullptr);
  CHECK(budget_tokens(*dsr1, 64, 8192) == 8320);
  CHECK(budget_tokens(*dsr1, 4, 1024) == 8192);
  CHECK(dsr1->launch_script.find("dsr1_fp8_h200_trt.sh") != std::string::npos);
  CHECK(budget_tokens(*harness_budget(budgets, "vllm", "openai/gpt-oss-120b"), 512, 8192) == 8192);
  CHECK(harness_budget(budgets, "trtllm", "Qwen/Qwen3-32B") == nullptr);
  const std::string budget_head = "framework,model_contains,max_num_tokens,spare_tokens,kv_cache_dtype,overlap_loop,launch_script\n";
  CHECK_THROWS_WITH(load_harness_budgets(write_temp(budget_head + "trtllm,x,8192,-1,fp8,default,s.sh\n", "budget")),
                    Catch::Contains(":2: spare_tokens: expected 0 to"));
  CHECK_THROWS_WITH(load_harness_budgets(write_temp(budget_head + "trtllm,x,0,0,fp8,default,s.sh\n", "budget")), Catch::Contains(":2: max_num_tokens"));
  CHECK_THROWS_WITH(load_harness_budgets(write_temp(budget_head + "trtllm,x,8192,0,int8,default,s.sh\n", "budget")),
                    Catch::Contains(":2: kv_cache_dtype: expected fp8 or auto, got 'int8'"));
  CHECK_THROWS_WITH(load_harness_budgets(write_temp(budget_head + "vllm,x,8192,0,fp8,yes,s.sh\n", "budget")),
                    Catch::Contains(":2: overlap_loop: expected on or default, got 'yes'"));
  CHECK(harness_budget(budgets, "vllm", "openai/gpt-oss-120b")->overlap_loop);  // async-scheduling: true
  CHECK_FALSE(harness_budget(budgets, "sglang", "deepseek-ai/DeepSeek-R1")->overlap_loop);
  // The KV cache's dtype as the scripts set it: vLLM's Llama-70B scripts fp8, its gpt-oss ones the model's.
  CHECK(harness_budget(budgets, "vllm", "meta-llama/Llama-3.1-70B")->fp8_kv_cache);
  CHECK_FALSE(harness_budget(budgets, "vllm", "openai/gpt-oss-120b")->fp8_kv_cache);
}

TEST_CASE("serving cases: InferenceMAX's disaggregated rows deploy as its recipes at their concurrency, where they agree", "[systemc][serving]") {
  const std::string head =
      "id,silicon_data_source,backend,model_path,system,mode,isl,osl,gemm_quant_mode,moe_quant_mode,prefill_num_workers,prefill_tp_size,"
      "prefill_moe_ep_size,decode_batch_size,decode_num_workers,decode_tp_size,decode_moe_ep_size,silicon_ttft_ms,silicon_tpot_ms,"
      "silicon_concurrency\n";
  const std::string src = "source_file=2026-03-25.csv; model=DeepSeek-R1";
  const std::string path = write_temp(
      head + "h100_c6," + src + ",trtllm,deepseek-ai/DeepSeek-R1,h100_sxm,disagg,1024,1024,fp8,fp8,,16,16,,,16,16,6900,8,6\n" +
          "h100_c462," + src + ",trtllm,deepseek-ai/DeepSeek-R1,h100_sxm,disagg,1024,1024,fp8,fp8,,16,16,,,16,16,21000,40,462\n" +
          "h200_c48," + src + ",trtllm,deepseek-ai/DeepSeek-R1,h200_sxm,disagg,8192,1024,fp8,fp8,,8,8,,,8,8,1500,20,48\n" +
          "h200_c48_d3," + src + ",trtllm,deepseek-ai/DeepSeek-R1,h200_sxm,disagg,8192,1024,fp8,fp8,1,8,8,16,3,8,8,1500,20,48\n" +
          "no_recipe," + src + ",trtllm,deepseek-ai/DeepSeek-R1,h200_sxm,disagg,1024,1024,fp8,fp8,,8,8,,,8,8,1300,6,13\n" +
          "sglang_dep," + src + ",sglang,deepseek-ai/DeepSeek-R1,h200_sxm,disagg,1024,1024,fp8,fp8,,8,1,,,8,8,700,12,128\n" +
          "other_model," + src + ",trtllm,moonshotai/Kimi-K2.5,h100_sxm,disagg,1024,1024,,,,16,16,,,16,16,6900,8,6\n",
      "recipes");
  const std::vector<ServingCase> cases = load_serving_cases(path);
  auto by_id = [&](const std::string& id) -> const ServingCase& {
    for (const ServingCase& c : cases) {
      if (c.id == id) return c;
    }
    throw std::runtime_error("no case " + id);
  };
  for (const ServingCase& c : cases) REQUIRE(c.not_simulated.empty());
  // H100, concurrency 6: one prefill and three decode workers of TP16, one request each, with or
  // without MTP alike; 6 clients, 3 slots: the limit is kept, the other clients queue.
  // The recipes are DeepSeek-R1's: another model at the same point is deployed from its columns.
  const ServingCase& other = by_id("other_model");
  CHECK(other.note().find("InferenceMAX's recipe") == std::string::npos);
  CHECK(other.deployment_assumed);  // worker counts blank: one prefill and one decode worker
  const ServingCase& c6 = by_id("h100_c6");
  CHECK((c6.prefill_instances == 1 && c6.decode_instances == 3));
  CHECK((c6.tp == 16 && c6.ep == 1 && c6.moe_tp == 1));  // tep16: experts spread over the TP group
  CHECK((c6.prefill_tp == 1 && c6.prefill_ep == 16));      // prefill dep16: attention data parallel
  CHECK((c6.prefill_max_batch == 2 && c6.prefill_max_tokens == 2048));
  CHECK(c6.batch == 1);
  CHECK_FALSE(c6.deployment_assumed);
  CHECK(c6.note().find("with or without MTP") != std::string::npos);  // MTP and STP recipes both fit
  CHECK(c6.note().find("ctx1_gen3_tep16_batch1_eplb0_mtp3.yaml and 1 more") != std::string::npos);
  const ServingSetup s6 = serving_case_setup(c6, ServingCaseSettings{});
  CHECK(s6.scheduler.max_batch == 1);
  CHECK(s6.disaggregation.decode_instances == 3);
  CHECK(s6.disaggregation.routing == "round_robin");
  CHECK(s6.disaggregation.first_token == DisaggregationConfig::FirstToken::decode);
  CHECK(s6.disaggregation.decode_first_response == 100);  // the recipes' stream_interval
  CHECK(s6.disaggregation.prefill_max_batch == 2);
  // Concurrency 462: MTP's tep16 of 128 and STP's dep16 of 8 differ; roofsim runs no MTP, so STP's.
  const ServingCase& c462 = by_id("h100_c462");
  CHECK((c462.ep == 16 && c462.tp == 1 && c462.batch == 8));
  CHECK(c462.note().find("those without MTP") != std::string::npos);
  // H200 8k1k at 48: c8 x 6 decode workers or c16 x 3; the worker counts stay unknown ...
  const ServingCase& c48 = by_id("h200_c48");
  CHECK(c48.deployment_assumed);
  CHECK(c48.note().find("the recipes differ in decode workers") != std::string::npos);
  // ... unless the row gives them: 3 decode workers of at most 32 (the row's 16 is concurrency / 3).
  const ServingCase& c48_d3 = by_id("h200_c48_d3");
  CHECK((c48_d3.decode_instances == 3 && c48_d3.batch == 32));
  CHECK_FALSE(c48_d3.deployment_assumed);
  // A concurrency no recipe lists keeps the generic assumptions.
  const ServingCase& none = by_id("no_recipe");
  CHECK(none.deployment_assumed);
  CHECK(none.note().find("recipe") == std::string::npos);
  // SGLang: the row's expert-parallel decode picks the dep recipe; --max-running-requests 512 is
  // the worker's, 64 for each of its 8 attention-DP ranks.
  const ServingCase& sg = by_id("sglang_dep");
  CHECK((sg.decode_instances == 6 && sg.ep == 8 && sg.batch == 64));
  CHECK(serving_case_setup(sg, ServingCaseSettings{}).disaggregation.decode_first_response == 1);
}

TEST_CASE("serving cases: a model variant not shipped runs as a shipped variant of the same architecture, said on the row", "[systemc][serving]") {
  const std::string path = write_temp(
      "id,model_path,system,mode,isl,osl,batch_size,tp_size,silicon_ttft_ms,silicon_tpot_ms,silicon_concurrency\n"
      "thinking,Qwen/Qwen3-Next-80B-A3B-Thinking,h200_sxm,agg,1024,128,8,2,100,10,8\n"
      "base_fp8,meta-llama/Llama-4-Scout-17B-16E-FP8,h200_sxm,agg,1024,128,8,4,100,10,8\n",
      "cases");
  const std::vector<ServingCase> cases = load_serving_cases(path);
  REQUIRE(cases.size() == 2);
  const std::vector<std::string> shipped = {"Qwen/Qwen3-Next-80B-A3B-Instruct", "meta-llama/Llama-4-Scout-17B-16E-Instruct"};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const ServingCase& c = cases[i];
    INFO(c.id);
    CHECK(c.not_simulated.empty());
    bool said = false;
    for (const std::string& a : c.assumptions) said = said || a.find("read as " + shipped[i] + "'s layers") != std::string::npos;
    CHECK(said);
  }
  // The FP8 checkpoint's name gives its weights where the config read declares none.
  CHECK(cases[1].precision.weights == DType::fp8);
  CHECK(cases[0].precision.weights == DType::bf16);
}

TEST_CASE("serving cases: a backend version runs as the stack and release its behaviour is documented for, said where it is not its own", "[systemc][serving]") {
  auto run_as = [](const std::string& backend, const std::string& version) {
    std::vector<std::string> said;
    const std::string stack = case_rows::backend_stack(backend, version, said);
    return std::make_pair(stack, said.size());
  };
  CHECK(run_as("trtllm", "1.1.0rc2.post2") == std::make_pair(std::string("trtllm-1.x"), std::size_t{0}));
  CHECK(run_as("trtllm", "0.8.1.post1") == std::make_pair(std::string("trtllm-1.x"), std::size_t{1}));  // Dynamo's runtime version
  CHECK(run_as("vllm", "0.7.3") == std::make_pair(std::string("vllm"), std::size_t{1}));                 // the V0 engine
  CHECK(run_as("vllm", "0.8.0") == std::make_pair(std::string("vllm"), std::size_t{0}));
  CHECK(run_as("sglang", "0.5.9") == std::make_pair(std::string("sglang"), std::size_t{0}));
  CHECK(run_as("sglang", "0.6.0") == std::make_pair(std::string("sglang"), std::size_t{1}));
  CHECK(run_as("vllm", "") == std::make_pair(std::string("vllm"), std::size_t{0}));
  // The release a row's version selects: its own, none for labels the stack does not document.
  CHECK(case_rows::stack_release("trtllm", "1.0.0rc3") == "1.0.0rc3");
  CHECK(case_rows::stack_release("trtllm", "0.8.1.post1").empty());
  CHECK(case_rows::stack_release("vllm", "0.12.0") == "0.12.0");
  CHECK(case_rows::stack_release("sglang", "gpt-oss-dev").empty());
}

TEST_CASE("serving cases: the sources' other names for a backend or mode run as roofsim's, said on the row", "[systemc][serving]") {
  const std::string path = write_temp(
      "id,backend,model_path,system,mode,isl,osl,batch_size,tp_size,silicon_ttft_ms,silicon_tpot_ms,silicon_concurrency\n"
      "trt,trt,Qwen/Qwen3-32B,h200_sxm,agg,1024,128,8,2,100,10,8\n"
      "dynamo,Dynamo-SGLang,Qwen/Qwen3-32B,h200_sxm,Aggregated,1024,128,8,2,100,10,8\n"
      "odd,tgi,Qwen/Qwen3-32B,h200_sxm,pd,1024,128,8,2,100,10,8\n",
      "cases");
  const std::vector<ServingCase> cases = load_serving_cases(path);
  REQUIRE(cases.size() == 3);
  CHECK(cases[0].backend == "trtllm");
  CHECK(cases[0].note().find("backend 'trt' read as trtllm") != std::string::npos);
  CHECK(cases[1].backend == "sglang");
  CHECK(cases[1].mode == "agg");
  CHECK(cases[1].note().find("mode 'Aggregated' read as agg") != std::string::npos);
  CHECK(cases[0].not_simulated.empty());
  CHECK(cases[1].not_simulated.empty());
  CHECK(cases[2].not_simulated.find("backend 'tgi'") != std::string::npos);
}
