// Energy and power from a run's events (experiment/energy.hpp, issue 52). One experiment per
// few checks: each is a short Llama-3-8B run.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "experiment/energy.hpp"
#include "experiment/hardware_json.hpp"
#include "experiment/results.hpp"
#include "serving/report.hpp"
#include "tests/serving_test_util.hpp"
#include "tests/test_util.hpp"

using namespace roofsim;
using roofsim::test::write_temp;

namespace {
Experiment short_run(const std::string& hw, std::int64_t batch) {
  Experiment e;
  e.hw = hw;
  e.model = "llama-3-8b";
  e.batch = batch;
  e.prompt = 128;
  e.generate = 8;
  return e;
}

RunEnergy energy_of(const Experiment& e) { return run_energy(run_experiment(e, test::every_op())); }
}  // namespace

TEST_CASE("a run's energy is its events at the chip's constants: static power over the time, HBM bits, the units' FLOPs",
          "[systemc][energy]") {
  const Experiment e = short_run("h100_sxm5", 1);
  const ExperimentResult r = run_experiment(e, test::every_op());
  const RunEnergy en = run_energy(r);
  REQUIRE(en.modelled);
  const EnergySpec& k = r.hw.energy;
  // Static power over the whole run, prefill and every decode step (interpolated ones too).
  CHECK(en.prefill.idle + en.decode.idle == Approx(k.static_w * r.total_s).epsilon(1e-9));
  // Every byte the simulation moved through HBM, weighted by the steps it stands for.
  double hbm_bytes = 0, padded = 0;
  for (const OpInstance& o : r.ops) {
    hbm_bytes += o.weight * static_cast<double>(o.result.bytes_read + o.result.bytes_written - o.result.onchip_bytes_read);
    if (o.op->is_gemm && !o.op->is_collective) padded += o.weight * o.result.padded_flops;
  }
  CHECK(en.prefill.hbm + en.decode.hbm == Approx(hbm_bytes * 8 * k.hbm_j_per_bit).epsilon(1e-9));
  CHECK(en.prefill.matrix + en.decode.matrix == Approx(padded * k.matrix_j_per_flop).epsilon(1e-9));  // bf16: the 16-bit rate
  // One chip, no links.
  CHECK(en.prefill.links + en.decode.links == 0);
  CHECK(en.avg_power_w == Approx(en.total_j() / r.total_s));
  CHECK(en.per_output_token_j == Approx(en.total_j() / 8));
  CHECK(en.peak_power_w >= en.avg_power_w);
  // Below the board's 700 W on average: decode at batch 1 waits on HBM.
  CHECK(en.avg_power_w > k.static_w);
  CHECK(en.avg_power_w < 700);
  // The run JSON carries it; the numbers are the same.
  const nlohmann::json j = to_json(r);
  CHECK(j.at("energy_per_token_j").get<double>() == Approx(en.per_output_token_j));
  CHECK(j.at("avg_power_w").get<double>() == Approx(en.avg_power_w));
  CHECK(j.at("energy").at("decode").at("hbm_j").get<double>() == Approx(en.decode.hbm));
}

TEST_CASE("batching spends a step's weight reads on more tokens: energy per token falls with the batch", "[systemc][energy]") {
  const RunEnergy one = energy_of(short_run("h100_sxm5", 1));
  const RunEnergy sixteen = energy_of(short_run("h100_sxm5", 16));
  CHECK(sixteen.per_output_token_j < 0.25 * one.per_output_token_j);
  CHECK(sixteen.avg_power_w > one.avg_power_w);  // more work per second at the same weight reads
}

TEST_CASE("more HBM bandwidth moves the same bits in less time: HBM energy unchanged, static energy down", "[systemc][energy]") {
  Experiment base = short_run("h100_sxm5", 1);
  Experiment fast = base;
  fast.hardware = load_hardware("h100_sxm5");
  fast.hardware->hbm.bandwidth *= 2;
  const RunEnergy a = energy_of(base), b = energy_of(fast);
  CHECK(b.prefill.hbm + b.decode.hbm == Approx(a.prefill.hbm + a.decode.hbm).epsilon(0.01));
  CHECK(b.decode.idle < 0.75 * a.decode.idle);
  CHECK(b.per_output_token_j < a.per_output_token_j);
}

