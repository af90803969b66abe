#include "serving/serving_trace.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <locale>
#include <map>
#include <queue>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "experiment/plot.hpp"
#include "experiment/trace.hpp"
#include "serving/report.hpp"

namespace roofsim {

namespace {

// Seconds to the nearest nanosecond: what a trace viewer keeps.
std::int64_t to_ns(double s) { return static_cast<std::int64_t>(std::llround(s * 1e9)); }

void append_us(std::string& out, std::int64_t ns) { append_trace_us(out, ns); }
std::string escaped(const std::string& s) { return trace_quoted(s); }

const char* iteration_kind(const IterationRecord& it) {
  if (it.decode_sequences == 0) return "prefill";
  if (it.prefill_sequences == 0) return "decode";
  return "mixed";
}

// Where each iteration ends, in ns, and whether the machine goes idle after it.
struct IterationTimes {
  std::vector<std::int64_t> start, end;
  std::vector<bool> idle_after;
};

IterationTimes iteration_times(const ServingResult& r) {
  IterationTimes t;
  const std::size_t n = r.iterations.size();
  t.start.reserve(n);
  t.end.reserve(n);
  for (const IterationRecord& it : r.iterations) {
    t.start.push_back(to_ns(it.start_s));
    t.end.push_back(std::max(t.start.back(), to_ns(it.start_s + it.seconds)));
  }
  // A track (an instance, or a micro-batch of one) goes idle after an iteration when its next
  // one starts later (or never comes).
  t.idle_after.assign(n, true);
  std::map<std::int32_t, std::size_t> last_of;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t track = r.iterations[i].worker + r.iterations[i].micro_batch;
    auto found = last_of.find(track);
    if (found != last_of.end()) t.idle_after[found->second] = t.start[i] > t.end[found->second];
    last_of[track] = i;
  }
  return t;
}

// Lowest and highest point of each of `bins` equal bins of the span, plus the first and last.
StepSeries thin(const StepSeries& s, std::size_t max_points) {
  const std::size_t n = s.t_s.size();
  if (max_points == 0 || n <= max_points + 2) return s;
  const std::size_t bins = std::max<std::size_t>(1, max_points / 2);
  const double t0 = s.t_s.front(), span = s.t_s.back() - t0;
  std::vector<std::size_t> lo(bins, n), hi(bins, n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t b = span > 0 ? static_cast<std::size_t>((s.t_s[i] - t0) / span * static_cast<double>(bins)) : 0;
    b = std::min(b, bins - 1);
    if (lo[b] == n || s.value[i] < s.value[lo[b]]) lo[b] = i;
    if (hi[b] == n || s.value[i] > s.value[hi[b]]) hi[b] = i;
  }
  std::vector<std::size_t> keep{0, n - 1};
  for (std::size_t b = 0; b < bins; ++b) {
    if (lo[b] < n) keep.push_back(lo[b]);
    if (hi[b] < n) keep.push_back(hi[b]);
  }
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
  StepSeries out;
  for (std::size_t i : keep) {
    out.t_s.push_back(s.t_s[i]);
    out.value.push_back(s.value[i]);
  }
  return out;
}

}  // namespace

std::vector<int> request_lanes(const ServingResult& r) {
  const std::size_t n = r.requests.size();
  std::vector<int> lane(n, -1);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < n; ++i) {
    if (r.requests[i].finish_s >= 0) order.push_back(i);
  }
  auto arrival = [&](std::size_t i) { return to_ns(r.requests[i].arrival_s); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const std::int64_t ta = arrival(a), tb = arrival(b);
    return ta != tb ? ta < tb : r.requests[a].spec.id < r.requests[b].spec.id;
  });
  using Busy = std::pair<std::int64_t, int>;  // (finish ns, lane)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<Busy>> busy;
  std::priority_queue<int, std::vector<int>, std::greater<int>> idle;
  int lanes = 0;
  for (std::size_t i : order) {
    const std::int64_t t = arrival(i);
    while (!busy.empty() && busy.top().first <= t) {
      idle.push(busy.top().second);
      busy.pop();
    }
    int k;
    if (idle.empty()) {
      k = lanes++;
    } else {
      k = idle.top();
      idle.pop();
    }
    lane[i] = k;
    busy.push({std::max(t, to_ns(r.requests[i].finish_s)), k});
  }
  return lane;
}

