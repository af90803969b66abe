// One MoE layer's experts on one GPU as TensorRT-LLM's CUTLASS MoE runs them
// (experiment/single_op.hpp, moe_layer_ops): which experts the copies touch, and the kernels.
#include <catch2/catch.hpp>

#include "tests/op_spec_util.hpp"
#include "components/tiling.hpp"
#include "experiment/inference.hpp"
#include "experiment/single_op.hpp"
#include "core/presets.hpp"
#include "workloads/transformer.hpp"

using namespace roofsim;
using roofsim::test::op_names;

namespace {
MoeCall layer(std::int64_t tokens, std::int64_t experts, std::int64_t topk, std::int64_t ep, double power_law) {
  MoeCall m;
  m.tokens = tokens;
  m.hidden = 4096;
  m.inter = 2048;
  m.experts = experts;
  m.topk = topk;
  m.ep = ep;
  m.power_law = power_law;
  return m;
}
const OpSpec& named(const std::vector<OpSpec>& ops, const std::string& name) {
  for (const OpSpec& op : ops) {
    if (op.name == name) return op;
  }
  FAIL("no op " + name);
  return ops.front();
}
const OpSpec& up(const std::vector<OpSpec>& ops) {
  for (const OpSpec& op : ops) {
    if (op.is_gemm) return op;
  }
  FAIL("no GEMM");
  return ops.front();
}
}  // namespace

TEST_CASE("MoE layer: the copies touch as many experts as they can and each touched expert's weights are read", "[systemc][moe]") {
  // 8 tokens x top-22 = 176 copies over 512 experts: 176 experts with one copy each.
  const std::vector<OpSpec> few = moe_layer_ops(layer(8, 512, 22, 1, 0));
  CHECK(up(few).gemm.batch == 176);
  CHECK(up(few).gemm.m == 64);  // one row, padded to the grouped GEMM's 64-row tile
  // The padding exists inside the GEMMs only: the activation and the finalize see the copies.
  REQUIRE(few.size() == 9);  // top-22 maps its copies in three kernels
  CHECK(named(few, "moe activation").vector.elements_in == 176 * 2 * 2048);
  CHECK(named(few, "moe activation").vector.elements_out == 176 * 2048);
  CHECK(named(few, "moe finalize").vector.elements_in == 176 * 4096);
  // Balanced with plenty of tokens: every local expert, tokens x topk / experts rows each.
  const std::vector<OpSpec> many = moe_layer_ops(layer(4096, 64, 8, 4, 0));
  CHECK(up(many).gemm.batch == 16);
  CHECK(up(many).gemm.m == 4096 * 8 / 64);
  CHECK(up(many).gemm.n == 2 * 2048);  // gate and up
  // Skewed routing gives this GPU's experts unequal loads: the padded tiles grow, and a
  // steeper law loads the hottest expert more.
  const std::vector<OpSpec> skewed = moe_layer_ops(layer(4096, 64, 8, 4, 1.2));
  CHECK(up(skewed).gemm.batch * up(skewed).gemm.m > up(many).gemm.batch * up(many).gemm.m);
  // The kernels: top-k, the expert maps (three kernels at 4096 tokens), permutation, up,
  // activation, down, finalize.
  CHECK(op_names(many) == std::vector<std::string>{"moe top-k", "moe expert counts", "moe expert prefix sum", "moe expert offsets",
                                                "moe permute", "gemm experts up bf16", "moe activation", "gemm experts down bf16",
                                                "moe finalize"});
  CHECK(named(many, "moe finalize").vector.elements_out == 4096 * 4096);
  // Per-tensor fp8 experts: a kernel of its own quantizes the tokens first (bf16 in, fp8 out),
  // the permutation copies fp8 rows and the GEMMs compute in fp8.
  MoeCall f = layer(4096, 64, 8, 4, 0);
  f.dtype = DType::fp8;
  const std::vector<OpSpec> fp8 = moe_layer_ops(f);
  REQUIRE(fp8.size() == 10);
  CHECK(fp8[1].name == "moe input quantize");
  CHECK(fp8[1].vector.elements_in == 4096 * 4096);
  CHECK(fp8[1].vector.dtype == DType::bf16);
  CHECK(fp8[1].vector.output_dtype() == DType::fp8);
  CHECK(named(fp8, "moe permute").vector.dtype == DType::fp8);
  CHECK(named(fp8, "moe permute").vector.output_dtype() == DType::fp8);
  CHECK(up(fp8).gemm.a == DType::fp8);
  // Block-scaled fp8 experts take bf16 rows and quantize them before each grouped GEMM, with
  // the grouped launch's 8 warps per SM (the dense GEMM's quantization has 64).
  f.scale_block_k = 128;
  const std::vector<OpSpec> block = moe_layer_ops(f);
  REQUIRE(block.size() == 11);
  CHECK(named(block, "moe permute").vector.output_dtype() == DType::bf16);
  CHECK(block[5].name == "moe fc1 quantize 8192x4096");
  CHECK(block[5].vector.inflight_bytes_per_unit == 8 * 256);
  CHECK(named(block, "moe activation").vector.output_dtype() == DType::bf16);
  CHECK(block[8].name == "moe fc2 quantize 8192x2048");
  const std::vector<OpSpec> dense = fp8_dynamic_linear_ops(8192, 4096, 4096, Fp8Scaling::block);
  CHECK(dense.front().vector.inflight_bytes_per_unit == 64 * 256);
}

