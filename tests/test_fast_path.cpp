// Layer replay (components/layer_replay.hpp) is exact: an experiment run with it gives
// byte for byte the JSON and op CSV of the same experiment simulating every layer, on every
// hardware preset and parallel layout. Short prompts and generations where the layout is what
// matters; two realistic sizes.
#include <catch2/catch.hpp>
#include <string>

#include "core/presets.hpp"
#include "experiment/inference.hpp"
#include "experiment/results.hpp"
#include "tests/test_util.hpp"

using namespace roofsim;

namespace {

struct Outputs {
  std::string json, csv;
  int replayed = 0;
};

Outputs outputs(Experiment e, bool all_layers) {
  e.all_layers = all_layers;
  const ExperimentResult r = run_experiment(e, RunControl{});
  nlohmann::json j = to_json(r);
  j.erase("wall_s");  // how long simulating took: the one thing meant to differ
  CHECK(j["settings"]["all_layers"] == all_layers);  // and the setting that says which path ran
  j["settings"].erase("all_layers");
  return {j.dump(), records_csv(op_instance_records(r), kOpInstanceColumns), r.replayed_segments};
}

// The fast path gives the slow path's results; `replays` says whether it must have replayed
// layers (a test that replays nothing would prove nothing).
void check_exact(const Experiment& e, bool replays = true) {
  const Outputs slow = outputs(e, true);
  const Outputs fast = outputs(e, false);
  CHECK(slow.replayed == 0);
  if (replays) CHECK(fast.replayed > 0);
  CHECK(fast.json == slow.json);
  CHECK(fast.csv == slow.csv);
}

Experiment short_run(const std::string& hw, const std::string& model) {
  Experiment e;
  e.hw = hw;
  e.model = model;
  e.prompt = 64;
  e.generate = 4;
  return e;
}

}  // namespace

TEST_CASE("layer replay gives the results of simulating every layer, on every hardware preset", "[systemc][fast_path]") {
  for (const std::string& hw : list_presets("hardware")) {
    INFO(hw);
    check_exact(short_run(hw, "llama-2-7b"));
  }
}

TEST_CASE("layer replay is exact with a memory model in front of HBM (its own server saved and skipped)", "[systemc][fast_path]") {
  const std::string file = roofsim::test::write_temp(
      "base = \"h100_sxm5\"\n[memory]\nmodel = \"l2_hit_rate\"\nhit_rate = 0.4\n"
      "[provenance]\n\"memory.model\" = \"assumed\"\n\"memory.hit_rate\" = \"assumed\"\n",
      "l2.toml");
  check_exact(short_run(file, "llama-2-7b"));
}

TEST_CASE("layer replay is exact with tensor parallelism on a switch (tp 2, tp 8, a framework all-reduce)", "[systemc][fast_path]") {
  Experiment e = short_run("h100_sxm5", "llama-2-13b");
  e.tp = 2;
  check_exact(e);
  e = short_run("h100_sxm5", "llama-2-70b");
  e.tp = 8;
  e.batch = 4;
  check_exact(e);
  // TensorRT-LLM 1.x's way: prefill launched op by op, its own all-reduce kernel.
  e.launch = Launch::prefill_per_op;
  e.allreduce = "trtllm_custom";
  check_exact(e);
}

TEST_CASE("layer replay is exact with pipeline stages and micro-batches (it simulates them)", "[systemc][fast_path]") {
  Experiment e = short_run("h100_sxm5", "llama-2-7b");
  e.tp = 2;
  e.pp = 2;
  e.batch = 4;
  e.microbatches = 2;
  check_exact(e, false);
}

TEST_CASE("layer replay is exact with expert parallelism (Mixtral, all-to-alls)", "[systemc][fast_path]") {
  Experiment e = short_run("h100_sxm5", "mixtral-8x7b");
  e.ep = 4;
  e.tp = 2;
  e.batch = 8;
  check_exact(e);
}

TEST_CASE("layer replay is exact on TPU v4 rings and tori", "[systemc][fast_path]") {
  Experiment e = short_run("tpu_v4", "llama-2-7b");
  e.tp = 4;
  e.topology = "4";
  check_exact(e);
  e.tp = 8;
  e.topology = "2x2x2";
  check_exact(e);
  e.tp = 4;
  e.pp = 2;
  e.topology = "4x2";
  check_exact(e, false);
}

TEST_CASE("layer replay is exact for near-memory GEMVs, per-op launch, unfused attention, fp8 and ideal runs",
          "[systemc][fast_path]") {
  Experiment e = short_run("h100_pim", "llama-3-8b");
  e.near_memory = NearMemory::all;
  check_exact(e);
  e = short_run("h100_sxm5", "llama-3-8b");
  e.launch = Launch::per_op;
  check_exact(e);
  e = short_run("a100_sxm4_80gb", "llama-2-7b");
  e.attention = AttentionImpl::unfused;
  e.precision.kv = DType::fp8;
  e.batch = 8;
  check_exact(e);
  e = short_run("h100_sxm5", "gpt-j-6b");
  e.ideal = true;
  e.precision.weights = DType::fp8;
  e.precision.activations = DType::fp8;
  check_exact(e);
}

TEST_CASE("layer replay is exact with a decode stride", "[systemc][fast_path]") {
  Experiment e = short_run("h100_sxm5", "mistral-7b");
  e.generate = 40;
  e.decode_stride = 8;
  e.batch = 16;
  check_exact(e);
}