std::string serving_trace_json(const ServingResult& r) {
  const IterationTimes times = iteration_times(r);
  const std::vector<int> lanes = request_lanes(r);
  int lane_count = 0;
  for (int k : lanes) lane_count = std::max(lane_count, k + 1);
  // Instances (disaggregated serving has several): a track of iterations and counters each.
  // Pipeline stages run several iterations at once on one instance: a track each.
  int instances = 1;
  for (const IterationRecord& it : r.iterations) instances = std::max(instances, it.worker + it.micro_batch + 1);
  auto instance_name = [&](std::int32_t worker) -> std::string {
    if (instances == 1) return "";
    if (!r.setup.disaggregation.enabled) return " (micro-batch " + std::to_string(worker) + ")";
    const bool prefill = worker < r.setup.disaggregation.prefill_instances;
    return std::string(prefill ? " (prefill " : " (decode ") + std::to_string(worker) + ")";
  };
  const std::int64_t verify_tokens = 1 + r.setup.speculative.tokens;

  std::string out = "{\"displayTimeUnit\":\"ns\",\"otherData\":";
  out += nlohmann::json{{"model", r.model.name},
                        {"hardware", r.hw.name},
                        {"chips", r.chips},
                        {"scheduler", describe_scheduler(r.setup.scheduler, r.setup.machine.pp)},
                        {"kv_blocks_per_chip", r.kv_blocks},
                        {"requests", r.requests.size()},
                        {"iterations", r.iterations.size()}}
             .dump();
  out += ",\"traceEvents\":[\n";
  bool first = true;
  auto begin_event = [&] {
    if (!first) out += ",\n";
    first = false;
  };
  auto metadata = [&](const char* what, int tid, const nlohmann::json& args) {
    nlohmann::json m{{"name", what}, {"ph", "M"}, {"pid", 1}, {"args", args}};
    if (tid > 0) m["tid"] = tid;
    begin_event();
    out += m.dump();
  };
  metadata("process_name", 0, {{"name", "serving"}});
  metadata("process_sort_index", 0, {{"sort_index", 1}});
  for (int w = 0; w < instances; ++w) {
    metadata("thread_name", w + 1, {{"name", "iterations" + instance_name(w)}});
    metadata("thread_sort_index", w + 1, {{"sort_index", w + 1}});
  }
  for (int k = 0; k < lane_count; ++k) {
    metadata("thread_name", k + 1 + instances, {{"name", "requests " + std::to_string(k + 1)}});
    metadata("thread_sort_index", k + 1 + instances, {{"sort_index", k + 1 + instances}});
  }

  // Iterations.
  std::vector<std::string> shape_text;
  for (const IterationShape& s : r.shapes) shape_text.push_back(escaped(groups_text(s.groups)));
  for (std::size_t i = 0; i < r.iterations.size(); ++i) {
    const IterationRecord& it = r.iterations[i];
    begin_event();
    out += "{\"dur\":";
    append_us(out, times.end[i] - times.start[i]);
    out += ",\"args\":{\"iteration\":" + std::to_string(i) + ",\"prefill_sequences\":" + std::to_string(it.prefill_sequences) +
           ",\"prefill_tokens\":" + std::to_string(it.prefill_tokens) + ",\"decode_sequences\":" +
           std::to_string(it.decode_sequences) + ",\"kv_blocks_used\":" + std::to_string(it.kv_blocks_used) +
           ",\"waiting\":" + std::to_string(it.waiting) + ",\"shape\":";
    const std::size_t shape = static_cast<std::size_t>(it.shape);
    out += shape < shape_text.size() ? shape_text[shape] : std::string("\"\"");
    out += "},\"cat\":\"iteration\",\"name\":\"";
    out += iteration_kind(it);
    out += "\",\"ph\":\"X\",\"pid\":1,\"tid\":" + std::to_string(it.worker + it.micro_batch + 1) + ",\"ts\":";
    append_us(out, times.start[i]);
    out += "}";
  }

  // Counters: each name and arg key read together ("batch" "size": Perfetto's track "batch size").
  auto counter = [&](const std::string& name, const char* key, std::int64_t value, std::int64_t ts) {
    begin_event();
    out += "{\"args\":{\"";
    out += key;
    out += "\":" + std::to_string(value) + "},\"name\":\"";
    out += name;  // plain words: nothing to escape
    out += "\",\"ph\":\"C\",\"pid\":1,\"ts\":";
    append_us(out, ts);
    out += "}";
  };
  auto counters = [&](const std::string& who, std::int64_t batch, std::int64_t tokens, std::int64_t kv, std::int64_t waiting,
                      std::int64_t ts) {
    counter("batch" + who, "size", batch, ts);
    counter("tokens" + who, "per iteration", tokens, ts);
    counter("KV blocks" + who, "in use", kv, ts);
    counter("requests" + who, "waiting", waiting, ts);
  };
  for (std::size_t i = 0; i < r.iterations.size(); ++i) {
    const IterationRecord& it = r.iterations[i];
    const std::string who = instance_name(it.worker + it.micro_batch);
    counters(who, it.prefill_sequences + it.decode_sequences, it.prefill_tokens + it.decode_sequences * verify_tokens,
             it.kv_blocks_used, it.waiting, times.start[i]);
    if (times.idle_after[i]) counters(who, 0, 0, 0, 0, times.end[i]);
  }

  // Requests, in order of arrival on their lanes.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < r.requests.size(); ++i) {
    if (lanes[i] >= 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const std::int64_t ta = to_ns(r.requests[a].arrival_s), tb = to_ns(r.requests[b].arrival_s);
    return ta != tb ? ta < tb : r.requests[a].spec.id < r.requests[b].spec.id;
  });
  for (std::size_t i : order) {
    const RequestRecord& q = r.requests[i];
    const std::string tid = std::to_string(lanes[i] + 1 + instances);
    const std::int64_t arrival = to_ns(q.arrival_s);
    const std::int64_t finish = std::max(arrival, to_ns(q.finish_s));
    const std::int64_t first_token = std::clamp(q.first_token_s >= 0 ? to_ns(q.first_token_s) : finish, arrival, finish);
    const std::string id = std::to_string(q.spec.id);
    auto slice = [&](const std::string& name, std::int64_t start, std::int64_t end, const std::string& args) {
      begin_event();
      out += "{\"dur\":";
      append_us(out, end - start);
      out += ",\"args\":" + args + ",\"cat\":\"request\",\"name\":\"" + name + "\",\"ph\":\"X\",\"pid\":1,\"tid\":" + tid +
             ",\"ts\":";
      append_us(out, start);
      out += "}";
    };
    const nlohmann::json args{{"id", q.spec.id},
                              {"prompt_tokens", q.spec.prompt_tokens},
                              {"output_tokens", q.spec.output_tokens},
                              {"preemptions", q.preemptions},
                              {"counted", q.spec.id >= r.setup.warmup_requests},
                              {"ttft_ms", q.ttft_s() * 1e3},
                              {"tpot_ms", q.tpot_s() * 1e3},
                              {"e2e_ms", q.e2e_s() * 1e3}};
    slice("request " + id, arrival, finish, args.dump());
    const std::string id_args = "{\"id\":" + id + "}";
    if (first_token > arrival) slice("waiting", arrival, first_token, id_args);
    if (finish > first_token) slice("generating", first_token, finish, id_args);
  }
  out += "\n]}\n";
  return out;
}

