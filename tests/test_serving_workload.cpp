// Serving workloads: length distributions and arrivals (serving/workload.hpp); traces in
// test_serving_traces.cpp.
#include <catch2/catch.hpp>

#include "serving/workload.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

#include "core/error.hpp"
#include "tests/serving_workload_util.hpp"

using namespace roofsim;
namespace fs = std::filesystem;

using namespace roofsim::test_workload;

namespace {

const char* kForms = "uniform:MIN:MAX, normal:MEAN:SD[:MIN:MAX]";

}  // namespace

TEST_CASE("length distributions parse in every accepted form", "[serving]") {
  const auto fixed = parse_length_distribution("1024", "${prompt}");
  CHECK(fixed.kind == LengthDistribution::Kind::fixed);
  CHECK(fixed.mean == 1024);
  CHECK(describe(fixed) == "fixed 1024");
  CHECK(parse_length_distribution("16777216", "${prompt}").mean == 16777216);

  const auto u = parse_length_distribution("uniform:512:1536", "${prompt}");
  CHECK(u.kind == LengthDistribution::Kind::uniform);
  CHECK(u.min == 512);
  CHECK(u.max == 1536);
  CHECK(u.mean == 1024);
  CHECK(describe(u) == "uniform [512, 1536]");

  const auto n = parse_length_distribution("normal:1000:200", "${prompt}");
  CHECK(n.kind == LengthDistribution::Kind::normal);
  CHECK(n.mean == 1000);
  CHECK(n.stddev == 200);
  CHECK(n.min == 1);
  CHECK(n.max == 16777216);
  CHECK(describe(n) == "normal mean 1000 sd 200 [1, 16777216]");

  const auto l = parse_length_distribution("lognormal:1000:400:1:4096", "${output}");
  CHECK(l.kind == LengthDistribution::Kind::lognormal);
  CHECK(l.mean == 1000);
  CHECK(l.stddev == 400);
  CHECK(l.min == 1);
  CHECK(l.max == 4096);
  CHECK(describe(l) == "lognormal mean 1000 sd 400 [1, 4096]");

  CHECK(parse_length_distribution("normal:512.5:0", "${prompt}").mean == 512.5);
  CHECK(parse_length_distribution("uniform:7:7", "${prompt}").max == 7);
}

TEST_CASE("length distributions refuse anything else, naming the setting and the forms", "[serving]") {
  const char* bad[] = {"",
                       "abc",
                       "nan",
                       "inf",
                       "-5",
                       "0",
                       "16777217",
                       "1024abc",
                       " 1024",
                       "1024 ",
                       "+1024",
                       "1e3",
                       "10.5",
                       "0x400",
                       "1024:",
                       "uniform",
                       "uniform:5",
                       "uniform:10:5",
                       "uniform:0:5",
                       "uniform:1.5:3",
                       "uniform:1:2:3",
                       "normal:1000",
                       "normal:1000:-1",
                       "normal:nan:1",
                       "normal:inf:1",
                       "normal:1000:inf",
                       "normal:0:10",
                       "normal:-10:10",
                       "normal:1000:200x",
                       "normal:1000:200:5",
                       "normal:1000:200:0:10",
                       "normal:1000:200:100:50",
                       "normal:1000:200:1:16777217",
                       "lognormal:0:10",
                       "lognormal:1000",
                       "Normal:1000:200",
                       "gamma:1000:200",
                       "normal::200"};
  for (const char* text : bad) {
    INFO("'" << text << "'");
    const std::string msg = refusal([&] { parse_length_distribution(text, "${prompt_len}"); });
    CHECK_THAT(msg, Catch::StartsWith("${prompt_len} '" + std::string(text) + "'"));
    CHECK_THAT(msg, Catch::Contains(kForms));
  }
  // The client renders the name its way.
  try {
    parse_length_distribution("junk", "${prompt_len}");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(render_setting_names(e.raw(), SettingNames::flag), Catch::StartsWith("--prompt-len 'junk'"));
  }
}

TEST_CASE("a seed gives the same requests and another seed others", "[serving]") {
  WorkloadSpec w = closed(200, "lognormal:1000:400", "normal:200:50", 7);
  w.arrivals.kind = Arrivals::Kind::poisson;
  w.arrivals.rate_per_s = 3;
  const auto a = generate_requests(w);
  CHECK(same(a, generate_requests(w)));
  w.seed = 8;
  const auto b = generate_requests(w);
  CHECK_FALSE(same(a, b));
  CHECK(prompts_of(a) != prompts_of(b));
  CHECK(outputs_of(a) != outputs_of(b));
  CHECK(a[0].arrival_s != b[0].arrival_s);
}