TEST_CASE("MoE layer: small calls map copies to experts in one kernel, larger ones in three", "[systemc][moe]") {
  // TensorRT-LLM's single-CTA map (fusedBuildExpertMapsSortFirstToken) takes at most 256
  // tokens, a top-k of 1, 2, 4, 6 or 8 and at most 255 local experts; other calls run the three
  // kernels of threeStepBuildExpertMapsSortFirstToken.
  auto map_kernels = [](const MoeCall& m) {
    std::vector<std::string> out;
    for (const std::string& n : op_names(moe_layer_ops(m))) {
      if (n.rfind("moe expert", 0) == 0) out.push_back(n);
    }
    return out;
  };
  const std::vector<std::string> one{"moe expert offsets"};
  const std::vector<std::string> three{"moe expert counts", "moe expert prefix sum", "moe expert offsets"};
  CHECK(map_kernels(layer(256, 64, 8, 4, 0)) == one);
  CHECK(map_kernels(layer(257, 64, 8, 4, 0)) == three);
  CHECK(map_kernels(layer(8, 512, 22, 2, 0)) == three);   // top-22
  CHECK(map_kernels(layer(8, 256, 8, 1, 0)) == three);    // 256 local experts
  CHECK(map_kernels(layer(8, 256, 8, 2, 0)) == one);      // 128
  // 4096 tokens, 16 local experts: blocks of 256 tokens (the fewest whose 16 blocks x 16
  // experts fit one CTA of 256), so the prefix sum runs over 256 counts; the first kernel
  // compares every copy with each local expert.
  const std::vector<OpSpec> ops = moe_layer_ops(layer(4096, 64, 8, 4, 0));
  CHECK(named(ops, "moe expert prefix sum").vector.elements_in == 256);
  CHECK(named(ops, "moe expert counts").vector.elements_in == 4096 * 8);
  CHECK(named(ops, "moe expert counts").vector.flops_per_element == 16.0);
  // One token more than the single kernel takes costs at least two more kernel starts.
  const HardwareSpec hw = load_hardware("h100_sxm5");
  auto seconds = [&](std::int64_t tokens) {
    double s = 0;
    for (const auto& op : run_ops(hw, false, moe_layer_ops(layer(tokens, 64, 8, 4, 0))).ops) s += op.result.seconds();
    return s;
  };
  CHECK(seconds(257) - seconds(256) > 2 * hw.op_overhead_s);
}