ServingTimeseries serving_timeseries(const ServingResult& r, std::size_t max_points) {
  ServingTimeseries ts;
  const IterationTimes times = iteration_times(r);
  auto add = [&](double t, double batch, double tokens, double kv, double waiting) {
    for (auto [s, v] : {std::pair{&ts.batch, batch}, {&ts.tokens, tokens}, {&ts.kv_blocks, kv}, {&ts.waiting, waiting}}) {
      s->t_s.push_back(t);
      s->value.push_back(v);
    }
  };
  for (std::size_t i = 0; i < r.iterations.size(); ++i) {
    const IterationRecord& it = r.iterations[i];
    add(it.start_s, it.prefill_sequences + it.decode_sequences,
        static_cast<double>(it.prefill_tokens + it.decode_sequences * (1 + r.setup.speculative.tokens)),
        static_cast<double>(it.kv_blocks_used), it.waiting);
    if (times.idle_after[i]) add(it.start_s + it.seconds, 0, 0, 0, 0);
  }
  if (!r.iterations.empty()) ts.end_s = r.iterations.back().start_s + r.iterations.back().seconds;
  if (max_points > 0) {
    for (StepSeries* s : {&ts.batch, &ts.tokens, &ts.kv_blocks, &ts.waiting}) *s = thin(*s, max_points);
  }
  return ts;
}

