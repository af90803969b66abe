// Software stacks as configuration (experiment/stack.hpp, configs/stacks).
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/presets.hpp"
#include "experiment/experiment_settings.hpp"
#include "experiment/hardware_edit.hpp"
#include "experiment/inference.hpp"
#include "experiment/kernel_tables.hpp"
#include "experiment/single_op.hpp"
#include "experiment/stack.hpp"
#include "serving/stack_serving.hpp"
#include "tests/test_util.hpp"
#include "workloads/transformer.hpp"

using namespace roofsim;
using namespace roofsim::test;

TEST_CASE("a software stack sets its attention kernel, launch mode and kernel parameters unless flags do", "[systemc][stack]") {
  REQUIRE(list_presets("stacks").size() >= 3);
  for (const std::string& name : list_presets("stacks")) {
    INFO(name);
    const SoftwareStack s = load_stack(name);
    CHECK(s.name == name);
    CHECK_FALSE(s.description.empty());
  }
  Experiment e;
  apply_stack(load_stack("ideal"), e, false, false);
  REQUIRE(e.hardware);
  CHECK(e.hardware->matrix.attention_cta_cycles == 0);
  CHECK(load_hardware("h100_sxm5").matrix.attention_cta_cycles > 0);  // the hardware file keeps its own
  Experiment old;
  apply_stack(load_stack("trtllm-0.9"), old, false, false);
  CHECK(old.attention == AttentionImpl::vector);
  CHECK(old.launch == Launch::per_op);
  REQUIRE(old.hardware);  // TensorRT-LLM 0.9's fp8 GEMM efficiency, below the hardware file's (1.3's)
  CHECK(old.hardware->matrix.dtype_efficiency.at(DType::fp8) == Approx(0.74));
  CHECK(load_hardware("h100_sxm5").matrix.dtype_efficiency.at(DType::fp8) > 0.74);
  Experiment a100;
  a100.hw = "a100_sxm4_80gb";  // no fp8: the stack's fp8 parameter has nothing to act on
  apply_stack(load_stack("trtllm-0.9"), a100, false, false);
  REQUIRE(a100.hardware);
  CHECK(a100.hardware->matrix.dtype_efficiency.count(DType::fp8) == 0);
  Experiment kept;
  kept.attention = AttentionImpl::unfused;
  apply_stack(load_stack("trtllm-0.9"), kept, true, true);  // --attention and --launch given
  CHECK(kept.attention == AttentionImpl::unfused);
  CHECK(kept.launch == Launch::graph);
  // TensorRT-LLM 1.x runs its CUTLASS MoE call; stacks that do not say keep the generic path.
  Experiment trtllm;
  apply_stack(load_stack("trtllm-1.x"), trtllm, false, false);
  CHECK(trtllm.moe_kernel == MoeKernel::trtllm_cutlass);
  CHECK(kept.moe_kernel == MoeKernel::grouped);
  // A chip already built (a sweep point's or the Python module's edited hardware) takes the
  // stack's kernel parameters too, in the file's units and ranges.
  Experiment edited;
  edited.hardware = load_hardware("a100_sxm4_80gb");
  edited.hardware->hbm.bandwidth *= 2;
  apply_stack(load_stack("vllm"), edited, false, false);
  CHECK(edited.hardware->vector.token_cta_cycles == 2500);
  CHECK(edited.hardware->hbm.bandwidth == 2 * load_hardware("a100_sxm4_80gb").hbm.bandwidth);  // the edit stays
  Experiment edited_old;
  edited_old.hardware = load_hardware("a100_sxm4_80gb");
  apply_stack(load_stack("trtllm-0.9"), edited_old, false, false);  // no fp8 on the A100: left out
  CHECK(edited_old.hardware->matrix.dtype_efficiency.count(DType::fp8) == 0);
  const std::string bad = write_temp("[stack]\nname = \"b\"\ndescription = \"d\"\n[hardware]\n\"vector.token_cta_cycles\" = -3\n"
                                     "[provenance]\n\"vector.token_cta_cycles\" = \"t\"\n", "stack");
  Experiment refused;
  refused.hardware = load_hardware("h100_sxm5");
  CHECK_THROWS_WITH(apply_stack(load_stack(bad), refused, false, false), Catch::Contains("vector.token_cta_cycles"));
}