TEST_CASE("A kernel whose warps wait for their own loads streams at its window over the memory latency", "[systemc][moe]") {
  // The 1x128 quantization's access pattern over 16384 x 7168 bf16 values at 8 and 64 warps
  // per SM: an H100 takes 590.7 and 142.4 us (bench/gpu/results/h100_hbm_inflight.csv).
  // Rounds in lockstep serialize each round's transfer after its latency, so 64 warps per SM
  // simulate slower than measured (174 us); 8 warps, where the latency dominates, within 10%.
  const HardwareSpec hw = load_hardware("h100_sxm5");
  auto seconds = [&](std::int64_t warps_per_sm) {
    VectorShape v{16384LL * 7168, 16384LL * 7168, 2.0, DType::bf16, DType::fp8, false};
    v.inflight_bytes_per_unit = warps_per_sm * 256;
    return run_ops(hw, false, {vector_op(v, "quantize")}).ops.front().result.seconds();
  };
  const double few = seconds(8), many = seconds(64), unlimited = seconds(0);
  CHECK(few == Approx(590.72e-6).epsilon(0.10));
  CHECK(many < few / 3);
  CHECK(many >= unlimited);
  // Little's law: one round of the SMs' 8 warps x 256 B per memory latency, at most.
  const double round_bytes = static_cast<double>(hw.matrix.units) * 8 * 256;
  const double rounds = 16384.0 * 7168 * 2 / round_bytes;
  CHECK(few > rounds * hw.hbm.access_latency_s);
  CHECK(few < 1.5 * rounds * hw.hbm.access_latency_s);
}

TEST_CASE("A vector kernel's last partial wave of CTAs runs on as many units as it has CTAs", "[systemc][attention]") {
  // Compute-bound work split over CTAs, one resident per unit: 133 CTAs on 132 units run the
  // 133rd alone after the first wave, so the call takes about twice as long as with 132
  // (2 x 132/133); 264 CTAs fill two waves exactly and take as long as 132.
  const HardwareSpec hw = load_hardware("h100_sxm5");
  const std::int64_t units = static_cast<std::int64_t>(hw.vector.units);
  auto seconds = [&](std::int64_t ctas) {
    VectorShape v{1LL << 24, 1LL << 24, 4096.0, DType::bf16};
    v.kernel_ctas = ctas;
    return run_ops(hw, false, {vector_op(v, "ctas")}).ops.front().result.seconds();
  };
  const double even = seconds(units), tail = seconds(units + 1), two_waves = seconds(2 * units);
  CHECK(tail == Approx(even * 2.0 * static_cast<double>(units) / static_cast<double>(units + 1)).epsilon(0.03));
  CHECK(two_waves == Approx(even).epsilon(0.01));
  // The plan: the last wave's input is the tail's share, and the steps cover the input once.
  TilingLimits lim = tiling_limits(hw);
  VectorShape v{1000003, 1000003, 1.0, DType::bf16};
  v.kernel_ctas = units + 5;
  const VectorPlan plan = plan_vector(v, lim);
  CHECK(plan.tail_ctas == 5);
  CHECK(plan.tail_begin == static_cast<std::int64_t>(1000003LL * units / (units + 5)));
  std::int64_t next = 0;
  std::uint64_t bytes = 0;
  for (std::int64_t i = 0; i < plan.steps(); ++i) {
    const VectorStep s = plan.step(i);
    CHECK(s.first_element == next);
    CHECK(s.wave_ctas == (s.first_element >= plan.tail_begin ? 5 : 0));
    next += static_cast<std::int64_t>(s.in_bytes / 2);
    bytes += s.in_bytes;
  }
  CHECK(bytes == 1000003ULL * 2);
}

