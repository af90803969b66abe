// Inference experiments on the simulated chip. One experiment per test case (one process).
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "experiment/inference.hpp"
#include "experiment/public_cases.hpp"
#include "tests/test_util.hpp"

using namespace roofsim;

namespace {
Experiment llama3(std::int64_t batch, std::int64_t prompt, std::int64_t gen) {
  Experiment e;
  e.model = "llama-3-8b";
  e.batch = batch;
  e.prompt = prompt;
  e.generate = gen;
  return e;
}
}  // namespace

TEST_CASE("decode never beats its speed of light, and nothing beats its bound", "[systemc][inference]") {
  ExperimentResult r = run_experiment(llama3(4, 512, 16), test::every_op());
  CHECK(r.tpot_s >= r.decode_speed_of_light_s);
  CHECK(r.tpot_s >= r.bound_tpot_s);
  CHECK(r.ttft_s >= r.bound_ttft_s);
  for (const OpInstance& o : r.ops) {
    INFO(o.op->name << " step " << o.step);
    CHECK(o.result.seconds() >= o.bound.bound_time_s);
    // Invariant 5 per op: the FLOPs simulated are the op's.
    CHECK(o.result.flops == Approx(o.bound.flops).epsilon(1e-9));
  }
}

TEST_CASE("ideal batch-1 decode is within 3% of (weights + KV) / bandwidth", "[systemc][inference]") {
  Experiment e = llama3(1, 512, 16);
  e.ideal = true;
  ExperimentResult r = run_experiment(e, test::every_op());
  CHECK(r.tpot_s >= r.decode_speed_of_light_s);
  CHECK(r.tpot_s <= 1.03 * r.decode_speed_of_light_s);
}

TEST_CASE("long-prompt prefill is compute-bound", "[systemc][inference]") {
  ExperimentResult r = run_experiment(llama3(1, 4096, 1), test::every_op());
  const double ridge = r.hw.matrix_peak_flops(DType::bf16) / r.hw.hbm.bandwidth;
  CHECK(r.prefill_flops / r.prefill_bytes > ridge);
  double compute_bound_time = 0, total = 0;
  for (const OpInstance& o : r.ops) {
    total += o.result.seconds();
    if (o.bound.roof == Roof::compute) compute_bound_time += o.result.seconds();
  }
  CHECK(compute_bound_time > 0.8 * total);
}

TEST_CASE("a model that does not fit is refused before simulating", "[systemc][inference]") {
  Experiment e;
  e.model = "llama-2-70b";
  CHECK_THROWS_WITH(run_experiment(e, test::every_op()),
                    Catch::Contains("does not fit") && Catch::Contains("needs 138") && Catch::Contains("HBM holds 80.00 GB"));
}

TEST_CASE("a run keeps its first steps' op records and sums every step as it ends", "[systemc][inference]") {
  Experiment e = llama3(2, 128, 24);
  e.decode_stride = 1;
  const ExperimentResult all = run_experiment(e, test::every_op());
  const ExperimentResult r = run_experiment(e, RunControl{});
  // Prefill and the first decode step are kept, graphs and records; the later steps' graphs
  // went once their step was taken.
  CHECK(r.ops.size() == r.graphs[0].size() + r.graphs[1].size());
  CHECK(all.ops.size() > r.ops.size());
  CHECK(r.graphs.size() == all.graphs.size());
  CHECK(r.graphs[5].size() == 0);
  CHECK(all.graphs[5].size() > 0);
  // The tables and figures are the same either way, to the bit.
  CHECK(r.ttft_s == all.ttft_s);
  CHECK(r.tpot_s == all.tpot_s);
  REQUIRE(r.op_summaries.size() == all.op_summaries.size());
  for (std::size_t i = 0; i < r.op_summaries.size(); ++i) {
    CHECK(r.op_summaries[i].name == all.op_summaries[i].name);
    CHECK(r.op_summaries[i].count == all.op_summaries[i].count);
    CHECK(r.op_summaries[i].sim_s == all.op_summaries[i].sim_s);
    CHECK(r.op_summaries[i].shape == all.op_summaries[i].shape);
  }
  // The summaries do sum every step: the decode attention's count is the 23 decode steps.
  bool found = false;
  for (const OpSummary& s : r.op_summaries) {
    if (s.phase != "decode" || s.name != "attention") continue;
    found = true;
    CHECK(s.count == Approx(23.0 * static_cast<double>(r.model.layers)));
  }
  CHECK(found);
}