TEST_CASE("TensorRT-LLM's stack runs weight-only linears of at most four tokens as its CUDA-core GEMV, more tokens as a GEMM", "[systemc][stack]") {
  Experiment trtllm, vllm;
  apply_stack(load_stack("trtllm-1.x"), trtllm, false, false);
  apply_stack(load_stack("vllm"), vllm, false, false);
  CHECK(trtllm.precision.weight_only_gemv);
  CHECK_FALSE(vllm.precision.weight_only_gemv);
  const ModelConfig m = load_model("llama-3-8b");
  auto down = [&](Precision p, std::int64_t batch) {
    p.weights = DType::int4;
    const OpGraph g = build_forward(m, decode_pass(batch, 512, 0), p, AttentionImpl::fused);
    for (std::size_t id = 0; id < g.size(); ++id) {
      if (g.op(id).op_class == "mlp_down") return g.op(id);
    }
    FAIL("no down projection");
    return OpNode{};
  };
  const OpNode gemv = down(trtllm.precision, 4);
  CHECK_FALSE(gemv.is_gemm);
  CHECK(gemv.vector.gemv_steps > 0);
  CHECK(gemv.vector.dtype == DType::int4);
  CHECK(gemv.vector.elements_in == m.hidden * m.intermediate);  // its weights
  CHECK(gemv.weight_bytes() == Approx(0.5 * static_cast<double>(m.hidden * m.intermediate)));
  CHECK(down(trtllm.precision, 5).is_gemm);
  CHECK(down(vllm.precision, 1).is_gemm);
}

TEST_CASE("a stack picks the kernel of its per-tensor fp8 linears: vLLM's CUTLASS scaled_mm keeps a bucket's tile and never splits K", "[systemc][stack]") {
  Experiment vllm, trtllm;
  apply_stack(load_stack("vllm"), vllm, false, false);
  apply_stack(load_stack("trtllm-1.x"), trtllm, false, false);
  CHECK(vllm.precision.fp8_linear == Fp8LinearKernel::cutlass_scaled_mm);
  CHECK(trtllm.precision.fp8_linear == Fp8LinearKernel::library);
  const ModelConfig m = load_model("llama-3-8b");
  auto qkv = [&](Precision p) {
    p.weights = p.activations = DType::fp8;
    const OpGraph g = build_forward(m, decode_pass(32, 512, 0), p, AttentionImpl::fused);
    for (std::size_t id = 0; id < g.size(); ++id) {
      if (g.op(id).op_class == "qkv") return g.op(id).gemm;
    }
    FAIL("no qkv GEMM");
    return GemmShape{};
  };
  const GemmShape cutlass = qkv(vllm.precision), library = qkv(trtllm.precision);
  CHECK(cutlass.kernel_no_split_k);
  CHECK(cutlass.kernel_tile_m == vllm_fp8_tile(32, cutlass.n).rows);
  CHECK(cutlass.kernel_tile_n == 64);  // 32 tokens: the weights down the MMA's 64 rows
  CHECK(cutlass.kernel_swap_ab);
  CHECK(cutlass.kernel_k_bytes == 256);
  CHECK_FALSE(library.kernel_no_split_k);
  CHECK(library.kernel_tile_m == 0);
  // A 16-bit model's linears are no fp8 linears: untouched.
  Precision bf16 = vllm.precision;
  const OpGraph g = build_forward(m, decode_pass(32, 512, 0), bf16, AttentionImpl::fused);
  for (std::size_t id = 0; id < g.size(); ++id) CHECK_FALSE(g.op(id).gemm.kernel_no_split_k);
  // The kernel table's vLLM fp8 rows plan the same GEMM.
  const GemmShape measured = fp8_static_linear_ops(32, cutlass.n, cutlass.k).back().gemm;
  CHECK(measured.kernel_no_split_k);
  CHECK(std::tuple{measured.kernel_tile_m, measured.kernel_tile_n, measured.kernel_swap_ab, measured.kernel_k_bytes} ==
        std::tuple{cutlass.kernel_tile_m, cutlass.kernel_tile_n, cutlass.kernel_swap_ab, cutlass.kernel_k_bytes});
  // Above 64 tokens its tiles run CUTLASS's ping-pong schedule, at the stack's share of the rate.
  GemmShape big{1, 4096, 8192, 8192, DType::fp8, DType::fp8, DType::bf16};
  apply_fp8_linear_kernel(big, Fp8LinearKernel::cutlass_scaled_mm);
  CHECK(big.kernel_pingpong);
  CHECK_FALSE(cutlass.kernel_pingpong);  // 32 tokens: the swapped configuration
  REQUIRE(vllm.hardware);
  CHECK(vllm.hardware->matrix.pingpong_mma_share == Approx(0.8));
  CHECK(load_hardware("h100_sxm5").matrix.pingpong_mma_share == 1);
  // An unknown kernel is refused, naming the file, line and key and the ones there are.
  const std::string head = "[stack]\nname = \"x\"\ndescription = \"d\"\n";
  CHECK_THROWS_WITH(load_stack(write_temp(head + "fp8_linear = \"cublas\"\n", "stack")),
                    Catch::Contains(":4") && Catch::Contains("fp8_linear") && Catch::Contains("cutlass_scaled_mm"));
}

