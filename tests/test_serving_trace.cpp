// A serving run over time: the Perfetto trace of its iterations and requests (one slice per
// iteration, counters that match the records, every request on a track it never overlaps on,
// the same bytes for the same result) and the time-series chart.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "serving/report.hpp"
#include "serving/serving.hpp"
#include "serving/serving_trace.hpp"
#include "tests/serving_test_util.hpp"
#include "tests/test_util.hpp"

using namespace roofsim;
using namespace roofsim::test;

namespace {


std::int64_t ns_of_s(double s) { return std::llround(s * 1e9); }
// As a viewer reads it: microseconds to whole nanoseconds.
std::int64_t ns_of_us(const nlohmann::json& us) { return std::llround(us.get<double>() * 1000.0); }

struct Slice {
  std::int64_t start = 0, end = 0;
  std::string name;
  nlohmann::json args;
};

struct ParsedTrace {
  std::map<int, std::string> processes;
  std::map<int, std::string> threads;                               // tid -> name
  std::map<int, std::vector<Slice>> slices;                          // tid -> slices, file order
  std::map<std::string, std::map<std::int64_t, double>> counters;   // "name key" -> ts -> value
  std::size_t counter_events = 0;
};

ParsedTrace parse(const std::string& text) {
  ParsedTrace t;
  const nlohmann::json j = nlohmann::json::parse(text);
  for (const nlohmann::json& e : j.at("traceEvents")) {
    const std::string ph = e.at("ph");
    REQUIRE(e.at("pid") == 1);
    if (ph == "M") {
      const std::string what = e.at("name");
      if (what == "process_name") t.processes[e.at("pid").get<int>()] = e.at("args").at("name");
      if (what == "thread_name") t.threads[e.at("tid").get<int>()] = e.at("args").at("name");
    } else if (ph == "X") {
      const std::int64_t start = ns_of_us(e.at("ts"));
      t.slices[e.at("tid").get<int>()].push_back({start, start + ns_of_us(e.at("dur")), e.at("name"), e.at("args")});
    } else {
      REQUIRE(ph == "C");
      ++t.counter_events;
      for (const auto& [key, value] : e.at("args").items()) {
        const std::string name = e.at("name").get<std::string>() + " " + key;
        CHECK(t.counters[name].emplace(ns_of_us(e.at("ts")), value.get<double>()).second);  // one value per time
      }
    }
  }
  return t;
}

// The most requests in the system at once ([arrival, finish) intervals).
int peak_in_system(const ServingResult& r) {
  std::vector<std::pair<std::int64_t, int>> events;
  for (const RequestRecord& q : r.requests) {
    events.emplace_back(ns_of_s(q.arrival_s), 1);
    events.emplace_back(ns_of_s(q.finish_s), -1);
  }
  std::sort(events.begin(), events.end());  // at equal times a finish (-1) before an arrival
  int now = 0, peak = 0;
  for (const auto& [t, d] : events) peak = std::max(peak, now += d);
  return peak;
}

// Everything the trace of `r` must say about it.
void check_trace(const ServingResult& r) {
  const std::string text = serving_trace_json(r);
  const ParsedTrace t = parse(text);
  REQUIRE(t.processes.size() == 1);
  CHECK(t.processes.at(1) == "serving");
  CHECK(t.threads.at(1) == "iterations");

  // One slice per iteration, where and as long as the record says, with what it held.
  const std::vector<Slice>& its = t.slices.at(1);
  REQUIRE(its.size() == r.iterations.size());
  std::size_t idle = 0;
  for (std::size_t i = 0; i < its.size(); ++i) {
    const IterationRecord& it = r.iterations[i];
    const Slice& s = its[i];
    INFO("iteration " << i);
    CHECK(s.start == ns_of_s(it.start_s));
    CHECK(s.end == ns_of_s(it.start_s + it.seconds));
    CHECK(s.name == (it.decode_sequences == 0 ? "prefill" : it.prefill_sequences == 0 ? "decode" : "mixed"));
    CHECK(s.args.at("prefill_sequences") == it.prefill_sequences);
    CHECK(s.args.at("prefill_tokens") == it.prefill_tokens);
    CHECK(s.args.at("decode_sequences") == it.decode_sequences);
    CHECK(s.args.at("kv_blocks_used") == it.kv_blocks_used);
    CHECK(s.args.at("waiting") == it.waiting);
    CHECK(s.args.at("shape") == groups_text(r.shapes.at(static_cast<std::size_t>(it.shape)).groups));
    if (i > 0) CHECK(s.start >= its[i - 1].end);  // one after another on one track
    // Counters at the start of every iteration, as the record says.
    CHECK(t.counters.at("batch size").at(s.start) == it.prefill_sequences + it.decode_sequences);
    CHECK(t.counters.at("tokens per iteration").at(s.start) == it.prefill_tokens + it.decode_sequences);
    CHECK(t.counters.at("KV blocks in use").at(s.start) == it.kv_blocks_used);
    CHECK(t.counters.at("requests waiting").at(s.start) == it.waiting);
    // ...and zeros where the machine goes idle.
    if (i + 1 == its.size() || its[i + 1].start > s.end) {
      ++idle;
      for (const char* c : {"batch size", "tokens per iteration", "KV blocks in use", "requests waiting"}) {
        CHECK(t.counters.at(c).at(s.end) == 0);
      }
    }
  }
  CHECK(t.counters.size() == 4);
  CHECK(t.counter_events == 4 * (r.iterations.size() + idle));

  // Every request: a slice from arrival to finish, waiting up to its first token, then generating.
  std::map<std::int64_t, std::vector<const Slice*>> by_request;  // id -> request, waiting, generating
  int lanes = 0;
  for (const auto& [tid, slices] : t.slices) {
    if (tid == 1) continue;
    ++lanes;
    CHECK(t.threads.at(tid) == "requests " + std::to_string(tid - 1));
    std::vector<std::pair<std::int64_t, std::int64_t>> spans;
    for (const Slice& s : slices) {
      by_request[s.args.at("id").get<std::int64_t>()].push_back(&s);
      if (s.name.rfind("request ", 0) == 0) spans.emplace_back(s.start, s.end);
    }
    std::sort(spans.begin(), spans.end());
    for (std::size_t k = 1; k < spans.size(); ++k) CHECK(spans[k].first >= spans[k - 1].second);  // lanes never overlap
  }
  CHECK(lanes == peak_in_system(r));  // no more tracks than requests at once in the system
  REQUIRE(by_request.size() == r.requests.size());
  for (const RequestRecord& q : r.requests) {
    INFO("request " << q.spec.id);
    const std::vector<const Slice*>& s = by_request.at(q.spec.id);
    REQUIRE(s.size() == 3);  // every request here waits and generates
    CHECK(s[0]->name == "request " + std::to_string(q.spec.id));
    CHECK(s[0]->start == ns_of_s(q.arrival_s));
    CHECK(s[0]->end == ns_of_s(q.finish_s));
    CHECK(s[0]->args.at("prompt_tokens") == q.spec.prompt_tokens);
    CHECK(s[0]->args.at("output_tokens") == q.spec.output_tokens);
    CHECK(s[0]->args.at("preemptions") == q.preemptions);
    CHECK(s[1]->name == "waiting");
    CHECK(s[1]->start == ns_of_s(q.arrival_s));
    CHECK(s[1]->end == ns_of_s(q.first_token_s));
    CHECK(s[2]->name == "generating");
    CHECK(s[2]->start == ns_of_s(q.first_token_s));
    CHECK(s[2]->end == ns_of_s(q.finish_s));
  }
  // The same result, the same bytes.
  CHECK(serving_trace_json(r) == text);
}

bool have_gnuplot() { return std::system("command -v gnuplot >/dev/null 2>&1") == 0; }

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("roofsim_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

// A made-up result of `n` back-to-back iterations (none simulated): what a long run leaves.
ServingResult synthetic(std::size_t n) {
  ServingResult r;
  r.kv_blocks = 5000;
  r.model.name = "synthetic";
  r.hw.description = "no chip";
  IterationShape shape;
  shape.groups = {{4, 1, 1000, false}};
  shape.uses = static_cast<std::int64_t>(n);
  r.shapes.push_back(shape);
  double t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    IterationRecord it;
    it.start_s = t;
    it.seconds = 0.004 + 0.001 * static_cast<double>(i % 7);
    it.decode_sequences = static_cast<std::int32_t>(1 + (i * 37) % 200);
    it.prefill_sequences = i % 5 == 0 ? 1 : 0;
    it.prefill_tokens = it.prefill_sequences * 512;
    it.kv_blocks_used = static_cast<std::int64_t>((i * 101) % 5000);
    it.waiting = static_cast<std::int32_t>((i * 13) % 90);
    r.iterations.push_back(it);
    t += it.seconds;
  }
  return r;
}

}  // namespace

