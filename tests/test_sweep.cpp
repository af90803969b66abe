// Design-space sweep files: expansion, sampling, constraints, refusals with file and line, and
// the results store (resume, shards, merge, workers).
#include <catch2/catch.hpp>

#include <cstdio>
#include <set>

#include "core/error.hpp"
#include "sweep/design_sweep.hpp"
#include "sweep/sweep_constraint.hpp"
#include "sweep/sweep_file.hpp"
#include "sweep/sweep_store.hpp"
#include "test_util.hpp"

using namespace roofsim;
using roofsim::test::replace_once;
using roofsim::test::write_temp;

namespace {

std::string refusal(const std::string& text) {
  try {
    load_sweep_file(write_temp(text, "sweep"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

std::optional<double> lookup(const std::map<std::string, double>& values, const std::string& name) {
  auto it = values.find(name);
  return it == values.end() ? std::nullopt : std::optional<double>(it->second);
}

// A short run: what the store tests need is points, not long simulations.
const char* const kSmallSweep = R"(
[base]
model = "llama-3-8b"
prompt = 64
gen = 3
[grid]
batch = [1, 4]
"hbm.bandwidth_gb_per_s" = [2000, 4000]
)";

std::string temp_store() {
  static int n = 0;
  const std::string path = "/tmp/roofsim_test_" + std::to_string(::getpid()) + "_store_" + std::to_string(n++) + ".db";
  std::remove(path.c_str());
  return path;
}

}  // namespace

TEST_CASE("constraints: arithmetic, precedence and comparisons over a point's values", "[sweep][systemc]") {
  const std::map<std::string, double> v = {{"tp", 4}, {"pp", 2}, {"prompt", 1000}, {"gen", 100}};
  auto holds = [&](const std::string& text) { return Constraint(text).holds([&](const std::string& n) { return lookup(v, n); }); };
  CHECK(holds("tp * pp <= 8"));
  CHECK_FALSE(holds("tp * pp < 8"));
  CHECK(holds("prompt + gen == 1100"));
  CHECK(holds("prompt + gen * 2 == 1200"));     // * before +
  CHECK(holds("(prompt + gen) * 2 == 2200"));
  CHECK(holds("prompt / tp - -5 > 254"));
  CHECK(holds("tp != pp"));
  CHECK(Constraint("tp * pp <= 8").names() == std::vector<std::string>{"tp", "pp"});
  CHECK_THROWS_WITH(Constraint("tp * <= 8"), Catch::Contains("column 6"));
  CHECK_THROWS_WITH(Constraint("tp * pp"), Catch::Contains("expected a comparison"));
  CHECK_THROWS_WITH(Constraint("tp <= 8)"), Catch::Contains("unexpected ')'"));
  CHECK_THROWS_WITH(Constraint("bogus < 1").holds([&](const std::string& n) { return lookup(v, n); }),
                    Catch::Contains("'bogus' is not a numeric setting"));
}

TEST_CASE("sweep files: a grid expands in file order, first key slowest, ranges included", "[sweep][systemc]") {
  const SweepFile f = load_sweep_file(write_temp(R"(
[base]
prompt = 128
[grid]
model = ["llama-3-8b", "llama-2-7b"]
batch = { from = 1, to = 16, times = 4 }
"hbm.bandwidth_gb_per_s" = { from = 2000, to = 3000, step = 500 }
)", "sweep"));
  const ExpandedSweep x = expand_sweep(f);
  REQUIRE(x.points.size() == 2 * 3 * 3);
  CHECK(x.points[0].settings == nlohmann::json::parse(R"({"prompt":128,"model":"llama-3-8b","batch":1,"hbm.bandwidth_gb_per_s":2000})"));
  CHECK(x.points[1].settings["hbm.bandwidth_gb_per_s"] == 2500);
  CHECK(x.points[3].settings["batch"] == 4);
  CHECK(x.points[9].settings["model"] == "llama-2-7b");
  CHECK(x.points[17].index == 17);
  // The identity is the sorted settings: the same point from another file is the same point.
  CHECK(x.points[0].settings.dump() == R"({"batch":1,"hbm.bandwidth_gb_per_s":2000,"model":"llama-3-8b","prompt":128})");
}

TEST_CASE("sweep files: samples are seeded, inside their ranges, and a Latin hypercube fills every stratum", "[sweep][systemc]") {
  const std::string text = R"(
[sample]
method = "latin-hypercube"
points = 50
seed = 3
[sample.ranges]
batch = { min = 1, max = 256, scale = "log" }
"hbm.bandwidth_gb_per_s" = { min = 1000.0, max = 6000.0 }
kv_dtype = ["bf16", "fp8"]
)";
  const ExpandedSweep a = expand_sweep(load_sweep_file(write_temp(text, "sweep")));
  const ExpandedSweep b = expand_sweep(load_sweep_file(write_temp(text, "sweep")));
  REQUIRE(a.points.size() == 50);
  std::set<int> strata;
  std::set<std::string> dtypes;
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    const nlohmann::json& s = a.points[i].settings;
    CHECK(s == b.points[i].settings);  // deterministic
    CHECK(s["batch"].is_number_integer());
    CHECK(s["batch"].get<int>() >= 1);
    CHECK(s["batch"].get<int>() <= 256);
    const double bw = s["hbm.bandwidth_gb_per_s"].get<double>();
    CHECK(bw >= 1000);
    CHECK(bw < 6000);
    strata.insert(static_cast<int>((bw - 1000) / 100));  // 50 strata of 100 GB/s
    dtypes.insert(s["kv_dtype"].get<std::string>());
  }
  CHECK(strata.size() == 50);  // one draw in each stratum
  CHECK(dtypes.size() == 2);
  const ExpandedSweep other = expand_sweep(load_sweep_file(write_temp(replace_once(text, "seed = 3", "seed = 4"), "sweep")));
  CHECK(other.points[0].settings != a.points[0].settings);
}

TEST_CASE("sweep files: constraints skip points and are counted", "[sweep][systemc]") {
  const ExpandedSweep x = expand_sweep(load_sweep_file(write_temp(R"(
[base]
model = "llama-2-70b"
[grid]
tp = [1, 2, 4, 8]
pp = [1, 2, 4]
[constraints]
require = ["tp * pp <= 8", "tp >= pp"]
)", "sweep")));
  // (tp, pp): 1,1 2,1 2,2 4,1 4,2 8,1 hold; the other six do not.
  CHECK(x.points.size() == 6);
  CHECK(x.skipped == 6);
  for (const SweepPointSettings& p : x.points) CHECK(p.settings["tp"].get<int>() * p.settings["pp"].get<int>() <= 8);
  CHECK(x.points.back().index == 5);
}

TEST_CASE("sweep files: mistakes are refused with the file, line and key", "[sweep][systemc]") {
  CHECK_THAT(refusal("[grid]\nbatch = [1, \"x\"]\n"), Catch::Contains(":2: grid.batch: batch=\"x\": expected a whole number"));
  CHECK_THAT(refusal("[base]\nkv_dtype = \"fp7\"\n"), Catch::Contains(":2: base.kv_dtype:"));
  CHECK_THAT(refusal("[grid]\n\"hbm.bandwidth_gb_per_s\" = [3350, -1]\n"), Catch::Contains(":2: grid.hbm.bandwidth_gb_per_s:"));
  CHECK_THAT(refusal("[grid]\n\"hbm.nonsense\" = [1]\n"), Catch::Contains("grid.hbm.nonsense"));
  CHECK_THAT(refusal("[base]\nbatch = 2\n[grid]\nbatch = [1]\n"), Catch::Contains("given twice"));
  CHECK_THAT(refusal("[grid]\nbatch = { from = 8, to = 1, times = 2 }\n"), Catch::Contains("'to' is below 'from'"));
  CHECK_THAT(refusal("[sample]\nmethod = \"sobol\"\npoints = 3\n[sample.ranges]\nbatch = [1]\n"), Catch::Contains("sample.method"));
  CHECK_THAT(refusal("[constraints]\nrequire = [\"tp * nope <= 8\"]\n"), Catch::Contains("'nope' is neither"));
  CHECK_THAT(refusal("[grid]\nmodel = [\"no-such-model\"]\n"), Catch::Contains(":2: grid.model:"));
  CHECK_THAT(refusal("[bogus]\nx = 1\n"), Catch::Contains("bogus"));
  CHECK_THAT(refusal("[grid\n"), Catch::Contains("TOML syntax error"));
  CHECK_THAT(refusal("[grid]\nbatch = { from = 1, to = 1e9, step = 1 }\n"), Catch::Contains("more than 100,000 values"));
}

TEST_CASE("sweep store: finished points are kept, a re-run runs only the missing ones, workers and shards agree", "[sweep][systemc]") {
  const std::string file = write_temp(kSmallSweep, "sweep");
  const SweepFile f = load_sweep_file(file);
  const ExpandedSweep x = expand_sweep(f);
  REQUIRE(x.points.size() == 4);

  const std::string serial_path = temp_store();
  SweepStore serial(serial_path, "--store");
  DesignSweepReport r = run_design_sweep(f, x, serial, {});
  CHECK(r.ran == 4);
  CHECK(r.reused == 0);
  r = run_design_sweep(f, x, serial, {});
  CHECK(r.ran == 0);
  CHECK(r.reused == 4);
  const SweepTable whole = sweep_table(f, x, serial);
  REQUIRE(whole.rows.size() == 4);
  CHECK(whole.missing == 0);
  for (const auto& row : whole.rows) CHECK(row["status"] == "ok");
  // Twice the bandwidth decodes faster at batch 1: the store holds real results.
  CHECK(whole.rows[1]["tpot_s"].get<double>() < whole.rows[0]["tpot_s"].get<double>());

  // Two workers, and two shards merged, give the same table (wall times aside).
  auto without_wall = [](nlohmann::json rows) {
    for (auto& row : rows) row.erase("wall_s");
    return rows;
  };
  const std::string parallel_path = temp_store();
  SweepStore parallel(parallel_path, "--store");
  run_design_sweep(f, x, parallel, {2, 0, 1});
  CHECK(without_wall(sweep_table(f, x, parallel).rows) == without_wall(whole.rows));

  const std::string a_path = temp_store(), b_path = temp_store(), merged_path = temp_store();
  {
    SweepStore a(a_path, "--store"), b(b_path, "--store");
    CHECK(run_design_sweep(f, x, a, {1, 0, 2}).ran == 2);
    CHECK(run_design_sweep(f, x, b, {1, 1, 2}).ran == 2);
    CHECK(sweep_table(f, x, a).missing == 2);
  }
  SweepStore merged(merged_path, "--store");
  CHECK(merged.merge_from(a_path) == 2);
  CHECK(merged.merge_from(b_path) == 2);
  CHECK(merged.merge_from(a_path) == 0);
  CHECK(without_wall(sweep_table(f, x, merged).rows) == without_wall(whole.rows));
  for (const std::string& p : {serial_path, parallel_path, a_path, b_path, merged_path}) std::remove(p.c_str());
}

TEST_CASE("sweep store: a point the simulator refuses is stored with the reason, and a file that is not a store is refused", "[sweep][systemc]") {
  const SweepFile f = load_sweep_file(write_temp("[base]\nmodel = \"llama-2-70b\"\nprompt = 64\ngen = 2\n", "sweep"));
  const std::string path = temp_store();
  SweepStore store(path, "--store");
  const DesignSweepReport r = run_design_sweep(f, expand_sweep(f), store, {});
  CHECK(r.refused == 1);
  const SweepTable t = sweep_table(f, expand_sweep(f), store);
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0]["status"] == "error");
  CHECK_THAT(t.rows[0]["error"].get<std::string>(), Catch::Contains("does not fit"));
  std::remove(path.c_str());

  const std::string text_file = write_temp("not a database, just text that is long enough to not be one", "notdb");
  CHECK_THROWS_WITH(SweepStore(text_file, "--store"), Catch::Contains("--store " + text_file));
}

TEST_CASE("sweep files: a point's hardware keys edit its hardware, and an edited hardware file is a new point", "[sweep][systemc]") {
  const SweepFile f = load_sweep_file(write_temp(kSmallSweep, "sweep"));
  const ExpandedSweep x = expand_sweep(f);
  const Experiment e = point_experiment(f, x.points[1].settings);
  REQUIRE(e.hardware);
  CHECK(e.hardware->hbm.bandwidth == Approx(4000e9));
  CHECK(e.batch == 1);
  CHECK(e.prompt == 64);

  const std::string hw = write_temp(roofsim::test::preset_text("hardware", "h100_sxm5"), "hw");
  PointIdentities ids;
  const nlohmann::json settings = {{"hw", hw}, {"batch", 1}};
  const std::string before = ids.of(settings);
  std::ofstream(hw, std::ios::app) << "\n# edited\n";
  CHECK(PointIdentities().of(settings) != before);
}

TEST_CASE("serve sweeps: points are serving runs whose arrivals and scheduler the grid varies", "[sweep][systemc]") {
  const std::string text = R"(
command = "serve"
[base]
prompt = 256
output = 16
requests = 24
[grid]
concurrency = [2, 8]
max_batch = [4, 256]
)";
  const SweepFile f = load_sweep_file(write_temp(text, "sweep"));
  const ExpandedSweep x = expand_sweep(f);
  REQUIRE(x.points.size() == 4);
  const ServingSetup s = point_serving_setup(f, x.points[3].settings);
  CHECK(s.workload.arrivals.concurrency == 8);
  CHECK(s.scheduler.max_batch == 256);
  CHECK(s.workload.requests == 24);
  const std::string path = temp_store();
  SweepStore store(path, "--store");
  CHECK(run_design_sweep(f, x, store, {}).ran == 4);
  const SweepTable t = sweep_table(f, x, store);
  REQUIRE(t.rows.size() == 4);
  // Eight clients wait for four slots: a cap on the batch shows in TTFT.
  CHECK(t.rows[2]["ttft_s.p50"].get<double>() > t.rows[3]["ttft_s.p50"].get<double>());
  CHECK(t.rows[3]["mean_batch"].get<double>() > t.rows[1]["mean_batch"].get<double>());
  std::remove(path.c_str());

  CHECK_THAT(refusal("command = \"serve\"\n[grid]\nbatch = [1, 2]\n"), Catch::Contains("grid.batch: batch is a run setting"));
  CHECK_THAT(refusal("command = \"serve\"\n[base]\nscheduler = \"fifo\"\n"), Catch::Contains("base.scheduler"));
  CHECK_THAT(refusal("command = \"train\"\n"), Catch::Contains("command"));
}