TEST_CASE("a stack file's errors name the file and key: unknown keys, kernels, parameters without a source", "[systemc][stack]") {
  const std::string head = "[stack]\nname = \"x\"\ndescription = \"d\"\n";
  CHECK_THROWS_WITH(load_stack(write_temp(head + "attentoin = \"fused\"\n", "stack")), Catch::Contains(":4") && Catch::Contains("attentoin"));
  CHECK_THROWS_WITH(load_stack(write_temp(head + "attention = \"flash\"\n", "stack")), Catch::Contains("unknown kernel 'flash'"));
  CHECK_THROWS_WITH(load_stack(write_temp(head + "moe = \"deepgemm\"\n", "stack")), Catch::Contains(":4") && Catch::Contains("moe"));
  CHECK_THROWS_WITH(load_stack(write_temp(head + "fuse = \"add_norm,gelu\"\n", "stack")),
                    Catch::Contains(":4") && Catch::Contains("fuse") && Catch::Contains("add_norm, activation, rope"));
  {
    Experiment fused;
    apply_stack(load_stack(write_temp(head + "fuse = \"add_norm\"\n", "stack")), fused, false, false);
    CHECK(fused.fusion == Fusion{true, false, false});  // what the engine fuses
  }
  CHECK_THROWS_WITH(load_stack(write_temp(head + "[hardware]\n\"matrix.attention_cta_cycles\" = 5\n", "stack")),
                    Catch::Contains("matrix.attention_cta_cycles") && Catch::Contains("[provenance]"));
  Experiment e;
  const SoftwareStack bad = load_stack(write_temp(head + "[hardware]\n\"hbm.bandwidth_gb_per_s\" = -1\n[provenance]\n\"hbm.bandwidth_gb_per_s\" = \"x\"\n", "stack"));
  CHECK_THROWS_AS(apply_stack(bad, e, false, false), InputError);  // checked as the hardware file would be
}

