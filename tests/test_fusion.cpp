// Element-wise fusion as a what-if (Fusion, `--fuse elementwise`): the
// fused graph keeps every matmul and its FLOPs, drops the element-wise kernels and the HBM round
// trips of their intermediates, and a memory-bound decode step gets faster by what those
// kernels cost; layer replay stays exact on it.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "experiment/inference.hpp"
#include "experiment/results.hpp"
#include "workloads/model_catalog.hpp"
#include "workloads/transformer.hpp"

using namespace roofsim;

namespace {

std::string fixture_model(const std::string& name) { return std::string(ROOFSIM_TEST_MODELS_DIR) + "/" + name + ".toml"; }

struct GraphTotals {
  double gemm_flops = 0, bytes = 0;
  std::size_t ops = 0;
  std::multiset<std::string> classes;
};

GraphTotals fusion_totals(const OpGraph& g) {
  GraphTotals t;
  for (OpId v = 0; v < g.size(); ++v) {
    const OpNode& op = g.op(v);
    ++t.ops;
    t.classes.insert(op.op_class);
    if (op.is_gemm) t.gemm_flops += op.cost().flops;
    t.bytes += op.cost().bytes();
  }
  return t;
}

OpGraph fused_or_not(const ModelConfig& m, ForwardPass pass, bool fuse) {
  pass.fusion = fuse ? Fusion{true, true, true} : Fusion{};
  return build_forward(m, pass, Precision{}, AttentionImpl::fused);
}

}  // namespace

TEST_CASE("fusing element-wise ops keeps the matmuls and drops the element-wise kernels and their round trips", "[systemc][fusion]") {
  for (const std::string& name : {std::string("llama-3-8b"), fixture_model("bias-qknorm-small"), fixture_model("gpt-j-parallel"),
                                  fixture_model("mla-moe-small")}) {
    INFO(name);
    const ModelConfig m = load_model(name);
    for (const ForwardPass& pass : {decode_pass(4, 300, 1), prefill_pass(2, 64)}) {
      const GraphTotals plain = fusion_totals(fused_or_not(m, pass, false)), fused = fusion_totals(fused_or_not(m, pass, true));
      CHECK(fused.gemm_flops == plain.gemm_flops);
      CHECK(fused.ops < plain.ops);
      CHECK(fused.bytes < plain.bytes);
      // No RoPE or activation kernel is left where the fused graph folds them (dense MLPs; the
      // latent attention keeps its own), and one norm at most per layer start after the first.
      if (!m.mla) CHECK(fused.classes.count("rope") == 0);
      if (!m.moe_layer(0)) CHECK(fused.classes.count("activation") < plain.classes.count("activation"));
      CHECK(fused.classes.count("residual_norm") > 0);
      CHECK(fused.classes.count("residual") == 0);
    }
  }
}

TEST_CASE("fusion settings read back as written: none, elementwise, or a list in a fixed order", "[systemc][fusion]") {
  CHECK(parse_fusion("none") == Fusion{});
  CHECK(parse_fusion("elementwise") == Fusion{true, true, true});
  CHECK(parse_fusion("rope,add_norm") == Fusion{true, false, true});
  CHECK(fusion_name(*parse_fusion("rope,add_norm")) == "add_norm,rope");
  CHECK(fusion_name(*parse_fusion("add_norm,activation,rope")) == "elementwise");
  for (const char* bad : {"", "all", "rope,rope", "add_norm,", "add-norm"}) CHECK_FALSE(parse_fusion(bad).has_value());
  // Only the residual adds and norms fused: the activation and RoPE kernels stay.
  ForwardPass pass = decode_pass(4, 300, 1);
  pass.fusion = Fusion{true, false, false};
  const GraphTotals some = fusion_totals(build_forward(load_model("llama-3-8b"), pass, Precision{}, AttentionImpl::fused));
  CHECK(some.classes.count("residual_norm") > 0);
  CHECK(some.classes.count("rope") == 32);
  CHECK(some.classes.count("activation") == 32);
  CHECK(some.classes.count("norm") == 1);  // the first layer's, after the embedding
}

TEST_CASE("a gated epilogue writes half the up GEMM's columns, which the down GEMM reads", "[systemc][fusion]") {
  const ModelConfig m = load_model("llama-3-8b");
  const OpGraph g = fused_or_not(m, decode_pass(8, 100, 1), true);
  bool found = false;
  for (OpId v = 0; v < g.size(); ++v) {
    const OpNode& op = g.op(v);
    if (op.name != "layer0.gate_up") continue;
    found = true;
    CHECK(op.gemm.gated_output);
    CHECK(op.gemm.n == 2 * m.intermediate);
    CHECK(op.gemm.out_n() == m.intermediate);
    CHECK(op.gemm.c_elements_per_batch() == 8 * m.intermediate);
  }
  CHECK(found);
}

TEST_CASE("fused element-wise ops make a batch-1 decode faster by their kernels' cost, and replay stays exact", "[systemc][fusion]") {
  Experiment e;
  e.prompt = 128;
  e.generate = 4;
  const ExperimentResult plain = run_experiment(e, RunControl{});
  e.fusion = Fusion{true, true, true};
  const ExperimentResult fused = run_experiment(e, RunControl{});
  // Seven element-wise kernels per layer become three: each costs a kernel's start and drain.
  CHECK(fused.tpot_s < plain.tpot_s * 0.97);
  CHECK(fused.tpot_s > plain.tpot_s * 0.85);
  CHECK(fused.tpot_s >= fused.bound_tpot_s);
  CHECK(to_json(fused)["settings"]["fuse"] == "elementwise");
  CHECK(to_json(plain)["settings"]["fuse"] == "none");
  Experiment all = e;
  all.all_layers = true;
  const ExperimentResult slow = run_experiment(all, RunControl{});
  CHECK(slow.tpot_s == fused.tpot_s);
  CHECK(slow.ttft_s == fused.ttft_s);
  CHECK(slow.events == fused.events);
}

TEST_CASE("fusion runs with tensor and pipeline parallelism: a stage after a send keeps its first norm", "[systemc][fusion]") {
  Experiment e;
  e.prompt = 64;
  e.generate = 2;
  e.fusion = Fusion{true, true, true};
  e.tp = 2;
  e.pp = 2;
  const ExperimentResult r = run_experiment(e, RunControl{});
  CHECK(r.tpot_s > 0);
  std::size_t norms = 0;
  for (OpId v = 0; v < r.graphs[1].size(); ++v) norms += r.graphs[1].op(v).op_class == "norm";
  CHECK(norms == 2);  // layer 0's (after the embedding) and the second stage's first layer's (after the send)
}