TEST_CASE("model runs route MoE tokens uniformly by default, or as the kernel benchmark routes them", "[systemc][moe]") {
  const ModelConfig m = load_model("mixtral-8x7b");
  const Precision p;
  ForwardPass pass = prefill_pass(16, 256);
  pass.tp = 2;
  const OpGraph uniform = build_forward(m, pass, p, AttentionImpl::fused);
  pass.routing = *parse_moe_routing("balanced");
  const OpGraph balanced = build_forward(m, pass, p, AttentionImpl::fused);
  pass.routing = *parse_moe_routing("power_law:1.01");
  const OpGraph skewed = build_forward(m, pass, p, AttentionImpl::fused);
  // The same tokens and weights: only how the rows fall on the experts differs, so the grouped
  // GEMMs compute at least the copies; skewed loads pad more rows than even ones.
  auto expert_rows = [](const OpGraph& g) {
    std::int64_t rows = 0;
    for (OpId v = 0; v < g.size(); ++v) {
      const OpNode& op = g.op(v);
      if (op.is_gemm && op.name.rfind("layer0.expert", 0) == 0) rows += op.gemm.batch * op.gemm.m;
    }
    return rows;
  };
  CHECK(expert_rows(uniform) >= 16 * 256 * 2 * 2);  // copies x (up, down): per-expert MLPs or grouped GEMMs
  CHECK(expert_rows(balanced) >= expert_rows(uniform));
  CHECK(expert_rows(skewed) >= expert_rows(balanced));
  // A dense model has nothing to route.
  ForwardPass dense = prefill_pass(1, 64);
  dense.routing = *parse_moe_routing("balanced");
  CHECK_THROWS_WITH(build_forward(load_model("llama-3-8b"), dense, p, AttentionImpl::fused), Catch::Contains("no experts to route to"));
  // The forms: uniform, balanced, power_law:A with A in (0, 10].
  CHECK(parse_moe_routing("uniform")->kind == MoeRouting::Kind::uniform);
  CHECK(parse_moe_routing("power_law:1.2")->alpha == 1.2);
  for (const char* bad : {"", "zipf", "power_law:", "power_law:0", "power_law:11", "power_law:1.2x", "power_law:nan"}) {
    CHECK_FALSE(parse_moe_routing(bad).has_value());
  }
  CHECK(moe_routing_name(*parse_moe_routing("power_law:1.01")) == "power_law:1.01");
}

TEST_CASE("a run's MoE layer on TensorRT-LLM's kernels is the kernel tables' call, launched by three host calls", "[systemc][moe]") {
  // Qwen3-30B-A3B: 128 experts of 768, top 8, hidden 2048. Balanced routing, as the tables.
  const ModelConfig model = load_model("Qwen/Qwen3-30B-A3B");
  for (std::int64_t tokens : {std::int64_t{4}, std::int64_t{512}}) {  // one expert-map kernel; three
    INFO(tokens << " tokens");
    ForwardPass pass = prefill_pass(1, tokens);
    pass.tp = 2;
    pass.routing = *parse_moe_routing("balanced");
    pass.moe_kernel = MoeKernel::trtllm_cutlass;
    const OpGraph g = build_forward(model, pass, Precision{}, AttentionImpl::fused);
    MoeCall call;
    call.tokens = tokens;
    call.hidden = model.hidden;
    call.inter = model.expert_width();
    call.experts = model.experts;
    call.topk = model.experts_per_token;
    call.tp = 2;
    const std::vector<OpSpec> table = moe_layer_ops(call);
    // The layer's ops after the router, in order, are the call's: the same GEMMs and passes.
    std::vector<const OpNode*> layer;
    bool after_router = false;
    for (OpId v : g.topological_order()) {
      const OpNode& op = g.op(v);
      if (op.layer != 0) continue;
      if (op.op_class == "router") after_router = true;
      else if (after_router && (op.name.find(".moe.") != std::string::npos || op.name.find(".experts.") != std::string::npos)) layer.push_back(&op);
    }
    REQUIRE(layer.size() == table.size());
    for (std::size_t i = 0; i < table.size(); ++i) {
      INFO(table[i].name << " / " << layer[i]->name);
      REQUIRE(layer[i]->is_gemm == table[i].is_gemm);
      if (table[i].is_gemm) {
        CHECK(layer[i]->gemm.batch == table[i].gemm.batch);
        CHECK(layer[i]->gemm.m == table[i].gemm.m);
        CHECK(layer[i]->gemm.n == table[i].gemm.n);
        CHECK(layer[i]->gemm.k == table[i].gemm.k);
        CHECK(layer[i]->gemm.grouped);
      } else {
        CHECK(layer[i]->vector.elements_in == table[i].vector.elements_in);
        CHECK(layer[i]->vector.elements_out == table[i].vector.elements_out);
      }
      // The top-k is a framework op of its own; the fused MoE op launches the rest.
      CHECK(layer[i]->continues_host_call == (i > 1));
    }
    CHECK(layer.front()->name == "layer0.moe.topk");
    CHECK(layer.back()->name == "layer0.moe.finalize");
  }
  // The generic path has no routing kernels.
  ForwardPass pass = decode_pass(8, 128, 1);
  const OpGraph generic = build_forward(model, pass, Precision{}, AttentionImpl::fused);
  for (OpId v = 0; v < generic.size(); ++v) CHECK(generic.op(v).name.find(".moe.") == std::string::npos);
}