TEST_CASE("prompts, outputs and arrivals are separate streams", "[serving]") {
  WorkloadSpec w = closed(500, "lognormal:1000:400", "normal:200:50", 11);
  w.arrivals.kind = Arrivals::Kind::poisson;
  const auto base = generate_requests(w);
  // Prompts and outputs differ from each other (not one stream read twice).
  WorkloadSpec same_dists = w;
  same_dists.output = same_dists.prompt;
  const auto twin = generate_requests(same_dists);
  CHECK(prompts_of(twin) != outputs_of(twin));

  WorkloadSpec other_output = w;
  other_output.output = parse_length_distribution("uniform:1:4000", "${output}");
  const auto o = generate_requests(other_output);
  CHECK(prompts_of(o) == prompts_of(base));
  CHECK(outputs_of(o) != outputs_of(base));

  WorkloadSpec other_prompt = w;
  other_prompt.prompt = parse_length_distribution("normal:300:30", "${prompt}");
  CHECK(outputs_of(generate_requests(other_prompt)) == outputs_of(base));

  WorkloadSpec other_rate = w;
  other_rate.arrivals.rate_per_s = 9;
  const auto r = generate_requests(other_rate);
  CHECK(prompts_of(r) == prompts_of(base));
  CHECK(outputs_of(r) == outputs_of(base));
  CHECK(r[10].arrival_s != base[10].arrival_s);
}

TEST_CASE("the draws are pinned: std::mt19937_64 bits with roofsim's own transforms", "[serving]") {
  // The expected values come from an independent implementation (scripts/make_traces.py's
  // MT19937_64 and transforms in Python), not from this code.
  WorkloadSpec w = closed(5, "uniform:1:1000", "normal:1000:200", 42);
  w.arrivals.kind = Arrivals::Kind::poisson;
  w.arrivals.rate_per_s = 2;
  const auto r = generate_requests(w);
  CHECK(prompts_of(r) == std::vector<double>{756, 640, 753, 137, 904});
  CHECK(outputs_of(r) == std::vector<double>{1278, 1102, 902, 872, 1110});
  CHECK(r[0].arrival_s == Approx(0.43364164701652874).epsilon(1e-12));
  CHECK(r[1].arrival_s == Approx(0.6501616471880697).epsilon(1e-12));
  CHECK(r[2].arrival_s == Approx(0.8958346826309332).epsilon(1e-12));
}

TEST_CASE("normal and lognormal lengths have the mean and sd asked for", "[serving]") {
  for (const char* spec : {"normal:1000:200", "lognormal:1000:400"}) {
    INFO(spec);
    const auto d = parse_length_distribution(spec, "${prompt}");
    const auto r = generate_requests(closed(20000, spec, "1", 3));
    const Stats s = stats(prompts_of(r));
    CHECK(s.mean == Approx(d.mean).epsilon(0.02));
    CHECK(s.sd == Approx(d.stddev).epsilon(0.02));
  }
  // A lognormal is skewed: its median is below its mean (a normal's is not).
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  CHECK(median(prompts_of(generate_requests(closed(20000, "lognormal:1000:1000", "1")))) < 800);
  CHECK(median(prompts_of(generate_requests(closed(20000, "normal:1000:200", "1")))) == Approx(1000).epsilon(0.01));

  // Uniform: every value in range, both ends reached, the mean in the middle.
  const auto u = prompts_of(generate_requests(closed(20000, "uniform:10:20", "1")));
  CHECK(*std::min_element(u.begin(), u.end()) == 10);
  CHECK(*std::max_element(u.begin(), u.end()) == 20);
  CHECK(stats(u).mean == Approx(15).epsilon(0.01));
}