TEST_CASE("a stack's [serving] table: its scheduler and host costs, each fitted number with a source, unknown keys refused", "[systemc][stack]") {
  const std::string head = "[stack]\nname = \"x\"\ndescription = \"d\"\n";
  const SoftwareStack s = load_stack(write_temp(head + "[serving]\nchunked_prefill = true\npriority = \"prefill_first\"\n"
                                                       "max_num_tokens = 4096\nkv_admission = \"on_demand\"\niteration_overhead_us = 500\n"
                                                       "[provenance]\n\"serving.iteration_overhead_us\" = \"fitted on ...\"\n", "stack"));
  REQUIRE(s.serving.chunked_prefill);
  CHECK(*s.serving.chunked_prefill);
  CHECK(*s.serving.priority == "prefill_first");
  CHECK(*s.serving.max_num_tokens == 4096);
  CHECK(*s.serving.iteration_overhead_us == 500);
  CHECK_FALSE(s.serving.sequence_overhead_us);
  // A fitted host cost without its source, an unknown key, a budget beyond 2^24 tokens.
  CHECK_THROWS_WITH(load_stack(write_temp(head + "[serving]\nsequence_overhead_us = 15\n", "stack")),
                    Catch::Contains("sequence_overhead_us") && Catch::Contains("serving.sequence_overhead_us"));
  CHECK_THROWS_WITH(load_stack(write_temp(head + "[serving]\nchunked = true\n", "stack")), Catch::Contains("chunked"));
  CHECK_THROWS_WITH(load_stack(write_temp(head + "[serving]\nmax_num_tokens = 99999999\n", "stack")), Catch::Contains("2^24"));
  // Each shipped stack's fitted constants are its own: vLLM and SGLang carry none of TensorRT-LLM's.
  const SoftwareStack trt = load_stack("trtllm-1.x"), vllm = load_stack("vllm"), sglang = load_stack("sglang");
  CHECK(*trt.serving.sequence_overhead_us == 15);
  CHECK(*trt.serving.frontend_response_us == 80);
  CHECK_FALSE(vllm.serving.sequence_overhead_us);
  CHECK(*vllm.serving.iteration_overhead_us == 1000);  // fitted on vLLM rows
  CHECK(*sglang.serving.sequence_overhead_us == 20);   // fitted on SGLang rows
  // Host time of an eager call per library path, each with its source; none without one.
  CHECK(vllm.eager_call_us.at("DeepGemmFp8BlockScaledMMKernel") == 91);
  CHECK(trt.eager_call_us.at("moe_torch_flow") == 120);  // its Triton MoE, outside the graph
  CHECK(sglang.eager_call_us.empty());
  // A stack's eager MoE call reaches the runs it sets up; others have none.
  Experiment with_trt, with_vllm;
  apply_stack(trt, with_trt, false, false);
  apply_stack(vllm, with_vllm, false, false);
  CHECK(with_trt.weight_only_moe_eager_host_s == Approx(120e-6));
  CHECK(with_vllm.weight_only_moe_eager_host_s == 0);
  // Host time of a profiled TensorRT engine layer per plugin and path: TensorRT-LLM's only.
  CHECK(trt.profiled_layer_us.at("WeightOnlyQuantMatmul_gemv") < trt.profiled_layer_us.at("WeightOnlyQuantMatmul_cutlass"));
  CHECK(vllm.profiled_layer_us.empty());
  CHECK_THROWS_WITH(load_stack(write_temp(head + "[profiled_layers]\nX = 5\n", "stack")), Catch::Contains("profiled_layers.X"));
  CHECK_THROWS_WITH(load_stack(write_temp(head + "[eager_calls]\nX = 5\n", "stack")), Catch::Contains("eager_calls.X"));
  CHECK_THROWS_WITH(load_stack(write_temp(head + "[eager_calls]\nX = -5\n[provenance]\n\"eager_calls.X\" = \"s\"\n", "stack")),
                    Catch::Contains("X"));
  // Attention-DP ranks schedule apart in TensorRT-LLM and vLLM, share the instance's limits in SGLang.
  CHECK(*trt.serving.limits_per_rank);
  CHECK(*vllm.serving.limits_per_rank);
  CHECK_FALSE(*sglang.serving.limits_per_rank);
  for (const SoftwareStack* other : {&vllm, &sglang}) {
    CHECK_FALSE(other->serving.frontend_response_us);
    CHECK_FALSE(other->serving.max_prompts);
    CHECK(*other->serving.chunked_prefill);
  }
  // A serving setup takes the stack's values except those the caller keeps.
  ServingSetup setup;
  apply_stack_serving(vllm.serving, setup, [](const std::string& name) { return name == "max_tokens"; });
  CHECK(setup.scheduler.chunked_prefill);
  CHECK(setup.kv.admission == "on_demand");
  CHECK(setup.scheduler.max_tokens == SchedulerConfig{}.max_tokens);
}