TEST_CASE("TensorRT-LLM's MoE call in a decode step: its routing kernels cost their starts, and per-op launch pays three host calls", "[systemc][moe]") {
  Experiment e;
  e.model = "Qwen/Qwen3-30B-A3B";
  e.batch = 1;
  e.prompt = 128;
  e.generate = 2;
  const ExperimentResult grouped_graph = run_experiment(e, RunControl{});
  e.moe_kernel = MoeKernel::trtllm_cutlass;
  const ExperimentResult cutlass_graph = run_experiment(e, RunControl{});
  // A decode step of one token: the generic path runs eight experts' MLPs (24 kernels and a
  // combine per layer), the call 10 kernels; both read the same experts' weights.
  INFO("grouped " << grouped_graph.tpot_s << " s, cutlass " << cutlass_graph.tpot_s << " s");
  CHECK(cutlass_graph.tpot_s > 0);
  // Op by op (a prefill of TensorRT-LLM's PyTorch flow) on a host so slow that it sets the
  // pace: the router, the top-k and the fused MoE op are three launches per layer, where the
  // generic grouped path (128 tokens touch more than 32 experts) launches five: two fewer host
  // intervals in each of the 48 layers.
  HardwareSpec slow_host = load_hardware("h100_sxm5");
  slow_host.host_launch_interval_s = 1e-3;
  e.hardware = slow_host;
  e.launch = Launch::per_op;
  e.moe_kernel = MoeKernel::grouped;
  const ExperimentResult grouped_eager = run_experiment(e, RunControl{});
  e.moe_kernel = MoeKernel::trtllm_cutlass;
  const ExperimentResult cutlass_eager = run_experiment(e, RunControl{});
  const double saved = grouped_eager.ttft_s - cutlass_eager.ttft_s;
  INFO("eager TTFT grouped " << grouped_eager.ttft_s << " s, cutlass " << cutlass_eager.ttft_s << " s");
  CHECK(saved > 0.99 * 2 * 48 * 1e-3);
  CHECK(saved < 1.01 * 2 * 48 * 1e-3);
}

TEST_CASE("TensorRT-LLM's MoE with expert parallelism: tokens gathered over the EP group, the call on all of them with the rank's experts, partial sums scattered back", "[systemc][moe]") {
  const ModelConfig model = load_model("Qwen/Qwen3-30B-A3B");
  ForwardPass pass = decode_pass(16, 256, 1);  // 16 sequences, 4 on each EP rank
  pass.ep = 4;
  pass.routing = *parse_moe_routing("balanced");
  pass.moe_kernel = MoeKernel::trtllm_cutlass;
  const OpGraph g = build_forward(model, pass, Precision{}, AttentionImpl::fused);
  const std::int64_t all = 16, h = model.hidden;  // every rank's tokens
  const OpNode* gather = nullptr;
  const OpNode* scatter = nullptr;
  const OpNode* topk = nullptr;
  const OpNode* up = nullptr;
  for (OpId v = 0; v < g.size(); ++v) {
    const OpNode& op = g.op(v);
    if (op.layer != 0) continue;
    CHECK_FALSE(op.all_to_all);  // no dispatch of copies: the tokens are gathered
    if (op.name == "layer0.moe_allgather") gather = &op;
    if (op.name == "layer0.moe_reducescatter") scatter = &op;
    if (op.name == "layer0.moe.topk") topk = &op;
    if (op.name == "layer0.experts.gate_up") up = &op;
  }
  REQUIRE(gather);
  REQUIRE(scatter);
  REQUIRE(topk);
  REQUIRE(up);
  CHECK(gather->ep_exchange == OpNode::EpExchange::allgather);
  CHECK(gather->over_ep_group());
  CHECK(gather->collective_elements == all * h);
  CHECK(scatter->ep_exchange == OpNode::EpExchange::reducescatter);
  CHECK(scatter->collective_elements == all * h);
  // The call as the kernel tables measure a moe_ep_size of 4: every rank's tokens, its 32 experts.
  MoeCall call;
  call.tokens = all;
  call.hidden = h;
  call.inter = model.expert_width();
  call.experts = model.experts;
  call.topk = model.experts_per_token;
  call.ep = 4;
  const std::vector<OpSpec> table = moe_layer_ops(call);
  CHECK(topk->vector.elements_in == table.front().vector.elements_in);
  CHECK(up->gemm.batch == table[3].gemm.batch);  // top-k, expert map (three kernels above 256 tokens: one here), permute, up
  CHECK(up->gemm.m == table[3].gemm.m);
  // And it runs, the exchanges on the links of each EP group.
  Experiment e;
  e.model = "Qwen/Qwen3-30B-A3B";
  e.ep = 4;
  e.batch = 64;
  e.prompt = 128;
  e.generate = 2;
  e.moe_kernel = MoeKernel::trtllm_cutlass;
  const ExperimentResult r = run_experiment(e, RunControl{});
  CHECK(r.tpot_s > 0);
}