TEST_CASE("layer replay is exact on realistic sizes: the default run, Llama-2-70B on 8 x H100", "[systemc][fast_path]") {
  check_exact(Experiment{});
  Experiment e;
  e.model = "llama-2-70b";
  e.tp = 8;
  e.prompt = 2048;
  e.generate = 8;
  check_exact(e);
}

TEST_CASE("a traced step is simulated layer by layer, the rest replayed, with the same results", "[systemc][fast_path]") {
  Experiment e = short_run("h100_sxm5", "llama-3-8b");
  e.trace_steps = 2;
  check_exact(e);
}

TEST_CASE("serving passes replay layers too, with the same outcome", "[systemc][fast_path]") {
  Experiment e;
  e.tp = 2;
  const PassSimulator sim(e);
  const ForwardPass pass = mixed_pass({{6, 1, 700, false}, {1, 200, 200, true}});
  const PassOutcome slow = sim.simulate(pass), fast = sim.simulate_sampled(pass);
  CHECK(fast.seconds == slow.seconds);
  CHECK(fast.comm_s == slow.comm_s);
  CHECK(fast.flops == slow.flops);
  CHECK(fast.bytes == slow.bytes);
  CHECK(fast.bound_s == slow.bound_s);
  CHECK(fast.events == slow.events);
  CHECK(fast.server_jobs == slow.server_jobs);
}

TEST_CASE("a serving pass replays what earlier passes of its simulator recorded, with the outcome of simulating it alone",
          "[systemc][fast_path]") {
  for (std::int64_t tp : {1, 2}) {
    INFO("tp " << tp);
    Experiment e;
    e.tp = tp;
    const PassSimulator reused(e);
    // Decode passes of one batch at growing contexts (only attention differs), then a mixed
    // pass and one of another batch: each as a fresh simulator and every layer simulated give it.
    const std::vector<ForwardPass> passes = {mixed_pass({{8, 1, 300, false}}), mixed_pass({{8, 1, 301, false}}),
                                             mixed_pass({{8, 1, 900, false}}), mixed_pass({{7, 1, 900, false}, {1, 64, 64, true}}),
                                             mixed_pass({{5, 1, 900, false}}), mixed_pass({{8, 1, 302, false}})};
    int replayed_late = 0;  // segments replayed from earlier passes
    for (std::size_t i = 0; i < passes.size(); ++i) {
      INFO("pass " << i);
      const PassOutcome slow = PassSimulator(e).simulate(passes[i]), alone = PassSimulator(e).simulate_sampled(passes[i]);
      const PassOutcome fast = reused.simulate_sampled(passes[i]);
      for (const PassOutcome* o : {&alone, &fast}) {
        CHECK(o->seconds == slow.seconds);
        CHECK(o->comm_s == slow.comm_s);
        CHECK(o->flops == slow.flops);
        CHECK(o->bytes == slow.bytes);
        CHECK(o->bound_s == slow.bound_s);
        CHECK(o->events == slow.events);
        CHECK(o->server_jobs == slow.server_jobs);
      }
      // Passes 1, 2 and 5 have the batch of pass 0: their first layer's GEMMs are pass 0's.
      if (i == 1 || i == 2 || i == 5) {
        CHECK(fast.replayed_segments > alone.replayed_segments);
        replayed_late += fast.replayed_segments - alone.replayed_segments;
      }
    }
    CHECK(replayed_late > 0);
  }
}

namespace {
std::string test_model(const std::string& name) { return std::string(ROOFSIM_TEST_MODELS_DIR) + "/" + name + ".toml"; }
}  // namespace

TEST_CASE("layer replay is exact for the 2026 architectures: dense first layers, MLA, shared experts, sliding and global "
          "layers, parallel blocks, biases and QK norm",
          "[systemc][fast_path][architectures]") {
  // A dense first layer, then MoE layers with latent attention and shared experts (grouped
  // experts in prefill, one op per expert in decode).
  Experiment e = short_run("h100_sxm5", test_model("mla-moe-small"));
  check_exact(e);
  e.ep = 2;
  e.tp = 2;
  e.batch = 4;
  check_exact(e);
  // Sliding and global layers alternate (a context beyond the window in decode).
  e = short_run("h100_sxm5", test_model("bias-qknorm-small"));
  e.prompt = 200;
  check_exact(e);
  e = short_run("h100_sxm5", test_model("gpt-j-parallel"));
  e.tp = 2;
  check_exact(e);
}

TEST_CASE("serving passes of an MLA MoE model (prefill and absorbed decode forms in one pass) replay exactly too", "[systemc][fast_path][architectures]") {
  Experiment e;
  e.model = test_model("mla-moe-small");
  e.tp = 2;
  const PassSimulator sim(e);
  const ForwardPass pass = mixed_pass({{6, 1, 700, false}, {1, 200, 200, true}});
  const PassOutcome slow = sim.simulate(pass), fast = sim.simulate_sampled(pass);
  CHECK(fast.seconds == slow.seconds);
  CHECK(fast.flops == slow.flops);
  CHECK(fast.bytes == slow.bytes);
  CHECK(fast.bound_s == slow.bound_s);
  CHECK(fast.events == slow.events);
  CHECK(fast.seconds >= fast.bound_s);
}