TEST_CASE("a stack's releases: NAME@VERSION takes the documented changes up to that version, the newest without one", "[systemc][stack]") {
  // vLLM turned async scheduling on by default in 0.14 (an overlapped loop: each batch formed a
  // step ahead); TensorRT-LLM 1.x's overlap scheduler and SGLang's overlap loop are on in every
  // release the stacks document.
  CHECK_FALSE(load_stack("vllm@0.12.0").serving.schedule_ahead);
  CHECK(load_stack("vllm@0.12.0").releases.empty());
  CHECK(*load_stack("vllm@0.14").serving.schedule_ahead);
  CHECK(*load_stack("vllm@0.14").serving.late_release);  // the same loop learns of finished requests a step late
  CHECK_FALSE(load_stack("vllm@0.13.9").serving.late_release);
  CHECK(*load_stack("vllm@0.18.0").serving.schedule_ahead);
  const SoftwareStack newest = load_stack("vllm");
  CHECK(newest.version.empty());
  CHECK(*newest.serving.schedule_ahead);
  REQUIRE(newest.releases.size() == 1);
  CHECK(newest.releases.front().rfind("0.14: ", 0) == 0);
  CHECK(*load_stack("trtllm-1.x@1.0.0rc3").serving.schedule_ahead);
  CHECK(*load_stack("sglang@0.5.1.post1").serving.schedule_ahead);
  CHECK(*load_stack("sglang").serving.late_release);
  // What is not a version, releases out of order, a release without its note or with a fitted
  // number (those need a [provenance] entry: [serving] only).
  CHECK_THROWS_WITH(load_stack("vllm@latest"), Catch::Contains("vllm@latest") && Catch::Contains("not a version"));
  // A stack file whose own name holds an '@' is that file, not a release.
  const std::string at_path = write_temp(preset_text("stacks", "vllm"), "stack@latest");
  CHECK(load_stack(at_path).name == "vllm");
  const std::string head = "[stack]\nname = \"x\"\ndescription = \"d\"\n";
  CHECK_THROWS_WITH(load_stack(write_temp(head + "[releases.\"0.9\"]\nnote = \"a\"\n[releases.\"0.8\"]\nnote = \"b\"\n", "stack")),
                    Catch::Contains("0.8") && Catch::Contains("oldest first"));
  CHECK_THROWS_WITH(load_stack(write_temp(head + "[releases.\"0.9\"]\nschedule_ahead = true\n", "stack")), Catch::Contains("note"));
  CHECK_THROWS_WITH(load_stack(write_temp(head + "[releases.\"0.9\"]\nnote = \"a\"\niteration_overhead_us = 5\n", "stack")),
                    Catch::Contains("iteration_overhead_us"));
  CHECK_THROWS_WITH(load_stack(write_temp(head + "[releases.\"latest\"]\nnote = \"a\"\n", "stack")), Catch::Contains("latest"));
  // A release's change reaches a serving setup; one before it leaves the engine's default.
  ServingSetup old_vllm, new_vllm;
  apply_stack_serving(load_stack("vllm@0.12").serving, old_vllm, [](const std::string&) { return false; });
  apply_stack_serving(load_stack("vllm@0.14.1").serving, new_vllm, [](const std::string&) { return false; });
  CHECK_FALSE(old_vllm.schedule_ahead());
  CHECK(new_vllm.schedule_ahead());
  // Disaggregated prefill instances: SGLang's prefill servers run the overlap loop, TensorRT-LLM's
  // context servers do not.
  ServingSetup sglang, trtllm;
  apply_stack_serving(load_stack("sglang").serving, sglang, [](const std::string&) { return false; });
  apply_stack_serving(load_stack("trtllm-1.x").serving, trtllm, [](const std::string&) { return false; });
  CHECK(sglang.disaggregation.prefill_schedule_ahead);
  CHECK_FALSE(trtllm.disaggregation.prefill_schedule_ahead);
  CHECK(trtllm.schedule_ahead());
}