TEST_CASE("interpolated decode steps agree with simulating every step", "[systemc][inference]") {
  // Two experiments in one process is not possible (SystemC), so compare a strided run with
  // the closed-form property it relies on: step times are linear in the context length.
  Experiment e = llama3(8, 256, 65);
  e.decode_stride = 1;
  ExperimentResult r = run_experiment(e, test::every_op());
  std::vector<double> step_time(r.simulated_steps.size(), 0.0);
  for (std::size_t i = 1; i < r.simulated_steps.size(); ++i) {
    double start = 1e30, end = 0;
    for (const OpInstance& o : r.ops) {
      if (o.step != r.simulated_steps[i]) continue;
      start = std::min(start, to_seconds(o.result.start_ps));
      end = std::max(end, to_seconds(o.result.end_ps));
    }
    step_time[i] = end - start;
  }
  // What a strided run reports is the decode time: the sum of the steps. Linear interpolation
  // between every 16th step gives each 16-step window's sum within 0.5%. Single steps are not
  // that smooth: decode attention splits each sequence's keys into XQA's blocks, and the
  // steps' times alternate by about 1.2% as the blocks' edges move through memory.
  for (std::size_t lo = 1; lo + 16 < step_time.size(); lo += 16) {
    double simulated = 0, interpolated = 0;
    for (std::size_t i = lo; i < lo + 16; ++i) {
      const double t = static_cast<double>(i - lo) / 16.0;
      simulated += step_time[i];
      interpolated += (1 - t) * step_time[lo] + t * step_time[lo + 16];
    }
    CHECK(interpolated == Approx(simulated).epsilon(0.005));
  }
}

TEST_CASE("Llama-2-70B with TP 8 on 8 x H100: fits per chip, pays for its all-reduces, never beats its bound", "[systemc][parallel]") {
  Experiment e;
  e.model = "llama-2-70b";
  e.tp = 8;
  e.prompt = 256;
  e.generate = 8;
  ExperimentResult r = run_experiment(e, test::every_op());
  CHECK(r.topology == "switch:8");
  CHECK(r.memory.weights == Approx(r.model.total_params() * 2 / 8));
  CHECK(r.ttft_s >= r.bound_ttft_s);
  CHECK(r.tpot_s >= r.bound_tpot_s);
  CHECK(r.tpot_s >= r.decode_speed_of_light_s);
  CHECK(r.prefill_comm_s > 0);
  CHECK(r.decode_comm_s > 0);
  CHECK(r.decode_exposed_comm_s <= r.decode_comm_s + 1e-12);
  double link_bytes = 0;
  for (const auto& l : r.links) link_bytes += static_cast<double>(l.bytes);
  CHECK(link_bytes > 0);
  for (const OpInstance& o : r.ops) CHECK(o.result.seconds() >= o.bound.bound_time_s * (1 - 1e-9));
}

TEST_CASE("PaLM-540B on a 4x4x3 TPU v4 slice with int8 weights: prefill and decode", "[systemc][parallel]") {
  Experiment e;
  e.hw = "tpu_v4";
  e.model = "palm-540b";
  e.tp = 48;  // its 48 heads, one per chip
  e.topology = "4x4x3";
  e.batch = 4;
  e.prompt = 512;
  e.generate = 8;
  e.precision.weights = DType::int8;
  ExperimentResult r = run_experiment(e, test::every_op());
  CHECK(r.topology == "4x4x3");
  CHECK(r.memory.total() <= r.hw.hbm.capacity_bytes);
  CHECK(r.ttft_s >= r.bound_ttft_s);
  CHECK(r.tpot_s >= r.bound_tpot_s);
  CHECK(r.prefill_comm_s > 0);
  // int8 weights: half the bytes of bf16 for every linear layer on every chip.
  CHECK(r.memory.weights == Approx(r.model.total_params() / 48));
}