TEST_CASE("experts spread inside the TP group (--moe-tp): each chip holds whole experts, runs them on all its tokens, and the TP all-reduce sums them", "[systemc][moe]") {
  const ModelConfig model = load_model("Qwen/Qwen3-30B-A3B");  // 128 experts of 768
  for (MoeKernel kernel : {MoeKernel::grouped, MoeKernel::trtllm_cutlass}) {
    INFO(moe_kernel_name(kernel));
    ForwardPass pass = decode_pass(64, 256, 1);
    pass.tp = 4;
    pass.moe_kernel = kernel;
    pass.routing = *parse_moe_routing("balanced");
    auto expert_gemm = [&](const OpGraph& g) -> const OpNode* {
      for (OpId v = 0; v < g.size(); ++v) {
        const OpNode& op = g.op(v);
        // A grouped GEMM, or (32 or fewer experts touched on the generic path) an expert's own.
        if (op.layer == 0 && op.is_gemm && op.op_class == "mlp_up" && op.name.find("expert") != std::string::npos) return &op;
      }
      return nullptr;
    };
    const OpGraph split = build_forward(model, pass, Precision{}, AttentionImpl::fused);
    pass.moe_tp = 1;
    const OpGraph spread = build_forward(model, pass, Precision{}, AttentionImpl::fused);
    const OpNode* a = expert_gemm(split);
    const OpNode* b = expert_gemm(spread);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->gemm.n == 2 * 768 / 4);  // each expert's columns over the 4 chips
    CHECK(b->gemm.n == 2 * 768);      // whole experts
    CHECK(b->gemm.batch <= 128 / 4);  // of this chip's 32
  }
  ForwardPass bad = decode_pass(8, 128, 1);
  bad.tp = 4;
  bad.moe_tp = 3;
  CHECK_THROWS_WITH(build_forward(model, bad, Precision{}, AttentionImpl::fused), Catch::Contains("must divide"));
}

