// The Perfetto trace of inference runs: slices nest or are disjoint on every track, the ops
// track comes first, a process per simulated chip and link tracks in multi-chip runs, and the
// same run gives the same bytes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "experiment/inference.hpp"
#include "experiment/trace.hpp"

using namespace roofsim;

namespace {

// A model preset cut to two layers: the same shapes per layer, a fraction of the time.
Experiment two_layers(const std::string& preset, std::int64_t batch) {
  Experiment e;
  e.model = preset;
  ModelConfig m = load_model(preset);
  m.layers = 2;
  e.model_config = m;
  e.batch = batch;
  e.prompt = 32;
  e.generate = 2;
  e.trace_steps = 2;
  return e;
}

struct Track {
  std::string name;
  double sort_index = -1;
  std::vector<std::pair<std::int64_t, std::int64_t>> slices;  // [start, end) in ns
};

struct Trace {
  std::map<int, std::string> processes;
  std::map<std::pair<int, int>, Track> tracks;  // by (pid, tid)
};

// As a viewer reads it: microseconds to whole nanoseconds (Perfetto rounds ts and dur apiece).
std::int64_t ns(const nlohmann::json& us) { return std::llround(us.get<double>() * 1000.0); }

Trace parse(const std::string& text) {
  Trace t;
  const nlohmann::json j = nlohmann::json::parse(text);
  for (const nlohmann::json& e : j.at("traceEvents")) {
    const std::string ph = e.at("ph");
    const int pid = e.at("pid");
    if (ph == "M") {
      const std::string what = e.at("name");
      if (what == "process_name") t.processes[pid] = e.at("args").at("name");
      if (what == "thread_name") t.tracks[{pid, e.at("tid").get<int>()}].name = e.at("args").at("name");
      if (what == "thread_sort_index") t.tracks[{pid, e.at("tid").get<int>()}].sort_index = e.at("args").at("sort_index");
    } else {
      REQUIRE(ph == "X");
      const std::int64_t start = ns(e.at("ts"));
      t.tracks[{pid, e.at("tid").get<int>()}].slices.emplace_back(start, start + ns(e.at("dur")));
    }
  }
  return t;
}

// Slices on a track that start inside an earlier one and end after it: what a viewer cannot nest.
int partial_overlaps(std::vector<std::pair<std::int64_t, std::int64_t>> slices) {
  std::sort(slices.begin(), slices.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  int bad = 0;
  std::vector<std::int64_t> open;  // ends of the enclosing slices
  for (const auto& [start, end] : slices) {
    while (!open.empty() && open.back() <= start) open.pop_back();
    if (!open.empty() && end > open.back()) ++bad;
    open.push_back(end);
  }
  return bad;
}

// What every trace must satisfy; returns the names of its tracks.
std::set<std::string> check_layout(const Trace& t) {
  std::set<std::string> names;
  std::map<int, std::pair<double, std::string>> first_track;  // per process: lowest sort index, its track
  for (const auto& [id, track] : t.tracks) {
    INFO("process " << t.processes.at(id.first) << ", track " << track.name);
    CHECK(!track.name.empty());
    CHECK(track.sort_index >= 0);
    CHECK(partial_overlaps(track.slices) == 0);
    names.insert(track.name);
    auto [it, fresh] = first_track.try_emplace(id.first, track.sort_index, track.name);
    if (!fresh && track.sort_index < it->second.first) it->second = {track.sort_index, track.name};
  }
  // In every chip's process the ops track sorts first (a links process has none).
  for (const auto& [pid, first] : first_track) {
    if (t.processes.at(pid).rfind("links", 0) == 0) continue;
    INFO("process " << t.processes.at(pid));
    CHECK(first.second == "ops");
  }
  return names;
}

bool any_named(const std::set<std::string>& names, const std::string& part) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("trace of a pipeline run: slices nest, ops first, a process per stage, links", "[systemc][trace]") {
  Experiment e = two_layers("llama-3-8b", 4);
  e.tp = 2;
  e.pp = 2;
  const ExperimentResult r = run_experiment(e, RunControl{});
  const std::string text = trace_json(r);
  const Trace t = parse(text);
  const std::set<std::string> names = check_layout(t);
  // Two simulated chips (each stands for its stage's TP pair) and the links of switch:4.
  REQUIRE(t.processes.size() == 3);
  CHECK(t.processes.at(1).rfind("stage 0: chips 0-1", 0) == 0);
  CHECK(t.processes.at(2).rfind("stage 1: chips 2-3", 0) == 0);
  CHECK(t.processes.at(3) == "links (switch:4)");
  // Both stages ran ops; every chip's port into the switch carried traffic (the TP all-reduces).
  for (int pid : {1, 2}) {
    std::size_t ops = 0;
    for (const auto& [id, track] : t.tracks) {
      if (id.first == pid && track.name.rfind("ops", 0) == 0) ops += track.slices.size();
    }
    CHECK(ops > 0);
  }
  for (int c = 0; c < 4; ++c) CHECK(names.count("chip" + std::to_string(c) + "->switch") == 1);
  CHECK(text.find("attn_allreduce\",\"ph\":\"X\",\"pid\":3") != std::string::npos);
  CHECK(text.find("send_to_stage1\",\"ph\":\"X\",\"pid\":3") != std::string::npos);
  // Deterministic: the same run, the same bytes.
  CHECK(trace_json(run_experiment(e, RunControl{})) == text);
}

TEST_CASE("trace of an expert-parallel run: overlapping work goes to further lanes", "[systemc][trace]") {
  // Qwen2-57B-A14B: its shared expert's MLP runs beside the routed experts' grouped GEMMs.
  Experiment e = two_layers("Qwen/Qwen2-57B-A14B", 8);
  e.ep = 2;
  const ExperimentResult r = run_experiment(e, RunControl{});
  const Trace t = parse(trace_json(r));
  const std::set<std::string> names = check_layout(t);
  REQUIRE(t.processes.size() == 2);
  CHECK(t.processes.at(1).rfind("chips 0-1 in lockstep", 0) == 0);
  CHECK(t.processes.at(2) == "links (switch:2)");
  // The shared and the routed experts run side by side and HBM requests overlap: without lanes
  // these tracks would hold slices that partially overlap.
  CHECK(names.count("ops 2") == 1);
  CHECK(names.count("HBM stack 0 (2)") == 1);
  CHECK(any_named(names, "->switch"));
}

TEST_CASE("trace size limit: fewer steps, or a refusal naming the flag", "[systemc][trace]") {
  Experiment e = two_layers("llama-3-8b", 1);
  e.trace_steps = 3;
  e.generate = 4;
  const ExperimentResult r = run_experiment(e, RunControl{});
  const TraceLayout t(r);
  REQUIRE(t.steps() == 3);
  const std::uint64_t one = t.events(1), two = t.events(2), three = t.events(3);
  CHECK(one < two);
  CHECK(two < three);
  CHECK(t.steps_within(three) == 3);
  CHECK(t.steps_within(three - 1) == 2);
  CHECK(t.steps_within(one) == 1);
  // The count is the trace's: one event per line after the opening line.
  const std::string text = t.json(2);
  CHECK(static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) == two + 2);
  CHECK_THROWS_WITH(t.steps_within(one - 1), Catch::Contains("prefill alone would have " + std::to_string(one) + " events") &&
                                                 Catch::Contains("trace_max_events"));
  try {
    t.steps_within(one - 1);
  } catch (const InputError& err) {
    CHECK(render_setting_names(err.raw(), SettingNames::flag).find("--trace-max-events") != std::string::npos);
  }
}

TEST_CASE("trace of the memory seam: every TLM transport call of the DMA engine, by initiator and target, with its bytes", "[systemc][trace]") {
  Experiment e = two_layers("llama-3-8b", 2);
  const ExperimentResult r = run_experiment(e, RunControl{});
  const std::string text = trace_json(r);
  check_layout(parse(text));
  // The calls' bytes, summed over the transport track, are what the traced steps' ops moved
  // through HBM: every read and write, less the reads served where resident in the tile buffer.
  std::uint64_t traced = 0, calls = 0;
  const nlohmann::json j = nlohmann::json::parse(text);
  std::set<int> transport_tracks;
  for (const nlohmann::json& ev : j.at("traceEvents")) {
    if (ev.at("ph") == "M" && ev.at("name") == "thread_name" && ev.at("args").at("name") == "transport DMA engine -> HBM") {
      transport_tracks.insert(ev.at("tid").get<int>());
    }
  }
  REQUIRE(transport_tracks.size() == 1);
  for (const nlohmann::json& ev : j.at("traceEvents")) {
    if (ev.at("ph") != "X" || !transport_tracks.count(ev.at("tid").get<int>())) continue;
    calls += ev.at("args").at("calls").get<std::uint64_t>();
    traced += ev.at("args").at("bytes").get<std::uint64_t>();
  }
  std::uint64_t moved = 0;
  for (const OpInstance& o : r.ops) {
    if (o.step < e.trace_steps) moved += o.result.bytes_read + o.result.bytes_written - o.result.onchip_bytes_read;
  }
  CHECK(moved > 0);
  CHECK(traced == moved);
  CHECK(calls > 0);
  // Another memory bound in the HBM's place is the transport's target.
  e.hardware = load_hardware("h100_sxm5");
  e.hardware->memory.model = "l2_hit_rate";
  e.hardware->memory.hit_rate = 0.5;
  CHECK(trace_json(run_experiment(e, RunControl{})).find("\"transport DMA engine -> memory model l2_hit_rate\"") != std::string::npos);
}