TEST_CASE("a stack's kernel tables run on the chip with the stack's kernel parameters, in cycles at that chip's clock", "[systemc][stack]") {
  // TensorRT-LLM's attention kernels cost cycles per CTA (configs/stacks/trtllm-1.x.toml): the
  // A100 file states none of its own, so its TensorRT-LLM tables run with the stack's.
  const KernelTableChips a100 = kernel_table_chips("a100_sxm4_80gb");
  CHECK(a100.plain.matrix.decode_attention_cta_cycles == 0);
  CHECK(a100.for_stack("trtllm-1.x").matrix.decode_attention_cta_cycles == 8000);
  CHECK(a100.for_stack("trtllm-1.x").name == "a100_sxm4_80gb");  // rows and reasons name the chip
  // A table no stack measured (nccl-tests) runs on the chip as it is; so does a stack without
  // kernel parameters (vLLM's).
  CHECK(a100.for_stack("").matrix.decode_attention_cta_cycles == 0);
  CHECK(a100.for_stack("vllm").matrix.decode_attention_cta_cycles == 0);
  // The H100 file carries the same values the stack sets: its tables run unchanged.
  const KernelTableChips h100 = kernel_table_chips("h100_sxm5");
  CHECK(h100.plain.matrix.attention_cta_cycles == h100.for_stack("trtllm-1.x").matrix.attention_cta_cycles);
}

TEST_CASE("setting a kernel's start and drain in ns or in cycles replaces the file's, whichever unit it used", "[systemc][config]") {
  HardwareDocument in_ns = HardwareDocument::load("h100_sxm5");  // the file states cycles
  in_ns.set("chip.op_overhead_ns", 1000);
  CHECK(in_ns.spec().op_overhead_s == Approx(1000e-9));
  CHECK(in_ns.spec().op_overhead_cycles == 0);
  HardwareDocument in_cycles = HardwareDocument::load("tpu_v4");  // the file states ns (0)
  in_cycles.set("chip.op_overhead_cycles", 1000);
  CHECK(in_cycles.spec().op_overhead_s == Approx(1000 / in_cycles.spec().vector.clock_hz));
  HardwareDocument scaled = HardwareDocument::load("h100_sxm5");
  scaled.scale("chip.op_overhead_cycles", 2);
  CHECK(scaled.spec().op_overhead_s == Approx(2 * 1630e-9));
}

TEST_CASE("scaling or setting hbm.efficiency carries the efficiencies it bounds along, unless they are edited too", "[systemc][config]") {
  const HardwareSpec base = load_hardware("h100_sxm5");
  HardwareDocument scaled = HardwareDocument::load("h100_sxm5");
  scaled.scale("hbm.efficiency", 0.5);  // the tile and write efficiencies would exceed it if left behind
  const HardwareSpec half = scaled.spec();
  CHECK(half.hbm.efficiency == Approx(base.hbm.efficiency * 0.5));
  CHECK(half.hbm.tile_efficiency == Approx(base.hbm.tile_efficiency * 0.5));
  CHECK(half.hbm.write_efficiency == Approx(base.hbm.write_efficiency * 0.5));
  // Named once, after the edit that moved them (errors quote this).
  CHECK(scaled.edits() == "hbm.efficiency scaled by 0.5 (carrying hbm.tile_efficiency and hbm.write_efficiency along)");

  HardwareDocument set = HardwareDocument::load("h100_sxm5");
  set.set("hbm.efficiency", base.hbm.efficiency / 2);
  CHECK(set.spec().hbm.tile_efficiency == Approx(base.hbm.tile_efficiency * 0.5));

  // An efficiency the user edits is taken from the file, whatever the order of the edits.
  HardwareDocument both = HardwareDocument::load("h100_sxm5");
  both.scale("hbm.efficiency", 0.9);
  both.scale("hbm.tile_efficiency", 0.5);
  HardwareDocument reversed = HardwareDocument::load("h100_sxm5");
  reversed.scale("hbm.tile_efficiency", 0.5);
  reversed.scale("hbm.efficiency", 0.9);
  CHECK(both.edits() == "hbm.efficiency scaled by 0.9 (carrying hbm.tile_efficiency and hbm.write_efficiency along), "
                        "hbm.tile_efficiency as in the file, hbm.tile_efficiency scaled by 0.5");
  CHECK(reversed.edits() == "hbm.tile_efficiency scaled by 0.5, hbm.efficiency scaled by 0.9 (carrying hbm.write_efficiency along)");
  for (const HardwareDocument* d : {&both, &reversed}) {
    const HardwareSpec hw = d->spec();
    CHECK(hw.hbm.tile_efficiency == Approx(base.hbm.tile_efficiency * 0.5));
    CHECK(hw.hbm.write_efficiency == Approx(base.hbm.write_efficiency * 0.9));
  }
}