TEST_CASE("near-memory GEMVs read their banks without the chip's I/O: less energy per token than the same H100", "[systemc][energy]") {
  const RunEnergy h100 = energy_of(short_run("h100_sxm5", 1));
  const RunEnergy pim = energy_of(short_run("h100_pim", 1));
  CHECK(pim.decode.near_memory > 0);
  CHECK(pim.decode.hbm < 0.5 * h100.decode.hbm);
  CHECK(pim.per_output_token_j < h100.per_output_token_j);
}

TEST_CASE("tensor parallelism: every chip's static power, the links' bits", "[systemc][energy]") {
  Experiment e = short_run("h100_sxm5", 1);
  e.tp = 2;
  const ExperimentResult r = run_experiment(e, test::every_op());
  const RunEnergy en = run_energy(r);
  CHECK(en.prefill.idle + en.decode.idle == Approx(2 * r.hw.energy.static_w * r.total_s).epsilon(1e-9));
  CHECK(en.decode.links > 0);
  CHECK(en.avg_power_w == Approx(en.total_j() / r.total_s / 2));
}

TEST_CASE("a chip without [energy] reports none, and the table's values are checked as read", "[systemc][energy]") {
  const ExperimentResult r = run_experiment(short_run("tpu_v4", 1), test::every_op());
  CHECK_FALSE(run_energy(r).modelled);
  const nlohmann::json j = to_json(r);
  CHECK(j.at("energy_per_token_j").is_null());
  CHECK(j.at("avg_power_w").is_null());
  // A negative energy names the key; a missing required one is named.
  const std::string head = "base = \"tpu_v4\"\n[energy]\n";
  CHECK_THROWS_WITH(load_hardware(write_temp(head + "static_w = 70\nmatrix_pj_per_flop = -1\nvector_pj_per_flop = 1\nhbm_pj_per_bit = 4\n", "hw")),
                    Catch::Contains("matrix_pj_per_flop"));
  CHECK_THROWS_WITH(load_hardware(write_temp(head + "static_w = 70\n", "hw")), Catch::Contains("matrix_pj_per_flop"));
  // With one, a TPU reports its energy too.
  Experiment e = short_run("tpu_v4", 1);
  e.hardware = load_hardware(write_temp(head + "static_w = 90\nmatrix_pj_per_flop = 1\nvector_pj_per_flop = 3\nhbm_pj_per_bit = 4\n", "hw"));
  CHECK(energy_of(e).modelled);
}

TEST_CASE("a serving run's energy: every iteration's pass and every chip's static power over the run, and less per token with more clients",
          "[systemc][energy]") {
  ServingSetup s = roofsim::test::serving_setup(24, 2, "128", "16");
  const ServingResult two = run_serving(s);
  const ServingSummary& m = two.summary;
  REQUIRE(m.energy_modelled);
  // At least the static power over the iterations' span, at most the board's TDP on average.
  double begin = 1e300, end = 0, dynamic = 0;
  for (const IterationRecord& it : two.iterations) {
    begin = std::min(begin, it.start_s);
    end = std::max(end, it.start_s + it.seconds);
    dynamic += two.shapes[static_cast<std::size_t>(it.shape)].outcome.energy_j;
  }
  CHECK(dynamic > 0);
  CHECK(m.energy_j == Approx(dynamic + two.hw.energy.static_w * (end - begin)));
  CHECK(m.avg_power_w > two.hw.energy.static_w);
  CHECK(m.avg_power_w < 700);
  CHECK(m.energy_per_output_token_j == Approx(m.energy_j / (24 * 16)));
  const nlohmann::json j = serving_json(two);
  CHECK(j.at("summary").at("energy_per_token_j").get<double>() == Approx(m.energy_per_output_token_j));
  // Eight clients share each step's weight reads: less energy per token.
  s.workload.arrivals.concurrency = 8;
  CHECK(run_serving(s).summary.energy_per_output_token_j < 0.6 * m.energy_per_output_token_j);
}

