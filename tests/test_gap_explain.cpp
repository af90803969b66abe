// `roofsim explain`: the gap between a run and its bound, split by simulating the chip with one
// cost taken away after another (experiment/gap_explain.hpp).
#include <catch2/catch.hpp>
#include <string>

#include "experiment/gap_explain.hpp"

using namespace roofsim;

namespace {

Experiment small_run(const char* hw) {
  Experiment e;
  e.hw = hw;
  e.model = "llama-3-8b";
  e.prompt = 256;
  e.generate = 8;
  e.batch = 2;
  return e;
}

std::size_t cause_index(const std::string& name) {
  for (std::size_t i = 0; i < non_ideal_costs().size(); ++i) {
    if (non_ideal_costs()[i].name == name) return i;
  }
  FAIL("no cause " << name);
  return 0;
}

}  // namespace

TEST_CASE("explain: the last step is the ideal chip, so no cost is left out of the list", "[systemc][explain]") {
  // explain's chain of runs must end on the --ideal run exactly (both take away
  // non_ideal_costs(); the chain also keeps the run's other settings).
  for (const char* hw : {"h100_sxm5", "tpu_v4", "h100_nodes"}) {
    const bool nodes = std::string(hw) == "h100_nodes";
    Experiment e = small_run(nodes ? "h100_sxm5" : hw);
    e.tp = 2;
    if (nodes) {  // two nodes: the pipeline's sends cross the scale-out network
      e.pp = 8;
      e.nodes = 2;
    }
    GapExplanation g = explain_gaps(e);
    Experiment ideal = e;
    ideal.ideal = true;
    ExperimentResult r = run_experiment(ideal, RunControl{});
    CHECK(g.prefill.bound_s + g.prefill.tiles == Approx(r.ttft_s).epsilon(1e-9));
    CHECK(g.decode.bound_s + g.decode.tiles == Approx(r.tpot_s).epsilon(1e-9));
  }
}

TEST_CASE("explain: a tiny decode op's launch part is the chip's per-kernel overhead", "[systemc][explain]") {
  const GapExplanation g = explain_gaps(small_run("h100_sxm5"));
  const HardwareSpec& hw = g.result.hw;
  REQUIRE(hw.op_overhead_s > 0);
  bool found = false;
  for (const OpGap& o : g.ops) {
    if (o.op.phase != "decode" || o.op.name != "attn_norm") continue;
    found = true;
    // A norm over 2 x 4096 values moves 32 KB: its time is almost all the kernel's fixed cost.
    const double launch = o.time.parts[cause_index("launch")] / o.op.count;
    CHECK(launch == Approx(hw.op_overhead_s).epsilon(0.03));
  }
  CHECK(found);
}

TEST_CASE("explain: prefill GEMMs lose the sustained clock, decode GEMMs HBM efficiency, and no op beats its bound",
          "[systemc][explain]") {
  const GapExplanation g = explain_gaps(small_run("h100_sxm5"));
  const std::size_t clock = cause_index("clock"), memory = cause_index("memory");
  for (const OpGap& o : g.ops) {
    // The ideal chip never beats the bound.
    CHECK(o.time.tiles >= -1e-12 * o.time.sim_s);
    if (o.op.name != "gate_up") continue;
    INFO(o.op.phase);
    if (o.op.phase == "prefill") {
      CHECK(o.op.roof == "compute");
      CHECK(o.time.parts[clock] > o.time.parts[memory]);
      // The sustained clock (1410 MHz of 1830) costs a compute-bound GEMM about 1 - 1410/1830 of its time.
      CHECK(o.time.parts[clock] / o.time.sim_s == Approx(1.0 - 1410.0 / 1830.0).margin(0.05));
    } else {
      CHECK(o.op.roof == "memory");
      CHECK(o.time.parts[memory] > o.time.parts[clock]);
    }
  }
}

TEST_CASE("explain: refuses the ideal chip", "[systemc][explain]") {
  Experiment e = small_run("h100_sxm5");
  e.ideal = true;
  CHECK_THROWS_WITH(explain_gaps(e), Catch::Contains("leave --ideal out"));
}