TEST_CASE("serving trace: a slice per iteration, counters as recorded, requests on lanes that never overlap",
          "[systemc][serving][timeline]") {
  SECTION("closed loop, mixed lengths") {
    const ServingResult r = run_serving(serving_setup(40, 8, "uniform:64:512", "uniform:8:64"));
    check_trace(r);
    CHECK(peak_in_system(r) == 8);  // 8 clients: 8 lanes, not 40
  }
  SECTION("Poisson arrivals: idle gaps and a queue") {
    ServingSetup s = serving_setup(40, 8, "uniform:64:512", "uniform:8:64");
    s.workload.arrivals.kind = Arrivals::Kind::poisson;
    s.workload.arrivals.rate_per_s = 60;
    const ServingResult r = run_serving(s);
    check_trace(r);
    const ServingTimeseries ts = serving_timeseries(r);
    CHECK(ts.batch.t_s.size() > r.iterations.size() + 1);  // the machine went idle before the end too
  }
}

TEST_CASE("serving trace: the same setup gives the same bytes", "[systemc][serving][timeline]") {
  const ServingSetup s = serving_setup(24, 6, "normal:300:100", "lognormal:40:20");
  const std::string a = serving_trace_json(run_serving(s));
  CHECK(serving_trace_json(run_serving(s)) == a);
  CHECK(a.find("\"displayTimeUnit\":\"ns\"") != std::string::npos);
}

