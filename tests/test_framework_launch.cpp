// How a framework runs a model on the chips: which steps the host launches op by op
// (Experiment::launch) and which all-reduce kernel tensor parallelism uses (Experiment::allreduce).
#include <catch2/catch.hpp>

#include "components/collectives.hpp"
#include "core/error.hpp"
#include "experiment/experiment_settings.hpp"
#include "experiment/stack.hpp"
#include "tests/test_util.hpp"

using namespace roofsim;
using namespace roofsim::test;

namespace {

// A short run whose host is slow enough to show: 50 us per launched op.
Experiment slow_host_run(Launch launch) {
  Experiment e;
  e.model = "llama-2-7b";
  e.prompt = 128;
  e.generate = 3;
  HardwareSpec hw = load_hardware("h100_sxm5");
  hw.host_launch_interval_s = 50e-6;
  e.hardware = hw;
  e.launch = launch;
  return e;
}

double allreduce_seconds(const ExperimentResult& r, int step, std::string& plan) {
  double total = 0;
  for (const OpInstance& o : r.ops) {
    if (o.step != step || !o.op->is_collective) continue;
    total += o.result.seconds();
    plan = o.result.plan;
  }
  return total;
}

}  // namespace

TEST_CASE("prefill_per_op launches the steps that hold a prefill op by op and decode steps as a graph", "[systemc][launch]") {
  const ExperimentResult graph = run_experiment(slow_host_run(Launch::graph), test::every_op());
  const ExperimentResult per_op = run_experiment(slow_host_run(Launch::per_op), test::every_op());
  const ExperimentResult mixed = run_experiment(slow_host_run(Launch::prefill_per_op), test::every_op());
  // About 350 ops at 50 us: the host, not the GPU, sets the prefill's time when launching per op.
  CHECK(per_op.ttft_s > graph.ttft_s * 1.5);
  CHECK(mixed.ttft_s == per_op.ttft_s);
  CHECK(mixed.tpot_s == graph.tpot_s);
  CHECK(per_op.tpot_s > graph.tpot_s);
  CHECK(mixed.launched_per_op == std::vector<bool>{true, false, false});

  // Serving passes: the same rule per iteration (a prefill chunk in it or not).
  Experiment graph_machine = slow_host_run(Launch::graph), mixed_machine = slow_host_run(Launch::prefill_per_op);
  const PassSimulator g(graph_machine), m(mixed_machine);
  const ForwardPass decodes = mixed_pass({{8, 1, 300, false}});
  const ForwardPass with_prefill = mixed_pass({{1, 128, 128, true}, {8, 1, 300, false}});
  CHECK(m.simulate_sampled(decodes).seconds == g.simulate_sampled(decodes).seconds);
  CHECK(m.simulate_sampled(with_prefill).seconds > 1.5 * g.simulate_sampled(with_prefill).seconds);
}

TEST_CASE("a framework's own all-reduce kernel runs where it takes the group, NCCL's choice elsewhere", "[systemc][launch]") {
  const std::vector<int> all{0, 1, 2, 3, 4, 5, 6, 7};
  CHECK(framework_algo(parse_topology("switch:8"), CollectiveKind::allreduce, all, "trtllm_custom").name == "trtllm_custom");
  CHECK(framework_algo(parse_topology("switch:8"), CollectiveKind::allreduce, all, "").name == "nccl");
  CHECK(framework_algo(parse_topology("switch:8"), CollectiveKind::allreduce, all, "nccl").name == "nccl");
  // Not on a switch (a ring of links): the custom kernel cannot run, the default does.
  const Topology ring = parse_topology("8");
  CHECK(framework_algo(ring, CollectiveKind::allreduce, all, "trtllm_custom").name == default_algo(ring, CollectiveKind::allreduce, all).name);
  // Only all-reduces: an all-to-all keeps its own algorithm.
  CHECK(framework_algo(parse_topology("switch:8"), CollectiveKind::alltoall, all, "trtllm_custom").name ==
        default_algo(parse_topology("switch:8"), CollectiveKind::alltoall, all).name);

  // Decode at TP 8: 64 KiB all-reduces, where TensorRT-LLM's one-shot kernel (about 5 us
  // measured, custom_allreduce_trtllm.csv) beats NCCL's (about 16 us).
  Experiment e;
  e.model = "llama-3-8b";
  e.tp = 8;
  e.batch = 8;
  e.prompt = 256;
  e.generate = 2;
  const ExperimentResult nccl = run_experiment(e, test::every_op());
  e.allreduce = "trtllm_custom";
  const ExperimentResult custom = run_experiment(e, test::every_op());
  std::string nccl_plan, custom_plan;
  const double nccl_s = allreduce_seconds(nccl, 1, nccl_plan), custom_s = allreduce_seconds(custom, 1, custom_plan);
  CHECK(nccl_plan.rfind("nccl", 0) == 0);
  CHECK(custom_plan == "trtllm_custom");
  CHECK(custom_s < 0.6 * nccl_s);
  CHECK(custom.tpot_s < nccl.tpot_s);
  // No op beats its bound with the framework's kernel either.
  for (const OpInstance& o : custom.ops) CHECK(o.result.seconds() >= o.bound.bound_time_s * (1 - 1e-9));
}

TEST_CASE("the TensorRT-LLM 1.x stack launches prefill per op and all-reduces with its own kernel, bad values refused", "[systemc][launch]") {
  Experiment e;
  apply_stack(load_stack("trtllm-1.x"), e, false, false);
  CHECK(e.launch == Launch::prefill_per_op);
  CHECK(e.allreduce == "trtllm_custom");
  REQUIRE(e.hardware);
  CHECK(e.hardware->host_launch_interval_s > load_hardware("h100_sxm5").host_launch_interval_s);  // Python, not C++
  const std::string head = "[stack]\nname = \"x\"\ndescription = \"d\"\n";
  CHECK_THROWS_WITH(load_stack(write_temp(head + "allreduce = \"mpi\"\n", "stack")), Catch::Contains(":4") && Catch::Contains("allreduce"));
  CHECK_THROWS_WITH(load_stack(write_temp(head + "launch = \"eager\"\n", "stack")), Catch::Contains(":4") && Catch::Contains("prefill_per_op"));
  Experiment s;
  CHECK_THROWS_WITH(set_experiment_setting(s, "allreduce", "mpi"), Catch::Contains("allreduce") && Catch::Contains("trtllm_custom"));
  set_experiment_setting(s, "launch", "prefill_per_op");
  CHECK(s.launch == Launch::prefill_per_op);
}