TEST_CASE("the power limit holds the matrix clock where full-rate MMAs would pass the TDP: a third roof", "[systemc][energy]") {
  const HardwareSpec h100 = load_hardware("h100_sxm5");
  // As shipped the limit allows more than the fitted sustained clock: not power-bound.
  CHECK(h100.energy.power_limited_clock_hz == 0);
  CHECK(h100.matrix.sustained_clock_hz == Approx(1410e6));
  const double roof = h100.power_roof_flops(DType::bf16);
  CHECK(roof == Approx((h100.energy.tdp_w - h100.energy.static_w) / h100.energy.matrix_j_per_flop));
  CHECK(h100.power_roof_flops(DType::fp8) == Approx(2 * roof));  // twice the rate at the same power per clock
  // Twice the MACs per clock at the same energy per FLOP: the TDP holds the clock where the
  // units at full rate draw what it allows, so they run at the power roof.
  const HardwareSpec wide = load_hardware(write_temp("base = \"h100_sxm5\"\n[matrix]\nmacs_per_clock = 4096\n", "hw"));
  REQUIRE(wide.energy.power_limited_clock_hz > 0);
  CHECK(wide.energy.unlimited_clock_hz == Approx(1410e6));
  CHECK(wide.matrix.sustained_clock_hz == wide.energy.power_limited_clock_hz);
  const double full_rate = static_cast<double>(wide.matrix.units) * wide.matrix.macs_per_clock * 2 * wide.matrix.sustained_clock_hz;
  CHECK(full_rate == Approx(roof));
  // A compute-bound prefill gains what the power roof allows, not twice.
  Experiment e;
  e.batch = 4;
  e.prompt = 2048;
  e.generate = 1;
  Experiment more = e;
  more.hardware = wide;
  const double base = run_experiment(e, test::every_op()).ttft_s, wider = run_experiment(more, test::every_op()).ttft_s;
  CHECK(base / wider < 1.15);
  CHECK(base / wider > 1.0);
  const nlohmann::json j = to_json(run_experiment(more, test::every_op()));
  CHECK(j.at("power_bound").get<bool>());
  CHECK(j.at("power_limited_clock_mhz").get<double>() == Approx(wide.energy.power_limited_clock_hz / 1e6));
  // The chip's description keeps the fitted clock, not the capped one: a file written from it and
  // read again meets the same limit, and one with the TDP raised runs at the fitted clock.
  CHECK(hardware_json(wide).at("parameters").at("matrix.sustained_clock_mhz").get<double>() == Approx(1410));
  // A limit at or under the idle power is refused, naming the key.
  CHECK_THROWS_WITH(load_hardware(write_temp("base = \"h100_sxm5\"\n[energy]\ntdp_w = 50\n", "hw")), Catch::Contains("tdp_w"));
}

TEST_CASE("a speculative serving run counts its draft passes' energy beside the target passes'", "[systemc][energy]") {
  ServingSetup s = roofsim::test::serving_setup(16, 4, "128", "16");
  s.speculative.tokens = 2;
  const ServingResult r = run_serving(s);
  double begin = 1e300, end = 0, target = 0, drafts = 0;
  for (const IterationRecord& it : r.iterations) {
    begin = std::min(begin, it.start_s);
    end = std::max(end, it.start_s + it.seconds);
    target += r.shapes[static_cast<std::size_t>(it.shape)].outcome.energy_j;
    drafts += it.draft_energy_j;
  }
  CHECK(drafts > 0);
  CHECK(r.summary.energy_j == Approx(target + drafts + r.hw.energy.static_w * (end - begin)));
}

TEST_CASE("each op's dynamic energy, summed over layers and steps, adds up to the run's", "[systemc][energy]") {
  const ExperimentResult r = run_experiment(short_run("h100_sxm5", 2), test::every_op());
  const RunEnergy en = run_energy(r);
  double ops = 0;
  for (const OpSummary& o : summarize_ops(r)) ops += o.energy_j;
  // One chip: no links, so the ops' dynamic energy is all of it.
  CHECK(ops == Approx(en.prefill.dynamic() + en.decode.dynamic()).epsilon(1e-9));
  CHECK(to_json(r).at("ops").at(0).at("energy_j").get<double>() > 0);
}
