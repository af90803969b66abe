// Serving workloads: length distributions, arrivals, trace files (serving/workload.hpp).
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

using namespace roofsim;
namespace fs = std::filesystem;

namespace {

// The raw message (${name} marks kept) of the InputError that f throws, or a marker when it
// throws nothing.
std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.raw();
  }
  return "(no InputError)";
}

// A folder of its own under the system temp folder, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("roofsim_workload_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = (path / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

struct Stats {
  double mean = 0, sd = 0;
};
Stats stats(const std::vector<double>& v) {
  Stats s;
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  for (double x : v) s.sd += (x - s.mean) * (x - s.mean);
  s.sd = std::sqrt(s.sd / static_cast<double>(v.size() - 1));
  return s;
}

WorkloadSpec closed(std::int64_t n, const std::string& prompt, const std::string& output, std::uint64_t seed = 1) {
  WorkloadSpec w;
  w.requests = n;
  w.prompt = parse_length_distribution(prompt, "${prompt}");
  w.output = parse_length_distribution(output, "${output}");
  w.seed = seed;
  return w;
}

std::vector<double> prompts_of(const std::vector<RequestSpec>& r) {
  std::vector<double> v;
  for (const auto& q : r) v.push_back(static_cast<double>(q.prompt_tokens));
  return v;
}
std::vector<double> outputs_of(const std::vector<RequestSpec>& r) {
  std::vector<double> v;
  for (const auto& q : r) v.push_back(static_cast<double>(q.output_tokens));
  return v;
}

bool same(const std::vector<RequestSpec>& a, const std::vector<RequestSpec>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || a[i].arrival_s != b[i].arrival_s || a[i].prompt_tokens != b[i].prompt_tokens ||
        a[i].output_tokens != b[i].output_tokens || a[i].prefix_id != b[i].prefix_id ||
        a[i].prefix_tokens != b[i].prefix_tokens) {
      return false;
    }
  }
  return true;
}

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
  CHECK_THAT(refuse([](WorkloadSpec& w) { w.arrivals.kind = Arrivals::Kind::trace; }), Catch::StartsWith("${trace_file}"));
}

TEST_CASE("a written trace reads back identically", "[serving]") {
  TempDir dir;
  WorkloadSpec w = closed(300, "lognormal:1000:700", "normal:200:100", 9);
  w.arrivals.kind = Arrivals::Kind::poisson;
  w.arrivals.rate_per_s = 7.3;
  auto requests = generate_requests(w);
  // Four prefixes of 100 tokens on the prompts long enough for them (one prefix, one length).
  for (std::size_t i = 0; i < requests.size(); i += 3) {
    if (requests[i].prompt_tokens < 100) continue;
    requests[i].prefix_id = static_cast<std::int64_t>(i % 4);
    requests[i].prefix_tokens = 100;
  }
  requests[1].prefix_id = 9;  // a prefix id with no tokens
  requests[1].prefix_tokens = 0;
  const std::string path = (dir.path / "round.csv").string();
  write_trace(path, requests);
  const auto back = read_trace(path);
  CHECK(same(requests, back));

  // Bursts (equal times) and a time with no short decimal form too.
  WorkloadSpec b = closed(7, "uniform:1:16777216", "3");
  b.arrivals.kind = Arrivals::Kind::burst;
  b.arrivals.burst_size = 3;
  b.arrivals.burst_interval_s = 0.1;
  auto bursts = generate_requests(b);
  bursts.back().arrival_s = 1.0 / 3.0;
  write_trace(path, bursts);
  CHECK(same(bursts, read_trace(path)));

  // A trace workload reads the file and leaves the length distributions alone.
  WorkloadSpec t = closed(5, "normal:10:1", "normal:10:1");
  t.arrivals.kind = Arrivals::Kind::trace;
  t.trace_path = path;
  CHECK(same(generate_requests(t), bursts));
}