TEST_CASE("request lanes: a lane is reused once its request finished, the lowest first", "[systemc][serving][timeline]") {
  ServingResult r;
  // (arrival, first token, finish): 0 and 1 overlap; 2 arrives as 0 finishes; 3 and 4 at once.
  const std::vector<std::array<double, 3>> times{{0, 1, 2}, {0.5, 1, 3}, {2, 2.5, 4}, {3, 3.5, 5}, {3, 3.2, 3.6}};
  for (std::size_t i = 0; i < times.size(); ++i) {
    RequestRecord q;
    q.spec.id = static_cast<std::int64_t>(i);
    q.arrival_s = times[i][0];
    q.first_token_s = times[i][1];
    q.finish_s = times[i][2];
    r.requests.push_back(q);
  }
  CHECK(request_lanes(r) == std::vector<int>{0, 1, 0, 1, 2});
}

TEST_CASE("serving time series: 80,000 iterations thinned to min and max per bin, quickly", "[systemc][serving][timeline]") {
  const ServingResult r = synthetic(80000);
  const auto t0 = std::chrono::steady_clock::now();
  const ServingTimeseries all = serving_timeseries(r);
  const ServingTimeseries thin = serving_timeseries(r, kTimeseriesPlotPoints);
  CHECK(all.batch.t_s.size() == r.iterations.size() + 1);  // back to back, idle only at the end
  CHECK(all.end_s == Approx(r.iterations.back().start_s + r.iterations.back().seconds));
  for (const auto& [a, b] : {std::pair{&all.batch, &thin.batch}, {&all.tokens, &thin.tokens},
                             {&all.kv_blocks, &thin.kv_blocks}, {&all.waiting, &thin.waiting}}) {
    CHECK(b->t_s.size() <= kTimeseriesPlotPoints + 2);
    CHECK(b->t_s.size() > kTimeseriesPlotPoints / 2);
    CHECK(std::is_sorted(b->t_s.begin(), b->t_s.end()));
    CHECK(b->t_s.front() == a->t_s.front());
    CHECK(b->t_s.back() == a->t_s.back());
    CHECK(*std::max_element(b->value.begin(), b->value.end()) == *std::max_element(a->value.begin(), a->value.end()));
    CHECK(*std::min_element(b->value.begin(), b->value.end()) == *std::min_element(a->value.begin(), a->value.end()));
  }
  CHECK(serving_timeseries(r, kTimeseriesPlotPoints).kv_blocks.value == thin.kv_blocks.value);  // deterministic
  const std::string trace = serving_trace_json(r);
  CHECK(nlohmann::json::parse(trace).at("traceEvents").size() == 4 + 80000 + 4 * 80001);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO("time series and trace of 80,000 iterations took " << seconds << " s");
  CHECK(seconds < 30);
}

