// Serving cases of other systems, models, quantizations and layouts, and a backend release read
// from its image tag.
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


TEST_CASE("serving cases of other systems, models, quantizations and layouts: mapped where roofsim models them, listed with the reason where not", "[systemc][serving]") {
  const std::string head =
      "id,model_path,system,mode,isl,osl,gemm_quant_mode,moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,"
      "moe_tp_size,moe_ep_size,prefill_num_workers,prefill_tp_size,prefill_batch_size,decode_num_workers,decode_tp_size,"
      "decode_batch_size,silicon_ttft_ms,silicon_tpot_ms,silicon_concurrency\n";
  const std::string path = write_temp(head +
                                          "moe_h200,Qwen/Qwen3-30B-A3B,h200_sxm,agg,1024,128,fp8,,16.0,2,1,,,,,,,,,,100,10,16\n"
                                          "moe_ep,Qwen/Qwen3-30B-A3B,h100_sxm,agg,1024,128,,,16,1,1,4,1,4,,,,,,,100,10,16\n"
                                          "block,meta-llama/Llama-3.1-70B-Instruct,b200_sxm,agg,1024,128,fp8_block,,8,4,1,,,,,,,,,,100,10,8\n"
                                          "disagg,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,disagg,1024,128,,,,,,,,,2,1,4,1,2,32,100,10,16\n"
                                          "model,acme/Foo-7B,h100_sxm,agg,1024,128,,,8,1,1,,,,,,,,,,100,10,8\n"
                                          "system,meta-llama/Llama-3.1-8B-Instruct,l40s,agg,1024,128,,,8,1,1,,,,,,,,,,100,10,8\n"
                                          "fp4,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,nvfp4,,8,1,1,,,,,,,,,,100,10,8\n"
                                          "mixed,Qwen/Qwen3-30B-A3B,h100_sxm,agg,1024,128,fp8,float16,8,1,1,,,,,,,,,,100,10,8\n"
                                          "tp_ep,Qwen/Qwen3-30B-A3B,h100_sxm,agg,1024,128,,,8,4,1,1,1,4,,,,,,,100,10,8\n"
                                          "layout,Qwen/Qwen3-30B-A3B,h100_sxm,agg,1024,128,,,8,2,1,2,1,8,,,,,,,100,10,8\n"
                                          "huge,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1000000000,128,,,8,1,1,,,,,,,,,,100,10,8\n"
                                          "tp_blank,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,,,8,,1,,,,,,,,,,100,10,8\n"
                                          "w4afp8,Qwen/Qwen3-30B-A3B,h200_sxm,agg,1024,128,fp8,w4afp8,8,1,1,,,,,,,,,,100,10,8\n"
                                          "mxfp8,openai/gpt-oss-120b,b200_sxm,agg,1024,128,,w4a8_mxfp4_mxfp8,8,1,1,,,,,,,,,,100,10,8\n",
                                      "cases");
  const std::vector<ServingCase> cases = load_serving_cases(path);
  REQUIRE(cases.size() == 14);
  auto by_id = [&](const std::string& id) -> const ServingCase& {
    for (const ServingCase& c : cases) {
      if (c.id == id) return c;
    }
    FAIL("no case " << id);
    return cases.front();
  };
  const ServingCase& h200 = by_id("moe_h200");
  CHECK(h200.not_simulated.empty());
  CHECK(h200.hw == "h200_sxm");
  CHECK(h200.model == "Qwen/Qwen3-30B-A3B");
  CHECK(h200.precision.weights == DType::fp8);
  CHECK(h200.precision.activations == DType::fp8);
  CHECK(h200.batch == 16);  // written as a float
  const ServingCase& ep = by_id("moe_ep");
  CHECK(ep.not_simulated.empty());
  CHECK(ep.tp == 1);
  CHECK(ep.ep == 4);
  // batch_size is each attention-DP rank's: TensorRT-LLM's ranks schedule apart (the pool
  // counts the limit once per rank), SGLang's share the instance's limit.
  const ServingSetup ep_trt = serving_case_setup(ep, ServingCaseSettings{});
  CHECK(ep_trt.scheduler.limits_per_rank);
  CHECK(ep_trt.scheduler.max_batch == 16);
  ServingCaseSettings on_sglang;
  on_sglang.stack = "sglang";
  const ServingSetup ep_sglang = serving_case_setup(ep, on_sglang);
  CHECK_FALSE(ep_sglang.scheduler.limits_per_rank);
  CHECK(ep_sglang.scheduler.max_batch == 16 * 4);
  const ServingCase& block = by_id("block");
  CHECK(block.not_simulated.empty());
  CHECK(block.model == "meta-llama/Llama-3.1-70B-Instruct");  // the instruction-tuned name, its base's layers
  CHECK(block.note().find("read as meta-llama/Llama-3.1-70B's layers") != std::string::npos);
  CHECK(block.hw == "b200");
  CHECK(block.precision.scale_block_k == 128);
  CHECK(block.precision.weights == DType::fp8);
  CHECK(serving_case_setup(block, ServingCaseSettings{}).machine.precision.scale_block_k == 128);
  CHECK(serving_case_setup(block, ServingCaseSettings{}).machine.precision.activations == DType::bf16);
  const ServingCase& disagg = by_id("disagg");
  CHECK(disagg.not_simulated.empty());
  CHECK(disagg.disaggregated);
  CHECK(disagg.prefill_instances == 2);
  CHECK(disagg.prefill_batch == 4);
  CHECK(disagg.decode_tp == 2);
  CHECK(disagg.batch == 32);
  const ServingSetup setup = serving_case_setup(disagg, ServingCaseSettings{});
  CHECK(setup.disaggregation.enabled);
  CHECK(setup.disaggregation.prefill_instances == 2);
  CHECK_FALSE(setup.frontend.enabled());
  CHECK(by_id("model").not_simulated.find("not in roofsim's catalog") != std::string::npos);
  CHECK(by_id("system").not_simulated.find("'l40s' has no hardware preset") != std::string::npos);
  // The source's 4-bit-weight, 8-bit-activation MoE labels: int4 or mxfp4 weights, fp8 MMAs.
  for (const char* id : {"w4afp8", "mxfp8"}) {
    const ServingCase& c = by_id(id);
    INFO(id);
    CHECK(c.not_simulated.empty());
    REQUIRE(c.precision.experts);
    CHECK(c.precision.experts->activations == DType::fp8);
  }
  CHECK(by_id("w4afp8").precision.experts->weights == DType::int4);
  CHECK(by_id("mxfp8").precision.experts->weights == DType::mxfp4);
  // A blank tensor-parallel size runs on one GPU, said on the row, not silently.
  const ServingCase& tp_blank = by_id("tp_blank");
  CHECK(tp_blank.not_simulated.empty());
  CHECK(tp_blank.tp == 1);
  CHECK(tp_blank.deployment_assumed);
  CHECK(tp_blank.note().find("tp_size blank: tensor parallel 1") != std::string::npos);
  // A whole number too large is said to be too large, not "expected a whole number".
  CHECK(by_id("huge").not_simulated.find("isl: 1000000000 is more than roofsim takes in a cell") != std::string::npos);
  // 4-bit weights on Hopper run weight-only, said on the row.
  const ServingCase& fp4 = by_id("fp4");
  CHECK(fp4.not_simulated.empty());
  CHECK(fp4.precision.weights == DType::nvfp4);
  CHECK(fp4.precision.activations == DType::bf16);
  CHECK(fp4.note().find("weight-only") != std::string::npos);
  // Dense layers and experts in different formats.
  const ServingCase& mixed = by_id("mixed");
  CHECK(mixed.not_simulated.empty());
  CHECK(mixed.precision.weights == DType::fp8);
  REQUIRE(mixed.precision.experts);
  CHECK(mixed.precision.experts->weights == DType::bf16);
  const ServingCase& tp_ep = by_id("tp_ep");  // attention TP 4, experts EP 4 inside the TP group
  CHECK(tp_ep.not_simulated.empty());
  CHECK(tp_ep.tp == 4);
  CHECK(tp_ep.moe_tp == 1);
  CHECK(serving_case_setup(tp_ep, ServingCaseSettings{}).machine.moe_tp == 1);
  // A layout roofsim has no form for runs as the nearest one, said on the row.
  const ServingCase& layout = by_id("layout");
  CHECK(layout.not_simulated.empty());
  // MoE TP 1 x EP 8 over attention TP 2 x DP 2: the experts' 8 GPUs, attention DP over 4.
  CHECK(layout.ep == 4);
  CHECK(layout.note().find("attention data parallel over 4") != std::string::npos);
  CHECK_THROWS_WITH(serving_case_setup(by_id("model"), ServingCaseSettings{}), Catch::Contains("not simulated"));
  // The framework: TensorRT-LLM's stack by default; vLLM and SGLang their own, with chunked
  // prefill in their token budget; another is not simulated.
  CHECK(serving_case_stack(h200, ServingCaseSettings{}) == "trtllm-1.x");
  CHECK_FALSE(serving_case_setup(h200, ServingCaseSettings{}).scheduler.chunked_prefill);
  // TensorRT-LLM rows free slots one step late (its overlap scheduler, chosen from the rows,
  // docs/serving.md) and, like vLLM and SGLang, start as many prompts as fit.
  CHECK(serving_case_setup(h200, ServingCaseSettings{}).scheduler.max_prompts == 0);
  CHECK(serving_case_setup(h200, ServingCaseSettings{}).scheduler.late_release);
  const std::vector<ServingCase> frameworks = load_serving_cases(
      write_temp("id,model_path,system,mode,isl,osl,batch_size,tp_size,pp_size,backend,backend_version,silicon_ttft_ms,silicon_tpot_ms,silicon_concurrency\n"
                 "v,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,1,vllm,0.12.0,100,10,8\n"
                 "va,meta-llama/Llama-3.1-8B-Instruct,a100_sxm,agg,1024,128,8,1,1,vllm,0.6.3,100,10,8\n"
                 "s,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,1,sglang,0.6.0,100,10,8\n"
                 "t,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,1,tgi,,100,10,8\n"
                 "s51,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,8000,128,8,1,1,sglang,0.5.1.post1,100,10,8\n"
                 "s53,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,1,sglang,0.5.3,100,10,8\n",
                 "cases"));
  REQUIRE(frameworks.size() == 6);
  // A version without a behaviour of its own runs as the nearest documented one, said on the row.
  CHECK(frameworks[0].note().find("version") == std::string::npos);
  CHECK(frameworks[1].note().find("V0 engine") != std::string::npos);
  CHECK(frameworks[2].note().find("piecewise CUDA graphs") != std::string::npos);
  const ServingSetup vllm = serving_case_setup(frameworks[0], ServingCaseSettings{});
  CHECK(serving_case_stack(frameworks[0], ServingCaseSettings{}) == "vllm");
  CHECK(vllm.machine.allreduce == "vllm_custom");
  CHECK(vllm.scheduler.chunked_prefill);
  // The token budgets aiconfigurator's generator deploys: vLLM's --max-num-batched-tokens
  // batch + prompt + 1500 (as TensorRT-LLM's max_num_tokens), on an A100 too; SGLang's
  // --max-prefill-tokens prompt + 1500 under its 8192-token chunks, with --enable-mixed-chunk
  // (decodes first in one iteration) from the 0.5.3 templates on, not on 0.5.1.post1's.
  CHECK(vllm.scheduler.max_tokens == 8 + 1024 + 1500);
  CHECK(vllm.scheduler.max_prompts == 0);
  CHECK_FALSE(vllm.scheduler.late_release);
  CHECK_FALSE(vllm.schedule_ahead());  // vLLM 0.12: async scheduling off by default (on from 0.14)
  CHECK(serving_case_setup(frameworks[1], ServingCaseSettings{}).scheduler.max_tokens == 8 + 1024 + 1500);
  CHECK(serving_case_stack(frameworks[2], ServingCaseSettings{}) == "sglang");
  const ServingSetup sglang = serving_case_setup(frameworks[2], ServingCaseSettings{});
  CHECK(sglang.scheduler.max_tokens == 1024 + 1500);
  CHECK(sglang.scheduler.priority == "decode_first");
  const ServingSetup sglang_051 = serving_case_setup(frameworks[4], ServingCaseSettings{});
  CHECK(sglang_051.scheduler.max_tokens == 8192);
  CHECK(sglang_051.scheduler.priority == "prefill_first");
  CHECK(serving_case_setup(frameworks[5], ServingCaseSettings{}).scheduler.priority == "decode_first");
  CHECK(frameworks[3].not_simulated.find("backend 'tgi'") != std::string::npos);
  ServingCaseSettings one_stack;
  one_stack.stack = "trtllm-1.x";  // --stack: every row on it
  CHECK(serving_case_stack(frameworks[0], one_stack) == "trtllm-1.x");
  // A malformed row is listed with its line and column; the rest of the file still loads.
  const std::vector<ServingCase> bad = load_serving_cases(write_temp(head +
      "x,meta-llama/Llama-3.1-8B,h100_sxm,agg,1024,128,,,8,two,1,,,,,,,,,,100,10,8\n"
      "blank,meta-llama/Llama-3.1-8B,h100_sxm,agg,1024,128,,,8,1,1,0,0,0,,,,,,,100,10,\n", "cases"));
  REQUIRE(bad.size() == 2);
  CHECK(bad[0].line == 2);
  CHECK(bad[0].not_simulated.find("tp_size") != std::string::npos);
  // A blank concurrency is the deployment's batch limit, said on the row; 0 cells are "not set".
  CHECK(bad[1].not_simulated.empty());
  CHECK(bad[1].concurrency == 8);
  CHECK(bad[1].note().find("concurrency blank") != std::string::npos);
  // A file without a required column is refused whole.
  CHECK_THROWS_WITH(load_serving_cases(write_temp("id,model_path,system,mode,isl,osl,silicon_ttft_ms\nx,a,b,agg,1,1,1\n", "cases")),
                    Catch::Contains("silicon_tpot_ms: required column missing"));
}