TEST_CASE("write_trace refuses what it cannot write", "[serving]") {
  TempDir dir;
  const auto closed_loop = generate_requests(closed(3, "10", "10"));
  CHECK_THAT(refusal([&] { write_trace((dir.path / "c.csv").string(), closed_loop); }),
             Catch::Contains("a trace needs arrival times"));
  CHECK_FALSE(fs::exists(dir.path / "c.csv"));
  CHECK_THAT(refusal([&] { write_trace((dir.path / "e.csv").string(), {}); }), Catch::Contains("no requests"));

  WorkloadSpec w = closed(3, "10", "10");
  w.arrivals.kind = Arrivals::Kind::poisson;
  const auto ok = generate_requests(w);
  const std::string missing = (dir.path / "no" / "such" / "folder" / "t.csv").string();
  CHECK_THAT(refusal([&] { write_trace(missing, ok); }), Catch::StartsWith(missing + ": cannot write"));
  if (fs::exists("/dev/full")) {  // the write succeeds, the flush at close fails
    CHECK_THAT(refusal([&] { write_trace("/dev/full", ok); }), Catch::StartsWith("/dev/full: cannot write"));
  }
  auto unsorted = ok;
  std::swap(unsorted[0].arrival_s, unsorted[2].arrival_s);
  CHECK_THAT(refusal([&] { write_trace((dir.path / "u.csv").string(), unsorted); }), Catch::Contains("arrives before"));
}

