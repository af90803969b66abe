// The deployment search: layouts and concurrencies, skipped layouts, and the Pareto front of
// tokens/s per GPU against tokens/s per user. Runs use a 4-layer Llama-3-8B.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include <sstream>

#include "serving/search.hpp"
#include "sim/output.hpp"
#include "tests/test_util.hpp"

using namespace roofsim;
using namespace roofsim::test;

namespace {

// Llama-3-8B's layer (32 heads, 8 KV heads), 4 of them.
std::string small_model() {
  static const std::string path =
      write_temp(replace_once(preset_text("models", "llama-3-8b"), "layers = 32", "layers = 4"), "model");
  return path;
}

SearchSpec small_spec(std::int64_t gpus, std::vector<std::int64_t> tps, std::vector<std::int64_t> concurrencies) {
  SearchSpec spec;
  spec.base.machine.model = small_model();
  spec.base.workload.prompt = parse_length_distribution("256", "prompt");
  spec.base.workload.output = parse_length_distribution("32", "output");
  spec.gpus = gpus;
  spec.tps = std::move(tps);
  spec.concurrencies = std::move(concurrencies);
  spec.requests_per_client = 2;
  return spec;
}

SearchPoint point(double per_user, double per_gpu, bool meets = true) {
  SearchPoint p;
  p.layout = "tp1 x1";
  p.tok_s_per_user = per_user;
  p.tok_s_per_gpu = per_gpu;
  p.meets_slo = meets;
  return p;
}

bool dominates(const SearchPoint& b, const SearchPoint& a) {
  return b.tok_s_per_user >= a.tok_s_per_user && b.tok_s_per_gpu >= a.tok_s_per_gpu &&
         (b.tok_s_per_user > a.tok_s_per_user || b.tok_s_per_gpu > a.tok_s_per_gpu);
}

const SearchPoint& at(const std::vector<SearchPoint>& points, const std::string& layout, std::int64_t concurrency) {
  for (const SearchPoint& p : points) {
    if (p.layout == layout && p.concurrency == concurrency) return p;
  }
  FAIL("no point " << layout << " at " << concurrency);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("search: the Pareto front keeps the undominated points that meet the SLOs", "[systemc][serving][search]") {
  std::vector<SearchPoint> points = {
      point(10, 100),         // 0: on the front (most per GPU)
      point(20, 80),          // 1: on the front
      point(15, 70),          // 2: dominated by 1
      point(30, 200, false),  // 3: would dominate all, but misses the SLOs
      point(20, 80),          // 4: ties 1: both on the front
      point(5, 100),          // 5: as much per GPU as 0, less per user: dominated
      point(40, 60),          // 6: on the front (most per user)
      point(1000, 1000),      // 7: did not run
  };
  points[7].error = "${tp} 3 must divide the 32 attention heads";
  CHECK(pareto_front(points) == std::vector<std::size_t>{0, 1, 4, 6});
  CHECK(pareto_front({}).empty());
  CHECK(pareto_front({point(1, 1, false)}).empty());
  CHECK(pareto_front({point(1, 1)}) == std::vector<std::size_t>{0});
}

TEST_CASE("search: throughput per GPU rises and speed per user falls with concurrency, and the front is undominated",
          "[systemc][serving][search]") {
  const SearchSpec spec = small_spec(2, {1, 2}, {1, 4});
  std::vector<std::size_t> reported;
  RunControl control;
  control.progress = [&](std::size_t done, std::size_t total, const std::string&) {
    reported.push_back(done);
    CHECK(total == 4);
  };
  const std::vector<SearchPoint> points = run_search(spec, control);
  CHECK(reported == std::vector<std::size_t>{1, 2, 3, 4});
  REQUIRE(points.size() == 4);
  for (const SearchPoint& p : points) {
    INFO(p.layout << " at " << p.concurrency << ": " << p.error);
    REQUIRE(p.ok());
    CHECK(p.meets_slo);  // no SLOs set
    CHECK(p.tok_s_per_gpu == Approx(p.tok_s / 2));
    CHECK(p.requests == p.concurrency * 2);
  }
  for (const std::string layout : {"tp1 x2", "tp2 x1"}) {
    INFO(layout);
    const SearchPoint &one = at(points, layout, 1), &four = at(points, layout, 4);
    CHECK(four.tok_s_per_gpu > 1.5 * one.tok_s_per_gpu);
    CHECK(four.tok_s_per_user < one.tok_s_per_user);
  }
  CHECK(at(points, "tp1 x2", 4).total_concurrency == 8);  // 4 clients on each of the 2 replicas
  CHECK(at(points, "tp2 x1", 4).total_concurrency == 4);
  // One replica of tp 1 serves twice the clients per GPU: more tokens per GPU than tp 2.
  CHECK(at(points, "tp1 x2", 4).tok_s_per_gpu > at(points, "tp2 x1", 4).tok_s_per_gpu);

  const std::vector<std::size_t> front = pareto_front(points);
  REQUIRE(!front.empty());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const bool on_front = std::find(front.begin(), front.end(), i) != front.end();
    CHECK(points[i].pareto == on_front);
    if (!on_front) continue;
    for (const SearchPoint& other : points) CHECK(!dominates(other, points[i]));
  }

  // The same spec, the same points.
  const std::vector<SearchPoint> again = run_search(spec);
  REQUIRE(again.size() == points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    CHECK(again[i].layout == points[i].layout);
    CHECK(again[i].concurrency == points[i].concurrency);
    CHECK(again[i].tok_s_per_gpu == points[i].tok_s_per_gpu);
    CHECK(again[i].tok_s_per_user == points[i].tok_s_per_user);
    CHECK(again[i].ttft_p90_s == points[i].ttft_p90_s);
    CHECK(again[i].tpot_mean_s == points[i].tpot_mean_s);
    CHECK(again[i].pareto == points[i].pareto);
  }
  CHECK(search_csv(again) == search_csv(points));
}

TEST_CASE("search: a layout the model cannot run is a skipped point with its error", "[systemc][serving][search]") {
  SearchSpec spec = small_spec(3, {1, 3}, {2});
  const std::vector<SearchPoint> points = run_search(spec);
  REQUIRE(points.size() == 2);
  CHECK(points[0].layout == "tp1 x3");
  CHECK(points[0].ok());
  CHECK(points[0].pareto);
  CHECK(points[1].layout == "tp3 x1");
  CHECK(!points[1].ok());
  CHECK(!points[1].pareto);
  CHECK_THAT(points[1].error, Catch::Contains("${tp} 3 must divide the 32 attention heads"));
  CHECK_THAT(search_csv(points, SettingNames::flag), Catch::Contains("--tp 3 must divide"));

  // An SLO no point meets: all run, none on the front.
  spec.tps = {1};
  spec.base.slo_tpot_s = 1e-6;
  const std::vector<SearchPoint> strict = run_search(spec);
  REQUIRE(strict.size() == 1);
  CHECK(strict[0].ok());
  CHECK(!strict[0].meets_slo);
  CHECK(!strict[0].pareto);
}

TEST_CASE("search: disaggregated splits fill the GPUs, with clients per decode instance", "[systemc][serving][search]") {
  SearchSpec spec = small_spec(3, {1}, {2});
  spec.disaggregated = true;
  const std::vector<SearchPoint> points = run_search(spec);
  std::vector<std::string> layouts;
  for (const SearchPoint& p : points) layouts.push_back(p.layout);
  CHECK(layouts == std::vector<std::string>{"tp1 x3", "1P(tp1)+2D(tp1)", "2P(tp1)+1D(tp1)"});
  const SearchPoint& split = at(points, "1P(tp1)+2D(tp1)", 2);
  REQUIRE(split.ok());
  CHECK(split.total_concurrency == 4);
  CHECK(split.requests == 8);
  CHECK(split.tok_s_per_gpu == Approx(split.tok_s / 3));
}

TEST_CASE("search: TP degrees by default, and specs refused up front", "[systemc][serving][search]") {
  SearchSpec spec = small_spec(8, {}, {1});
  CHECK(default_search_tps(spec) == std::vector<std::int64_t>{1, 2, 4, 8});
  spec.gpus = 12;
  CHECK(default_search_tps(spec) == std::vector<std::int64_t>{1, 2, 4});
  CHECK(default_search_concurrencies().front() == 1);
  CHECK(default_search_concurrencies().back() == 256);

  CHECK_THROWS_WITH(run_search(small_spec(0, {1}, {1})), Catch::Contains("gpus 0"));
  CHECK_THROWS_WITH(run_search(small_spec(8, {3}, {1})), Catch::Contains("no layout of gpus 8"));
  CHECK_THROWS_WITH(run_search(small_spec(2, {4}, {1})), Catch::Contains("tp 4"));
  CHECK_THROWS_WITH(run_search(small_spec(2, {1}, {0})), Catch::Contains("concurrency 0"));
  RunControl stop;
  stop.cancelled = [] { return true; };
  CHECK_THROWS_AS(run_search(small_spec(2, {1}, {1}), stop), Cancelled);
}

TEST_CASE("search: pipeline stages lay out replicas of tp x pp chips", "[systemc][serving][search]") {
  SearchSpec spec = small_spec(4, {1, 2}, {8});
  spec.pps = {1, 2};
  const std::vector<SearchPoint> points = run_search(spec);
  std::vector<std::string> layouts;
  for (const SearchPoint& p : points) layouts.push_back(p.layout);
  CHECK(layouts == std::vector<std::string>{"tp1 x4", "tp2 x2", "tp1 pp2 x2", "tp2 pp2 x1"});
  const SearchPoint& staged = at(points, "tp1 pp2 x2", 8);
  REQUIRE(staged.ok());
  CHECK(staged.pp == 2);
  CHECK(staged.replicas == 2);
  CHECK(staged.total_concurrency == 16);
  CHECK(staged.tok_s_per_gpu == Approx(staged.tok_s / 4));
  CHECK(search_csv(points).find("layout,disaggregated,tp,pp,ep,replicas") == 0);
  spec.pps = {3};
  CHECK_THROWS_WITH(run_search(spec), Catch::Contains("no layout of gpus 4"));
  spec.pps = {0};
  CHECK_THROWS_WITH(run_search(spec), Catch::Contains("pp 0"));
}

TEST_CASE("search: expert-parallel layouts for an MoE model, dense models skipped with the reason", "[systemc][serving][search]") {
  static const std::string moe =
      write_temp(replace_once(preset_text("models", "mixtral-8x7b"), "layers = 32", "layers = 2"), "model");
  SearchSpec spec = small_spec(4, {1, 2}, {8});
  spec.base.machine.model = moe;
  spec.eps = {1, 2, 4};
  const std::vector<SearchPoint> points = run_search(spec, {});
  // tp x ep x replicas = 4 GPUs: tp1 x4, tp2 x2, tp1 ep2 x2, tp2 ep2 x1, tp1 ep4 x1.
  REQUIRE(points.size() == 5);
  const SearchPoint& ep4 = at(points, "tp1 ep4 x1", 8);
  CHECK(ep4.ok());
  CHECK(ep4.ep == 4);
  CHECK(ep4.replicas == 1);
  CHECK(at(points, "tp2 ep2 x1", 8).ok());
  CHECK(search_csv(points, SettingNames::flag).find(",ep,") != std::string::npos);
  // A dense model's EP layouts are skipped, naming why.
  SearchSpec dense = small_spec(2, {1}, {4});
  dense.eps = {2};
  const std::vector<SearchPoint> skipped = run_search(dense, {});
  REQUIRE(skipped.size() == 1);
  CHECK_FALSE(skipped[0].ok());
  CHECK(skipped[0].error.find("has no experts") != std::string::npos);
  // Disaggregated splits take the EP degrees too: instances of tp x ep chips.
  SearchSpec split = small_spec(4, {1}, {4});
  split.base.machine.model = moe;
  split.eps = {2};
  split.disaggregated = true;
  const std::vector<SearchPoint> splits = run_search(split, {});
  const SearchPoint& one_one = at(splits, "1P(tp1 ep2)+1D(tp1 ep2)", 4);
  CHECK(one_one.ok());
  CHECK(one_one.ep == 2);
  CHECK(one_one.disaggregated);
  // The base setup's own EP is the layouts' business.
  SearchSpec given = spec;
  given.base.machine.ep = 2;
  CHECK_THROWS_WITH(run_search(given, {}), Catch::Contains("expert-parallel ranks of each layout"));
}

TEST_CASE("search tables: numbers right-aligned, layout names left-aligned even when they start with a digit", "[systemc][search]") {
  TextTable t({"layout", "tok/s/GPU"});
  t.add_row({"1P(tp2)+3D(tp2)", "276.5"});
  t.add_row({"tp2 x4", "1043.9"});
  std::ostringstream os;
  t.print(os);
  const std::string out = os.str();
  CHECK(out.find("\n1P(tp2)+3D(tp2)      276.5\n") != std::string::npos);  // the name left, the number right
  CHECK(out.find("\ntp2 x4              1043.9\n") != std::string::npos);
}