TEST_CASE("serving time-series chart: PNG and SVG, refused for another extension", "[systemc][serving][timeline]") {
  CHECK_THROWS_WITH(write_serving_timeseries_plot(temp_path("x.gif"), synthetic(10)), Catch::Contains("expected a .png or .svg"));
  if (!have_gnuplot()) {
    WARN("gnuplot is not on PATH: the chart is not drawn");
    return;
  }
  const ServingResult small = run_serving(serving_setup(16, 4, "uniform:64:256", "uniform:8:32"));
  for (const auto& [name, r] : {std::pair<std::string, const ServingResult*>{"timeline.png", &small},
                                {"timeline.svg", &small}, {"timeline_80k.svg", nullptr}}) {
    const ServingResult big = r ? ServingResult{} : synthetic(80000);
    const std::string path = temp_path(name);
    std::filesystem::remove(path);
    write_serving_timeseries_plot(path, r ? *r : big);
    INFO(path);
    REQUIRE(std::filesystem::exists(path));
    CHECK(std::filesystem::file_size(path) > 1000);
    const std::string head = read_file(path).substr(0, 400);
    if (name.size() > 4 && name.substr(name.size() - 4) == ".png") {
      CHECK(head.substr(1, 3) == "PNG");
    } else {
      CHECK(head.find("<svg") != std::string::npos);
    }
    std::filesystem::remove(path);
  }
}

TEST_CASE("serving trace of a disaggregated run: a track of iterations per instance, none overlapping", "[systemc][serving][timeline]") {
  ServingSetup s = serving_setup(24, 8, "uniform:200:600", "uniform:8:40");
  s.disaggregation.enabled = true;
  s.disaggregation.decode_instances = 2;
  const ServingResult r = run_serving(s);
  const nlohmann::json trace = nlohmann::json::parse(serving_trace_json(r));
  std::map<int, std::string> names;
  std::map<int, std::vector<std::pair<double, double>>> slices;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") names[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
    if (e["ph"] == "X" && e["cat"] == "iteration") {
      slices[e["tid"].get<int>()].push_back({e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
    }
  }
  CHECK(names[1] == "iterations (prefill 0)");
  CHECK(names[2] == "iterations (decode 1)");
  CHECK(names[3] == "iterations (decode 2)");
  CHECK(names[4] == "requests 1");
  REQUIRE(slices.size() == 3);
  std::size_t total = 0;
  for (auto& [tid, list] : slices) {
    total += list.size();
    for (std::size_t i = 1; i < list.size(); ++i) CHECK(list[i].first >= list[i - 1].second - 1e-3);
  }
  CHECK(total == r.iterations.size());
}
