// A chip's silicon area and cost (core/chip_area.hpp) and a run's throughput per mm2 and per
// dollar (experiment/silicon.hpp; issue 52).
#include <catch2/catch.hpp>

#include <cmath>

#include "core/chip_area.hpp"
#include "core/error.hpp"
#include "experiment/results.hpp"
#include "experiment/silicon.hpp"
#include "tests/test_util.hpp"

using namespace roofsim;
using roofsim::test::write_temp;

TEST_CASE("a die's area is its units' areas: the H100 preset closes on GH100's 814 mm2, and doubling the MACs grows the tensor cores alone",
          "[systemc][area]") {
  HardwareSpec h = load_hardware("h100_sxm5");
  const AreaParts a = chip_area(h);
  CHECK(a.total() == Approx(814).margin(0.5));
  CHECK(a.matrix == Approx(132 * 2048 * 183.4e-6));
  CHECK(a.hbm_interface == Approx(5 * 14.45));
  CHECK(a.link_interface == Approx(18 * 1.59));
  // The H200 is the same die: the sixth HBM site and 10 MiB more L2 enabled.
  CHECK(chip_area(load_hardware("h200_sxm")).total() == Approx(814).margin(0.5));
  CHECK(chip_area(load_hardware("a100_sxm4_80gb")).total() == Approx(826).margin(0.5));
  h.matrix.macs_per_clock *= 2;
  const AreaParts doubled = chip_area(h);
  CHECK(doubled.matrix == Approx(2 * a.matrix));
  CHECK(doubled.total() - a.total() == Approx(a.matrix));
  // A chip without [area] has none.
  CHECK(chip_area(load_hardware("tpu_v4")).total() == 0);
  CHECK_FALSE(chip_cost(load_hardware("tpu_v4")).modelled);
}

TEST_CASE("a die costs its share of a wafer over its yield, plus its HBM", "[systemc][area]") {
  const HardwareSpec h = load_hardware("h100_sxm5");
  const ChipCost c = chip_cost(h);
  REQUIRE(c.modelled);
  // 814 mm2 on a 300 mm wafer: 86.8 sites less 23.4 along the edge.
  CHECK(c.dies_per_wafer == 63);
  // Negative binomial, 0.2 defects per cm2, clustering 3.
  CHECK(c.yield == Approx(std::pow(1 + 814 * 0.002 / 3, -3)).epsilon(1e-3));
  CHECK(c.die_usd == Approx(16988 / (63 * c.yield)));
  CHECK(c.hbm_usd == Approx(80 * 7));
  CHECK(c.total_usd() == Approx(c.die_usd + c.hbm_usd));
  // A bigger die: fewer per wafer, each less likely whole, so its cost grows faster than its area.
  HardwareSpec big = h;
  big.area.other_mm2 += 400;
  const ChipCost b = chip_cost(big);
  CHECK(b.die_usd / c.die_usd > chip_area(big).total() / chip_area(h).total());
}

TEST_CASE("the area and cost tables are checked as read: a cost without an area, a negative size, a die larger than the wafer", "[systemc][area]") {
  const std::string base = "base = \"tpu_v4\"\n";
  const std::string area = "[area]\nmatrix_um2_per_mac = 200\nvector_um2_per_flop = 500\nunit_overhead_mm2 = 2\nsram_mm2_per_mib = 2\nhbm_interface_mm2 = 15\n";
  const std::string cost = "[cost]\nwafer_usd = 10000\ndefect_density_per_cm2 = 0.1\nhbm_usd_per_gb = 7\n";
  CHECK(chip_area(load_hardware(write_temp(base + area, "hw"))).total() > 0);
  CHECK_THROWS_WITH(load_hardware(write_temp(base + cost, "hw")), Catch::Contains("add [area]"));
  CHECK_THROWS_WITH(load_hardware(write_temp(base + area + "other_mm2 = -5\n", "hw")), Catch::Contains("other_mm2"));
  CHECK_THROWS_WITH(load_hardware(write_temp(base + "[area]\nmatrix_um2_per_mac = 200\n", "hw")), Catch::Contains("vector_um2_per_flop"));
  // A die of more than the wafer is no chip to price: not priced, and why, where the run's other
  // results stand.
  const HardwareSpec huge = load_hardware(write_temp(base + area + "other_mm2 = 60000\n" + cost, "hw"));
  const ChipCost none = chip_cost(huge);
  CHECK_FALSE(none.modelled);
  CHECK_THAT(none.not_priced, Catch::Contains("does not fit a 300 mm wafer"));
}

TEST_CASE("a run reports its tokens/s per mm2 and per 1,000 USD of its chips, null without [area]", "[systemc][area]") {
  Experiment e;
  e.hw = "h100_sxm5";
  e.model = "llama-3-8b";
  e.prompt = 128;
  e.generate = 8;
  const ExperimentResult r = run_experiment(e, RunControl{});
  const RunSilicon s = run_silicon(r);
  REQUIRE(s.cost_modelled);
  CHECK(s.tokens_per_s_per_mm2 == Approx(r.throughput_tok_s() / chip_area(r.hw).total()));
  CHECK(s.tokens_per_s_per_kusd == Approx(r.throughput_tok_s() / (chip_cost(r.hw).total_usd() / 1000)));
  const nlohmann::json j = to_json(r);
  CHECK(j.at("chip_area_mm2").get<double>() == Approx(814).margin(0.5));
  CHECK(j.at("tokens_per_s_per_kusd").get<double>() == Approx(s.tokens_per_s_per_kusd));
  // Two chips of tensor parallelism: twice the silicon for the same batch.
  e.tp = 2;
  const RunSilicon two = run_silicon(run_experiment(e, RunControl{}));
  CHECK(two.chips == 2);
  CHECK(two.tokens_per_s_per_mm2 < s.tokens_per_s_per_mm2);
  e.tp = 1;
  e.hw = "tpu_v4";
  const nlohmann::json tpu = to_json(run_experiment(e, RunControl{}));
  CHECK(tpu.at("chip_area_mm2").is_null());
  CHECK(tpu.at("tokens_per_s_per_kusd").is_null());
}