TEST_CASE("Llama-2-70B with TP 4 x PP 2 on 8 x H100: stages send activations, micro-batches pipeline", "[systemc][parallel]") {
  Experiment e;
  e.model = "llama-2-70b";
  e.tp = 4;
  e.pp = 2;
  e.batch = 8;
  e.prompt = 128;
  e.generate = 4;
  ExperimentResult r = run_experiment(e, test::every_op());
  CHECK(r.topology == "switch:8");
  // Each chip holds a quarter of a stage's half of the layers.
  CHECK(r.memory.weights == Approx(r.model.total_params() * 2 / 8).epsilon(0.02));
  CHECK(r.ttft_s >= r.bound_ttft_s);
  CHECK(r.tpot_s >= r.bound_tpot_s);
  int sends = 0;
  for (const OpInstance& o : r.ops) {
    if (o.op->send_to_next) {
      ++sends;
      CHECK(o.result.seconds() > 0);
    }
    CHECK(o.result.seconds() >= o.bound.bound_time_s * (1 - 1e-9));
  }
  CHECK(sends == 2 * 4);  // one per micro-batch per simulated step (prefill + 3 decode steps)
}

TEST_CASE("Mixtral-8x7B with expert parallelism over 8 x H100: all-to-alls to the experts and back", "[systemc][parallel]") {
  Experiment e;
  e.model = "mixtral-8x7b";
  e.ep = 8;
  e.batch = 16;
  e.prompt = 128;
  e.generate = 4;
  ExperimentResult r = run_experiment(e, test::every_op());
  // One expert per chip plus every replicated weight.
  const double experts = static_cast<double>(r.model.layers * r.model.experts) * r.model.mlp_params_per_expert();
  CHECK(r.memory.weights == Approx((r.model.total_params() - experts * 7 / 8) * 2));
  int all_to_alls = 0;
  for (const OpInstance& o : r.ops) {
    all_to_alls += o.op->all_to_all;
    CHECK(o.result.seconds() >= o.bound.bound_time_s * (1 - 1e-9));
  }
  CHECK(all_to_alls == 2 * 32 * 4);  // dispatch and combine, every layer, every simulated step
  CHECK(r.ttft_s >= r.bound_ttft_s);
  CHECK(r.tpot_s >= r.bound_tpot_s);
  CHECK(r.decode_comm_s > 0);
}

TEST_CASE("Mixtral-8x7B with TP 2 x EP 4 on 8 x H100: experts split 8 ways, attention 2 ways, every group communicates", "[systemc][parallel]") {
  Experiment e;
  e.model = "mixtral-8x7b";
  e.tp = 2;
  e.ep = 4;
  e.batch = 8;
  e.prompt = 128;
  e.generate = 4;
  ExperimentResult r = run_experiment(e, test::every_op());
  CHECK(r.topology == "switch:8");
  // Every non-expert weight (attention, router, embeddings) over the TP group; the experts
  // over TP x EP = 8 chips.
  const double experts = static_cast<double>(r.model.layers * r.model.experts) * r.model.mlp_params_per_expert();
  CHECK(r.memory.weights == Approx(((r.model.total_params() - experts) / 2 + experts / 8) * 2));
  int all_to_alls = 0, all_reduces = 0;
  for (const OpInstance& o : r.ops) {
    all_to_alls += o.op->all_to_all;
    all_reduces += o.op->is_collective && !o.op->all_to_all && !o.op->send_to_next;
    CHECK(o.result.seconds() >= o.bound.bound_time_s * (1 - 1e-9));
  }
  CHECK(all_to_alls == 2 * 32 * 4);  // dispatch and combine, every layer, every simulated step
  CHECK(all_reduces == 2 * 32 * 4);  // after attention and after the experts
  CHECK(r.ttft_s >= r.bound_ttft_s);
  CHECK(r.tpot_s >= r.bound_tpot_s);
  // The four TP groups' all-reduces and the two EP groups' all-to-alls all ran: every port
  // carried data, and the same amount.
  REQUIRE(r.links.size() == 16);
  for (const auto& l : r.links) CHECK(l.bytes == r.links[0].bytes);
  CHECK(r.links[0].bytes > 0);
}