TEST_CASE("draws are whole tokens clamped to [min, max]", "[serving]") {
  const auto r = generate_requests(closed(5000, "normal:1000:2000:500:1500", "lognormal:100:300:2:50"));
  const auto p = prompts_of(r), o = outputs_of(r);
  CHECK(*std::min_element(p.begin(), p.end()) == 500);
  CHECK(*std::max_element(p.begin(), p.end()) == 1500);
  CHECK(*std::min_element(o.begin(), o.end()) == 2);
  CHECK(*std::max_element(o.begin(), o.end()) == 50);
  // Clamping piles the tails onto the bounds.
  CHECK(std::count(p.begin(), p.end(), 500.0) > 1000);
  CHECK(std::count(p.begin(), p.end(), 1500.0) > 1000);

  // A fixed length outside [min, max] is clamped too; a mean is rounded half away from zero.
  WorkloadSpec w = closed(3, "1", "1");
  w.prompt.mean = 5000;
  w.prompt.max = 4096;
  w.output.mean = 2.5;
  const auto f = generate_requests(w);
  CHECK(f[0].prompt_tokens == 4096);
  CHECK(f[2].output_tokens == 3);
  CHECK(describe(w.prompt) == "fixed 4096");
}

TEST_CASE("Poisson arrivals: exponential gaps with mean 1/rate, in order", "[serving]") {
  WorkloadSpec w = closed(20000, "100", "10", 5);
  w.arrivals.kind = Arrivals::Kind::poisson;
  w.arrivals.rate_per_s = 4;
  const auto r = generate_requests(w);
  REQUIRE(r.size() == 20000);
  CHECK(r[0].arrival_s > 0);  // the first gap starts at 0
  std::vector<double> gaps{r[0].arrival_s};
  std::size_t in_order = 0, numbered = r[0].id == 0;
  for (std::size_t i = 1; i < r.size(); ++i) {
    in_order += r[i].arrival_s >= r[i - 1].arrival_s;
    numbered += r[i].id == static_cast<std::int64_t>(i);
    gaps.push_back(r[i].arrival_s - r[i - 1].arrival_s);
  }
  CHECK(in_order == r.size() - 1);
  CHECK(numbered == r.size());
  const Stats s = stats(gaps);
  CHECK(s.mean == Approx(0.25).epsilon(0.03));
  CHECK(s.sd == Approx(0.25).epsilon(0.03));  // exponential: sd = mean
  CHECK(r.back().arrival_s == Approx(20000 / 4.0).epsilon(0.03));
}

TEST_CASE("bursts arrive together every interval", "[serving]") {
  WorkloadSpec w = closed(10, "100", "10");
  w.arrivals.kind = Arrivals::Kind::burst;
  w.arrivals.burst_size = 4;
  w.arrivals.burst_interval_s = 2.5;
  const auto r = generate_requests(w);
  REQUIRE(r.size() == 10);
  const std::vector<double> expected = {0, 0, 0, 0, 2.5, 2.5, 2.5, 2.5, 5, 5};
  for (std::size_t i = 0; i < r.size(); ++i) {
    INFO(i);
    CHECK(r[i].arrival_s == expected[i]);
    CHECK(r[i].id == static_cast<std::int64_t>(i));
  }
}

TEST_CASE("closed-loop requests have no arrival time", "[serving]") {
  WorkloadSpec w = closed(50, "uniform:10:100", "100");
  w.arrivals.kind = Arrivals::Kind::closed_loop;
  w.arrivals.concurrency = 4;
  const auto r = generate_requests(w);
  REQUIRE(r.size() == 50);
  for (std::size_t i = 0; i < r.size(); ++i) {
    CHECK(r[i].arrival_s == -1);
    CHECK(r[i].id == static_cast<std::int64_t>(i));
    CHECK(r[i].output_tokens == 100);
    CHECK(r[i].prefix_id == -1);
  }
}