TEST_CASE("serving cases: a blank backend_version is read from the backend's own image tag, and runs that release", "[systemc][serving]") {
  const std::vector<ServingCase> cases = load_serving_cases(
      write_temp("id,model_path,system,mode,isl,osl,batch_size,tp_size,backend,backend_version,image,silicon_ttft_ms,silicon_tpot_ms,silicon_concurrency\n"
                 "old,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,vllm,,vllm/vllm-openai:v0.10.2,100,10,8\n"
                 "new,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,vllm,,vllm/vllm-openai:v0.18.0,100,10,8\n"
                 "dyn,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,trtllm,,nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1,100,10,8\n"
                 "own,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,trtllm,,nvcr.io/nvidia/tensorrt-llm/release:1.1.0rc2.post2,100,10,8\n",
                 "cases"));
  REQUIRE(cases.size() == 4);
  CHECK(cases[0].backend_version == "0.10.2");
  CHECK(cases[0].note().find("image's tag") != std::string::npos);
  CHECK_FALSE(serving_case_setup(cases[0], ServingCaseSettings{}).schedule_ahead());  // before vLLM 0.14
  CHECK(cases[1].backend_version == "0.18.0");
  CHECK(serving_case_setup(cases[1], ServingCaseSettings{}).schedule_ahead());
  CHECK(cases[2].backend_version.empty());  // Dynamo's runtime is tagged with Dynamo's version
  CHECK(cases[3].backend_version == "1.1.0rc2.post2");
}