TEST_CASE("Llama-2-7B with TP 4 x PP 2 on a 4x2 TPU v4 torus: x rings all-reduce, sends cross y links", "[systemc][parallel]") {
  Experiment e;
  e.hw = "tpu_v4";
  e.model = "llama-2-7b";
  e.tp = 4;
  e.pp = 2;
  e.topology = "4x2";
  e.prompt = 256;
  e.generate = 4;
  ExperimentResult r = run_experiment(e, test::every_op());
  CHECK(r.topology == "4x2");
  CHECK(r.ttft_s >= r.bound_ttft_s);
  CHECK(r.tpot_s >= r.bound_tpot_s);
  int sends = 0;
  for (const OpInstance& o : r.ops) {
    sends += o.op->send_to_next;
    CHECK(o.result.seconds() >= o.bound.bound_time_s * (1 - 1e-9));
  }
  CHECK(sends == 4);  // batch 1: one micro-batch, one send per simulated step
  for (const auto& l : r.links) {
    INFO(l.name);
    // Stage 0 (chips 0-3) sends to stage 1 (chips 4-7) over y+; nothing goes back.
    const int chip = std::stoi(l.name.substr(4));
    if (l.name.find("y+") != std::string::npos) CHECK((l.bytes > 0) == (chip < 4));
    if (l.name.find("y-") != std::string::npos) CHECK(l.bytes == 0);
    if (l.name.find('x') != std::string::npos) CHECK(l.bytes > 0);
  }
}

TEST_CASE("near-memory compute: ideal batch-1 decode approaches the internal-bandwidth bound", "[systemc][near_memory]") {
  Experiment e = llama3(1, 256, 8);
  e.hw = "h100_pim";
  e.ideal = true;
  ExperimentResult r = run_experiment(e, test::every_op());
  CHECK(r.tpot_s >= r.bound_tpot_s);
  CHECK(r.tpot_s <= 1.10 * r.bound_tpot_s);
  // The bound is set by the bandwidth inside the stacks: far below the speed of light of the
  // same chip with its near-memory units off (every weight across the HBM interface), and the
  // speed of light, which reads the units' weights inside, is not above it.
  Experiment off = e;
  off.near_memory = NearMemory::off;
  const ExperimentResult hbm_only = run_experiment(off, test::every_op());
  CHECK(r.bound_tpot_s < 0.4 * hbm_only.decode_speed_of_light_s);
  CHECK(r.decode_speed_of_light_s <= r.bound_tpot_s * (1 + 1e-9));
  CHECK(r.decode_speed_of_light_s < 0.4 * hbm_only.decode_speed_of_light_s);
  int near = 0;
  for (const OpInstance& o : r.ops) {
    near += o.result.near_memory;
    CHECK(o.result.seconds() >= o.bound.bound_time_s * (1 - 1e-9));
  }
  CHECK(near > 0);
}

// Found by fuzz_user_cases (fuzz/regressions/user_cases/): a reference beyond a double escaped
// as std::out_of_range. (This binary links the experiment library; nothing is simulated.)
TEST_CASE("a case table's reference beyond a double is refused naming file, line and column", "[systemc][cases]") {
  const std::string path = test::write_temp(
      "id,hw,model,batch,prompt,generate,weights,activations,kv,launch,metric,reference,unit\n"
      "X,h100_sxm5,llama-3-8b,1,8,8,bf16,bf16,bf16,graph,throughput,1e999,tok/s\n",
      "cases");
  CHECK_THROWS_AS(load_user_cases(path), ConfigError);
  CHECK_THROWS_WITH(load_user_cases(path), Catch::StartsWith(path + ":2: reference: the number in '1e999' is out of range"));
  CHECK_THROWS_WITH(first_number("~1e-999"), Catch::Contains("out of range"));
  CHECK(first_number("~370") == 370);
}