TEST_CASE("a hub id runs in its checkpoint's formats unless a dtype is given", "[systemc][stack]") {
  Experiment fp8;
  fp8.hw = "h200_sxm";
  fp8.model = "Qwen/Qwen3-235B-A22B-FP8";
  fp8.precision.kv = DType::fp8;
  const Experiment r = resolve_checkpoint_precision(fp8);
  CHECK(r.precision.weights == DType::fp8);
  CHECK(r.precision.scale_block_k == 128);
  CHECK(r.precision.activations == DType::bf16);  // each linear quantizes its input in 1 x 128 groups
  CHECK_FALSE(r.precision.experts);               // the experts are in the same format
  CHECK(r.precision.kv == DType::fp8);            // the cache's type is the run's, kept
  CHECK(r.precision_given);
  CHECK_THAT(r.precision_source, Catch::Contains("checkpoint") && Catch::Contains("128-wide block"));
  // gpt-oss on Hopper: 16-bit attention, mxfp4 experts run weight-only (no 4-bit matrix rate).
  Experiment oss;
  oss.model = "openai/gpt-oss-120b";
  const Experiment o = resolve_checkpoint_precision(oss);
  CHECK(o.precision.weights == DType::bf16);
  REQUIRE(o.precision.experts);
  CHECK(o.precision.experts->weights == DType::mxfp4);
  CHECK(o.precision.experts->activations == DType::bf16);
  CHECK_THAT(o.precision_source, Catch::Contains("weight-only"));
  // A per-tensor fp8 checkpoint computes in fp8 (W8A8).
  Experiment llama;
  llama.model = "nvidia/Llama-3.1-8B-Instruct-FP8";
  CHECK(resolve_checkpoint_precision(llama).precision.activations == DType::fp8);
  // A dtype given by a flag, file or setting wins; a 16-bit checkpoint and a model that does not
  // load stay as they are (the run refuses the latter with its own message).
  Experiment given = fp8;
  set_experiment_setting(given, "weights_dtype", "bf16");
  CHECK(resolve_checkpoint_precision(given).precision.weights == DType::bf16);
  Experiment dense;
  dense.model = "llama-3-8b";
  CHECK(resolve_checkpoint_precision(dense).precision_source.empty());
  CHECK_FALSE(resolve_checkpoint_precision(dense).precision_given);
  Experiment missing;
  missing.model = "no-such-model";
  CHECK(resolve_checkpoint_precision(missing).precision.weights == DType::bf16);
  // Another model set afterwards drops the old checkpoint's formats (a sweep over models).
  Experiment swept = r;
  set_experiment_setting(swept, "model", "llama-3-8b");
  CHECK(swept.precision.weights == DType::bf16);
  CHECK(swept.precision.kv == DType::fp8);
  CHECK_FALSE(swept.precision_given);
  // The run itself resolves it: the fp8 checkpoint's weights are half the bf16 ones' bytes.
  Experiment small;
  small.model = "nvidia/Llama-3.1-8B-Instruct-FP8";
  small.prompt = 16;
  small.generate = 2;
  const ExperimentResult run = analyze_experiment(small);
  Experiment bf16 = small;
  set_experiment_setting(bf16, "weights_dtype", "bf16");
  set_experiment_setting(bf16, "activations_dtype", "bf16");
  CHECK(run.memory.weights < 0.6 * analyze_experiment(bf16).memory.weights);
}