void write_serving_timeseries_plot(const std::string& path, const ServingResult& r) {
  const std::string terminal = plot_terminal(path, 1000, 900);
  if (r.iterations.empty()) throw InputError("${plot} " + path + ": the run has no iterations to chart");
  if (r.setup.disaggregation.enabled) {
    throw InputError("${plot} charts one instance's batch, queue and cache; a disaggregated run has several: use ${trace}, "
                     "which has a track and counters per instance");
  }
  const ServingTimeseries ts = serving_timeseries(r, kTimeseriesPlotPoints);
  const std::filesystem::path dir = plot_dir();
  const std::filesystem::path data = dir / "timeline.dat", script = dir / "timeline.gp";
  {
    std::ofstream d(data);
    d.imbue(std::locale::classic());
    d.precision(10);
    bool first = true;
    for (const StepSeries* s : {&ts.batch, &ts.waiting, &ts.tokens, &ts.kv_blocks}) {
      if (!first) d << "\n\n";  // the next gnuplot index
      first = false;
      for (std::size_t i = 0; i < s->t_s.size(); ++i) d << s->t_s[i] << " " << s->value[i] << "\n";
    }
  }
  const std::string title = gnuplot_lines({"roofsim serve: " + r.model.name + " on " +
                                          (r.chips > 1 ? std::to_string(r.chips) + " x " : "") + r.hw.description + ", " +
                                          std::to_string(r.requests.size()) + " requests",
                                      describe_scheduler(r.setup.scheduler, r.setup.machine.pp)});
  const std::string file = gnuplot_quoted(data.string());
  {
    std::ofstream g = open_gnuplot_script(script, terminal, path);
    g << "set multiplot layout 3,1 title " << title << "\n"
      << "set lmargin 12\nset rmargin 4\n"
      << "set grid\n"
      << "set key above right horizontal\n"
      << "set xrange [0:" << std::max(ts.end_s, 1e-9) << "]\n"
      << "set yrange [0:*]\n"
      << "set offsets 0, 0, graph 0.08, 0\n"
      << "set format x ''\n"
      << "set ylabel 'requests'\n"
      << "plot " << file << " index 0 using 1:2 with steps lw 1.5 lc rgb 'blue' title 'batch size (sequences)', \\\n"
      << "     " << file << " index 1 using 1:2 with steps lw 1.5 lc rgb 'red' title 'queue (requests waiting)'\n"
      << "set ylabel 'tokens'\n"
      << "plot " << file << " index 2 using 1:2 with steps lw 1.5 lc rgb 'dark-green' title 'tokens per iteration'\n"
      << "set format x '%g'\n"
      << "set xlabel 'simulated time (s)'\n"
      << "set ylabel 'KV blocks per chip'\n"
      << "set yrange [0:" << std::max<double>(static_cast<double>(r.kv_blocks) * 1.1, 1) << "]\n"
      << "set offsets 0, 0, 0, 0\n"
      << "plot " << file << " index 3 using 1:2 with steps lw 1.5 lc rgb 'dark-violet' title 'KV blocks in use', \\\n"
      << "     " << r.kv_blocks << " with lines dashtype 2 lc rgb 'black' title 'capacity (" << r.kv_blocks << ")'\n"
      << "unset multiplot\n";
  }
  run_gnuplot(script, dir);
}

}  // namespace roofsim