TEST_CASE("trace errors name the file, the line and the column", "[serving]") {
  TempDir dir;
  const std::string header = "arrival_s,prompt_tokens,output_tokens\n";
  struct Case {
    std::string name, text, expected;
  };
  const std::vector<Case> cases = {
      {"letters.csv", header + "0,10,10\n0.5,abc,10\n", ":3: prompt_tokens: expected an integer"},
      {"zero.csv", header + "0,0,10\n", ":2: prompt_tokens: expected a positive integer"},
      {"fraction.csv", header + "0,10,2.5\n", ":2: output_tokens: expected an integer"},
      {"huge.csv", header + "0,16777217,10\n", ":2: prompt_tokens: 16777217 is not between 1 and 16777216"},
      {"negative_time.csv", header + "-1,10,10\n", ":2: arrival_s: must be a finite time >= 0"},
      {"late_time.csv", header + "0,10,10\n1e300,10,10\n", ":3: arrival_s: 1e+300 is beyond the latest arrival roofsim simulates, 1e+06 s"},
      {"late_ms.csv", "arrival_ms,prompt_tokens,output_tokens\n1000000001,10,10\n", ":2: arrival_ms: 1000000001 is beyond"},
      {"nan_time.csv", header + "nan,10,10\n", ":2: arrival_s: expected a time"},
      {"inf_time.csv", header + "inf,10,10\n", ":2: arrival_s: expected a time"},
      {"junk_time.csv", header + "1.5s,10,10\n", ":2: arrival_s: expected a time"},
      {"empty_time.csv", header + ",10,10\n", ":2: arrival_s: expected a time"},
      {"unsorted.csv", header + "0,10,10\n# a comment\n2,10,10\n1.5,10,10\n",
       ":5: arrival_s: 1.5 s is before the previous request's 2 s (line 4)"},
      {"unsorted_ms.csv", "arrival_ms,prompt_tokens,output_tokens\n2000,10,10\n1000,10,10\n",
       ":3: arrival_ms: 1 s is before the previous request's 2 s (line 2)"},
      {"cells.csv", header + "0,10,10\n1,10\n", ":3: 2 cells, the header has 3"},
      {"both_times.csv", "arrival_s,arrival_ms,prompt_tokens,output_tokens\n0,0,10,10\n", "both arrival_s and arrival_ms"},
      {"no_time.csv", "prompt_tokens,output_tokens\n10,10\n", "missing column 'arrival_s' or 'arrival_ms'"},
      {"no_output.csv", "arrival_s,prompt_tokens\n0,10\n", "missing column 'output_tokens'"},
      {"unknown.csv", "arrival_s,prompt_tokens,output_tokens,prefix_tokenz\n0,10,10,5\n", "unknown column 'prefix_tokenz'"},
      {"prefix_long.csv", "arrival_s,prompt_tokens,output_tokens,prefix_id,prefix_tokens\n0,10,10,1,11\n",
       ":2: prefix_tokens: 11 is not between 0 and the prompt's 10 tokens"},
      {"prefix_alone.csv", "arrival_s,prompt_tokens,output_tokens,prefix_tokens\n0,10,10,5\n",
       ":2: prefix_tokens: 5 without a prefix_id"},
      {"prefix_no_length.csv", "arrival_s,prompt_tokens,output_tokens,prefix_id\n0,10,10,1\n",
       ":2: prefix_id: 1 without prefix_tokens"},
      {"prefix_two_lengths.csv", "arrival_s,prompt_tokens,output_tokens,prefix_id,prefix_tokens\n0,100,10,1,50\n0.1,100,10,1,60\n",
       ":3: prefix_tokens: 60 for prefix 1, which line 2 gave 50 tokens"},
      {"prefix_id.csv", "arrival_s,prompt_tokens,output_tokens,prefix_id\n0,10,10,-2\n", ":2: prefix_id: -2"},
      {"prefix_id_text.csv", "arrival_s,prompt_tokens,output_tokens,prefix_id\n0,10,10,x\n", ":2: prefix_id: expected an integer"},
      {"header_only.csv", header, "no requests"},
      {"empty.csv", "", "empty trace file"},
      {"blank.csv", "  \n\n \n", "empty trace file"},
      {"bom.csv", "\xEF\xBB\xBF" + header + "0,1,1\n", ":1: starts with a byte order mark"},
      {"array.json", "[{\"arrival_s\": 0, \"prompt_tokens\": 1, \"output_tokens\": 1}]\n", ":1: a JSON array"},
      {"bad_json.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": 1, \"output_tokens\": 1}\n{\"arrival_s\": 1,\n",
       ":2: not a JSON object"},
      {"not_object.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": 1, \"output_tokens\": 1}\n\n42\n",
       ":3: expected a JSON object"},
      {"missing_key.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": 1}\n", ":1: output_tokens: missing"},
      {"missing_time.jsonl", "{\"prompt_tokens\": 1, \"output_tokens\": 1}\n", ":1: arrival_s: missing"},
      {"both_times.jsonl", "{\"arrival_s\": 0, \"arrival_ms\": 0, \"prompt_tokens\": 1, \"output_tokens\": 1}\n",
       ":1: arrival_s and arrival_ms: give one of them"},
      {"string_length.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": \"12\", \"output_tokens\": 1}\n",
       ":1: prompt_tokens: expected a whole number, got \"12\""},
      {"fraction.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": 12.5, \"output_tokens\": 1}\n",
       ":1: prompt_tokens: expected a whole number, got 12.5"},
      {"zero.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": 12, \"output_tokens\": 0}\n",
       ":1: output_tokens: 0 is not between 1 and 16777216"},
      {"string_time.jsonl", "{\"arrival_s\": \"0\", \"prompt_tokens\": 12, \"output_tokens\": 1}\n",
       ":1: arrival_s: expected a time"},
      {"unknown.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": 12, \"output_tokens\": 1, \"text\": \"hi\"}\n",
       ":1: text: unknown key"},
      {"unsorted.jsonl",
       "{\"arrival_s\": 3, \"prompt_tokens\": 12, \"output_tokens\": 1}\n{\"arrival_s\": 2.5, \"prompt_tokens\": 12, "
       "\"output_tokens\": 1}\n",
       ":2: arrival_s: 2.5 s is before the previous request's 3 s (line 1)"},
      {"empty.jsonl", "\n\n", "empty trace file"},
      {"empty_object.jsonl", "  {}\n", ":1: arrival_s: missing"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string path = dir.write(c.name, c.text);
    const std::string msg = refusal([&] { read_trace(path); });
    CHECK_THAT(msg, Catch::StartsWith(path));
    CHECK_THAT(msg, Catch::Contains(c.expected));
  }
  CHECK_THAT(refusal([&] { read_trace((dir.path / "nothing.csv").string()); }), Catch::Contains("cannot open"));
  CHECK_THAT(refusal([&] { read_trace(dir.path.string()); }), Catch::Contains("a folder"));
}

TEST_CASE("JSON Lines traces are read, and the format is found without an extension", "[serving]") {
  TempDir dir;
  const std::string text =
      "{\"arrival_ms\": 0, \"prompt_tokens\": 100, \"output_tokens\": 10}\r\n"
      "\n"
      "{\"arrival_ms\": 1500, \"prompt_tokens\": 200.0, \"output_tokens\": 20, \"prefix_id\": null}\n"
      "  {\"arrival_s\": 1.5, \"output_tokens\": 30, \"prompt_tokens\": 300, \"prefix_id\": 7, \"prefix_tokens\": 64}\n"
      "{\"arrival_s\": 2, \"prompt_tokens\": 16777216, \"output_tokens\": 1, \"prefix_id\": -1}";
  for (const char* name : {"t.jsonl", "t.json", "t_no_extension", "t.txt"}) {
    INFO(name);
    const auto r = read_trace(dir.write(name, text));
    REQUIRE(r.size() == 4);
    CHECK(r[0].id == 0);
    CHECK(r[0].arrival_s == 0);
    CHECK(r[0].prompt_tokens == 100);
    CHECK(r[0].output_tokens == 10);
    CHECK(r[1].arrival_s == 1.5);
    CHECK(r[1].prompt_tokens == 200);
    CHECK(r[1].prefix_id == -1);
    CHECK(r[2].id == 2);
    CHECK(r[2].arrival_s == 1.5);
    CHECK(r[2].output_tokens == 30);
    CHECK(r[2].prefix_id == 7);
    CHECK(r[2].prefix_tokens == 64);
    CHECK(r[3].id == 3);
    CHECK(r[3].prompt_tokens == 16777216);
    CHECK(r[3].prefix_id == -1);
  }
  // The same content as CSV, found by its first character; arrival_ms converted to seconds.
  const auto c = read_trace(dir.write("c_no_extension", "arrival_ms,prompt_tokens,output_tokens\r\n250,5,6\r\n"));
  REQUIRE(c.size() == 1);
  CHECK(c[0].arrival_s == 0.25);
  CHECK(c[0].prompt_tokens == 5);
  // A .csv extension wins over the first character.
  CHECK_THAT(refusal([&] { read_trace(dir.write("x.csv", text)); }), Catch::EndsWith("x.csv:1: a JSON object in a .csv file: name a JSON Lines trace .jsonl"));
}

TEST_CASE("the shipped example traces read and match the generator", "[serving]") {
  const std::string dir = std::string(ROOFSIM_CONFIG_DIR) + "/traces/";
  for (const char* name : {"chat.csv", "code.csv", "shared_prefix.csv"}) {
    INFO(name);
    const auto r = read_trace(dir + name);
    CHECK(r.size() == 1000);
    CHECK(fs::file_size(dir + name) < 100000);
  }
  // scripts/make_traces.py re-implements the generator in Python; chat.csv and code.csv are what
  // generate_requests gives for the same settings (the script's SIMPLE list).
  struct Setting {
    const char* name;
    std::uint64_t seed;
    double rate;
    const char *prompt, *output;
  };
  for (const Setting& s : {Setting{"chat.csv", 1, 5.5, "lognormal:1000:1000:16:8192", "lognormal:250:250:1:2048"},
                           Setting{"code.csv", 2, 2.6, "lognormal:2000:1500:16:8192", "lognormal:20:20:1:512"}}) {
    INFO(s.name);
    WorkloadSpec w = closed(1000, s.prompt, s.output, s.seed);
    w.arrivals.kind = Arrivals::Kind::poisson;
    w.arrivals.rate_per_s = s.rate;
    const auto generated = generate_requests(w);
    const auto file = read_trace(dir + s.name);
    REQUIRE(file.size() == generated.size());
    CHECK(prompts_of(file) == prompts_of(generated));
    CHECK(outputs_of(file) == outputs_of(generated));
    std::size_t matching = 0;
    for (std::size_t i = 0; i < file.size(); ++i) matching += std::fabs(file[i].arrival_s - generated[i].arrival_s) <= 1e-9;
    CHECK(matching == file.size());
  }
}