// Found by fuzz_user_cases (fuzz/regressions/user_cases/model-name-too-long.csv): a hardware or
// model name longer than a file name may be made std::filesystem throw (ENAMETOOLONG) when it was
// looked up as a preset, which reached the CLI as an internal error.
TEST_CASE("a case table's names too long for a file are unknown presets at their row", "[systemc][cases]") {
  const std::string longname(300, 'a');
  for (const std::string& cells : {longname + ",llama-3-8b", "h100_sxm5," + longname, "h100_sxm5," + longname + "/x.toml"}) {
    const std::string path = test::write_temp(
        "id,hw,model,batch,prompt,generate,weights,activations,kv,launch,metric,reference,unit\n"
        "X," + cells + ",1,8,8,bf16,bf16,bf16,graph,throughput,100,tok/s\n",
        "cases");
    CHECK_THROWS_AS(load_user_cases(path), InputError);
    CHECK_THROWS_WITH(load_user_cases(path), Catch::StartsWith(path + ":2: "));
  }
}

TEST_CASE("default topologies follow links.fabric: a mesh for MI300X, a switch for B200, a torus for TPUs", "[systemc][inference]") {
  CHECK(default_topology(load_hardware("mi300x"), 8, 8) == "mesh:8");
  CHECK(default_topology(load_hardware("mi300x"), 4, 4) == "mesh:4");
  CHECK(default_topology(load_hardware("b200"), 8, 8) == "switch:8");
  CHECK(default_topology(load_hardware("gb200_nvl72"), 72, 72) == "switch:72");
  CHECK(default_topology(load_hardware("tpu_v6e"), 4, 4) == "2x2");
  CHECK(default_topology(load_hardware("tpu_v4"), 8, 4) == "2x2x2");
}

TEST_CASE("nvfp4 weights on B200: 4.5 bits a weight, and decode of Llama-3-70B takes under half bf16's time", "[systemc][inference]") {
  Experiment e = llama3(1, 128, 4);
  e.model = "llama-3-70b";
  e.hw = "b200";
  ExperimentResult bf16 = run_experiment(e, test::every_op());
  e.precision.weights = DType::nvfp4;
  ExperimentResult fp4 = run_experiment(e, test::every_op());
  // Every 16 weights carry one E4M3 scale: 72 bits per 16.
  CHECK(fp4.memory.weights == Approx(fp4.model.total_params() * 4.5 / 8).epsilon(1e-6));
  CHECK(fp4.tpot_s >= fp4.decode_speed_of_light_s);
  CHECK(fp4.tpot_s >= fp4.bound_tpot_s);
  for (const OpInstance& o : fp4.ops) {
    INFO(o.op->name << " step " << o.step);
    CHECK(o.result.seconds() >= o.bound.bound_time_s);
  }
  // Decode at batch 1 is mostly the weights: 16/4.5 = 3.6x fewer bytes (each op's fixed
  // start and drain stays: Llama-3-8B, with smaller ops, gets 0.58x).
  CHECK(fp4.tpot_s < 0.5 * bf16.tpot_s);
}

TEST_CASE("fp4 activations need a rate for them: B200 computes in nvfp4, H100 refuses naming the flag and chip", "[systemc][inference]") {
  Experiment e = llama3(1, 128, 2);
  e.precision.activations = DType::nvfp4;
  e.precision.weights = DType::nvfp4;
  CHECK_THROWS_WITH(run_experiment(e, test::every_op()), Catch::Contains("activations_dtype nvfp4: the matrix units of h100_sxm5 do not compute in it"));
  e.hw = "b200";
  ExperimentResult r = run_experiment(e, test::every_op());
  CHECK(r.ttft_s >= r.bound_ttft_s);
  // The matmuls' bound uses the fp4 peak (9 PFLOP/s), four times bf16's.
  CHECK(peak_flops(r.hw, DType::nvfp4) == Approx(4 * peak_flops(r.hw, DType::bf16)));
}