TEST_CASE("impossible workloads are refused, naming the setting", "[serving]") {
  const WorkloadSpec ok = closed(10, "100", "10");
  REQUIRE(generate_requests(ok).size() == 10);
  auto refuse = [&](const std::function<void(WorkloadSpec&)>& change) {
    WorkloadSpec w = ok;
    change(w);
    return refusal([&] { generate_requests(w); });
  };
  auto poisson = [](WorkloadSpec& w, double rate) {
    w.arrivals.kind = Arrivals::Kind::poisson;
    w.arrivals.rate_per_s = rate;
  };
  auto burst = [](WorkloadSpec& w, std::int64_t size, double interval) {
    w.arrivals.kind = Arrivals::Kind::burst;
    w.arrivals.burst_size = size;
    w.arrivals.burst_interval_s = interval;
  };
  CHECK_THAT(refuse([](WorkloadSpec& w) { w.requests = 0; }), Catch::StartsWith("${requests} 0"));
  CHECK_THAT(refuse([](WorkloadSpec& w) { w.requests = -3; }), Catch::StartsWith("${requests} -3"));
  CHECK_THAT(refuse([](WorkloadSpec& w) { w.requests = 10'000'001; }), Catch::Contains("${requests}") && Catch::Contains("10000000"));
  CHECK(refuse([](WorkloadSpec& w) { w.requests = 1; }) == "(no InputError)");
  CHECK_THAT(refuse([&](WorkloadSpec& w) { poisson(w, 0); }), Catch::StartsWith("${rate} 0"));
  CHECK_THAT(refuse([&](WorkloadSpec& w) { poisson(w, -2); }), Catch::StartsWith("${rate} -2"));
  CHECK_THAT(refuse([&](WorkloadSpec& w) { poisson(w, std::nan("")); }), Catch::StartsWith("${rate}"));
  CHECK_THAT(refuse([&](WorkloadSpec& w) { poisson(w, HUGE_VAL); }), Catch::StartsWith("${rate}"));
  CHECK_THAT(refuse([](WorkloadSpec& w) { w.arrivals.concurrency = 0; }), Catch::StartsWith("${concurrency} 0"));
  CHECK_THAT(refuse([&](WorkloadSpec& w) { burst(w, 0, 1); }), Catch::StartsWith("${burst} 0"));
  CHECK_THAT(refuse([&](WorkloadSpec& w) { burst(w, 2, 0); }), Catch::StartsWith("${burst_interval_ms} 0"));
  CHECK_THAT(refuse([&](WorkloadSpec& w) { burst(w, 2, -1); }), Catch::StartsWith("${burst_interval_ms} -1000"));
  CHECK_THAT(refuse([&](WorkloadSpec& w) { burst(w, 2, std::nan("")); }), Catch::StartsWith("${burst_interval_ms}"));
  // The last arrival must stay where the clock resolves microseconds (kMaxArrivalS).
  CHECK_THAT(refuse([&](WorkloadSpec& w) { poisson(w, 1e-300); }),
             Catch::StartsWith("${rate} 1e-300: the last of the 10 requests arrives at") && Catch::Contains("(11.6 days)"));
  CHECK_THAT(refuse([&](WorkloadSpec& w) { burst(w, 1, 2e5); }),
             Catch::StartsWith("${burst_interval_ms} 2e+08: the last of the 10 requests arrives at 1.8e+06 s"));
  CHECK(refuse([&](WorkloadSpec& w) { burst(w, 1, 1e5); }) == "(no InputError)");  // the last at 900,000 s

  CHECK_THAT(refuse([](WorkloadSpec& w) {
               w.prompt.kind = LengthDistribution::Kind::uniform;
               w.prompt.min = 10;
               w.prompt.max = 5;
             }),
             Catch::StartsWith("${prompt}: min 10 is above max 5"));
  CHECK_THAT(refuse([](WorkloadSpec& w) { w.output.min = 0; }), Catch::StartsWith("${output}: min 0"));
  CHECK_THAT(refuse([](WorkloadSpec& w) { w.output.max = (1 << 24) + 1; }), Catch::StartsWith("${output}: max 16777217"));
  CHECK_THAT(refuse([](WorkloadSpec& w) {
               w.output.kind = LengthDistribution::Kind::normal;
               w.output.mean = std::nan("");
             }),
             Catch::StartsWith("${output}: the mean"));
  CHECK_THAT(refuse([](WorkloadSpec& w) {
               w.prompt.kind = LengthDistribution::Kind::lognormal;
               w.prompt.mean = HUGE_VAL;
             }),
             Catch::StartsWith("${prompt}: the mean"));
  CHECK_THAT(refuse([](WorkloadSpec& w) {
               w.prompt.kind = LengthDistribution::Kind::normal;
               w.prompt.stddev = -1;
             }),
             Catch::StartsWith("${prompt}: the standard deviation"));
  CHECK_THAT(refuse([](WorkloadSpec& w) {
               w.output.kind = LengthDistribution::Kind::lognormal;
               w.output.stddev = HUGE_VAL;
             }),
             Catch::StartsWith("${output}: the standard deviation"));
  CHECK_THAT(refuse([](WorkloadSpec& w) {
               w.prompt.kind = LengthDistribution::Kind::lognormal;
               w.prompt.mean = 1e-200;
               w.prompt.stddev = 1e200;
             }),
             Catch::StartsWith("${prompt}: lognormal sd"));
  CHECK_THAT(refuse([](WorkloadSpec& w) { w.arrivals.kind = Arrivals::Kind::trace; }), Catch::StartsWith("${requests_from}"));
}