TEST_CASE("fp8 with block scales in a run: each linear is the kernel tables' fp8_block pair, the MoE call its block-scaled one", "[systemc][moe]") {
  Precision p;
  p.weights = DType::fp8;
  p.activations = DType::bf16;
  p.scale_block_k = 128;
  const OpGraph dense = build_forward(load_model("llama-3-8b"), decode_pass(8, 128, 1), p, AttentionImpl::fused);
  const std::vector<OpSpec> pair = fp8_dynamic_linear_ops(8, 4096, 4096, Fp8Scaling::block);  // o_proj of Llama-3-8B
  REQUIRE(pair.size() == 2);
  int linears = 0;
  for (OpId v = 0; v < dense.size(); ++v) {
    const OpNode& op = dense.op(v);
    if (!op.is_gemm || op.gemm.fused_attention || op.gemm.batch > 1) continue;
    INFO(op.name);
    if (op.op_class == "lm_head") {
      CHECK(op.gemm.scale_block_k == 0);  // 16-bit in those checkpoints
      continue;
    }
    ++linears;
    CHECK(op.gemm.a == DType::fp8);
    CHECK(op.gemm.scale_block_k == 128);
    // Its input is the 1x128 quantization, launched as the dense GEMM's.
    const OpNode* quantize = nullptr;
    for (OpId u = 0; u < dense.size(); ++u) {
      for (OpId s : dense.successors(u)) {
        if (s == v && dense.op(u).op_class == "quantize") quantize = &dense.op(u);
      }
    }
    REQUIRE(quantize);
    const OpNode& q = *quantize;
    CHECK(q.op_class == "quantize");
    CHECK(q.vector.elements_in == op.gemm.m * op.gemm.k);
    if (op.name == "layer0.o_proj") {
      CHECK(q.vector.inflight_bytes_per_unit == pair[0].vector.inflight_bytes_per_unit);
      CHECK(op.gemm.n == pair[1].gemm.n);
    }
  }
  CHECK(linears == 4 * 32);  // qkv, o_proj, gate_up, down in each of 32 layers
  // The MoE call: bf16 tokens permuted, quantized in 1x128 groups before each grouped GEMM.
  ForwardPass pass = decode_pass(8, 128, 1);
  pass.moe_kernel = MoeKernel::trtllm_cutlass;
  const OpGraph moe = build_forward(load_model("Qwen/Qwen3-30B-A3B"), pass, p, AttentionImpl::fused);
  bool fc1 = false, fc2 = false;
  for (OpId v = 0; v < moe.size(); ++v) {
    fc1 = fc1 || moe.op(v).name == "layer0.moe.fc1_quantize";
    fc2 = fc2 || moe.op(v).name == "layer0.moe.fc2_quantize";
  }
  CHECK(fc1);
  CHECK(fc2);
}

TEST_CASE("TensorRT-LLM's weight-only MoE runs outside the CUDA graph: a decode step waits for the host's call in each layer", "[systemc][moe]") {
  Experiment e;
  e.model = "openai/gpt-oss-120b";  // mxfp4 experts: weight-only on Hopper
  e.hw = "h200_sxm";
  e.batch = 4;
  e.prompt = 128;
  e.generate = 2;
  e.moe_kernel = MoeKernel::trtllm_cutlass;
  const ExperimentResult graph = run_experiment(e, RunControl{});
  // A call of 1 ms on the host per MoE layer, far longer than a layer's kernels: the 36 layers'
  // calls set the pace of the graph-launched step, in series with nothing else on the host.
  e.weight_only_moe_eager_host_s = 1e-3;
  const ExperimentResult slow_call = run_experiment(e, RunControl{});
  // The call is the kernel tables' (moe.csv's moe_torch_flow rows): routing, grouped GEMMs on
  // the weight-only experts, finalize; the host runs all of it as one call.
  std::vector<const OpNode*> call;
  const OpGraph& prefill = slow_call.graphs.at(0);
  for (OpId v : prefill.topological_order()) {
    const OpNode& op = prefill.op(v);
    if (op.layer == 0 && (op.name.find(".moe.") != std::string::npos || op.name.find(".experts.") != std::string::npos)) call.push_back(&op);
  }
  REQUIRE(call.size() > 3);
  CHECK(call.front()->name == "layer0.moe.topk");
  CHECK(call.front()->eager_host_s == 1e-3);
  CHECK_FALSE(call.front()->continues_host_call);
  for (std::size_t i = 1; i < call.size(); ++i) {
    CHECK(call[i]->continues_host_call);
    CHECK(call[i]->eager_host_s == 0);
    if (call[i]->is_gemm) CHECK(call[i]->gemm.weight_only_grouped());
  }
  INFO("graph " << graph.tpot_s << " s, with a 1 ms eager call " << slow_call.tpot_s << " s");
  CHECK(slow_call.tpot_s > 36e-3);
  CHECK(slow_call.tpot_s < 36e-3 + graph.tpot_s);
  // A call shorter than the chip's work before it is hidden: the step is the chip's.
  e.weight_only_moe_eager_host_s = 1e-6;
  const ExperimentResult quick_call = run_experiment(e, RunControl{});
  CHECK(quick_call.tpot_s == Approx(graph.tpot_s).epsilon(0.01));
  // The generic grouped path is launched as every other op: the stack's call does not apply.
  e.moe_kernel = MoeKernel::grouped;
  e.weight_only_moe_eager_host_s = 1e-3;
  const ExperimentResult grouped = run_experiment(e, RunControl{});
  CHECK(grouped.tpot_s < 36e-3);
}
