#include "experiment/trace.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/format.hpp"

namespace roofsim {

namespace {

// Picoseconds to the nearest nanosecond. Monotonic: slices that nest or are disjoint in
// picoseconds still do in nanoseconds, which is what a viewer reads (Perfetto keeps ns).
std::int64_t to_ns(Picoseconds ps) { return static_cast<std::int64_t>((ps + 500) / 1000); }

void append_us(std::string& out, std::int64_t ns) { append_trace_us(out, ns); }
std::string escaped(const std::string& s) { return trace_quoted(s); }

// "ops", "ops 2"; a name that ends in a number gets its lane in parentheses: "HBM stack 0 (2)".
std::string lane_name(const std::string& base, std::size_t lane) {
  if (lane == 0) return base;
  const bool number = !base.empty() && base.back() >= '0' && base.back() <= '9';
  return base + (number ? " (" + std::to_string(lane + 1) + ")" : " " + std::to_string(lane + 1));
}

std::string chips_text(int first, int count) {
  return count == 1 ? "chip " + std::to_string(first)
                    : "chips " + std::to_string(first) + "-" + std::to_string(first + count - 1) + " in lockstep";
}

}  // namespace

std::size_t TraceLayout::Track::slices_before(int steps) const {
  return static_cast<std::size_t>(
      std::lower_bound(slices.begin(), slices.end(), steps, [](const Slice& s, int k) { return s.step < k; }) -
      slices.begin());
}

void TraceLayout::add_lanes(Process& p, const std::string& name, std::vector<Slice> slices, bool ops,
                            const std::vector<std::string>* names) {
  // Greedy and deterministic: in order of start (steps in order; at equal starts the longer
  // first, then recording order), each slice goes to the first lane whose open slices have
  // ended by its start or whose innermost open slice contains it. A lane is then a properly
  // nested stack of slices, which is what a trace viewer draws on one track.
  std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
    return std::tie(a.step, a.start, b.end, a.seq) < std::tie(b.step, b.start, a.end, b.seq);
  });
  std::vector<std::vector<Slice>> lanes(1);
  std::vector<std::vector<std::int64_t>> open(1);  // per lane, the ends of its open slices
  for (const Slice& s : slices) {
    std::size_t k = 0;
    for (; k < lanes.size(); ++k) {
      std::vector<std::int64_t>& ends = open[k];
      while (!ends.empty() && ends.back() <= s.start) ends.pop_back();
      if (ends.empty() || ends.back() >= s.end) break;
    }
    if (k == lanes.size()) {
      lanes.emplace_back();
      open.emplace_back();
    }
    open[k].push_back(s.end);
    lanes[k].push_back(s);
  }
  const bool always = p.always;
  for (std::size_t k = 0; k < lanes.size(); ++k) {
    if (lanes[k].empty() && !(always && k == 0)) continue;
    Track t;
    t.name = lane_name(name, k);
    t.pid = p.pid;
    t.always = always && k == 0;
    t.ops = ops;
    t.names = names;
    t.slices = std::move(lanes[k]);
    p.tracks.push_back(tracks_.size());
    tracks_.push_back(std::move(t));
  }
}

TraceLayout::TraceLayout(const ExperimentResult& r) : r_(r) {
  const Experiment& e = r.setup;
  steps_ = std::min(std::max(e.trace_steps, 0), static_cast<int>(r.simulated_steps.size()));
  // The traced step a time belongs to: steps run one after another.
  auto step_at = [&](Picoseconds t) {
    return static_cast<int>(std::upper_bound(r.step_end_ps.begin(), r.step_end_ps.end(), t) - r.step_end_ps.begin());
  };
  // A sink's slices, track by track, each track split into lanes that nest.
  auto add_resource_tracks = [&](Process& p, const TraceSink& sink, const std::vector<std::string>& names, bool skip_idle) {
    std::vector<std::vector<Slice>> per_track(sink.tracks().size());
    for (std::size_t i = 0; i < sink.slices().size(); ++i) {
      const TraceSlice& s = sink.slices()[i];
      per_track[static_cast<std::size_t>(s.track)].push_back(
          {to_ns(s.start), to_ns(s.end), step_at(s.start), s.name, static_cast<std::uint32_t>(i), s.calls, s.bytes});
    }
    for (std::size_t t = 0; t < per_track.size(); ++t) {
      if (!skip_idle || !per_track[t].empty()) add_lanes(p, sink.tracks()[t], std::move(per_track[t]), false, &names);
    }
  };
  names_.reserve(r.traces.size() + 1);  // tracks point into it
  for (const TraceSink* sink : [&] {
         std::vector<const TraceSink*> v;
         for (const TraceSink& t : r.traces) v.push_back(&t);
         v.push_back(&r.link_trace);
         return v;
       }()) {
    names_.emplace_back();
    for (const std::string& n : sink->names()) names_.back().push_back(escaped(n));
  }
  const std::int64_t chips = e.tp * e.ep * e.pp;
  const int stage_size = static_cast<int>(e.tp * e.ep);
  for (std::size_t stage = 0; stage < r.traces.size(); ++stage) {
    Process p;
    p.pid = static_cast<int>(stage) + 1;
    p.always = true;
    const std::string chip_text = chips_text(static_cast<int>(stage) * stage_size, stage_size);
    p.name = chips == 1 ? r.hw.description
                        : (e.pp > 1 ? "stage " + std::to_string(stage) + ": " : std::string()) + chip_text + ", " + r.hw.description;
    // Ops of the stage in the traced steps.
    std::vector<Slice> ops;
    for (std::size_t i = 0; i < r.ops.size(); ++i) {
      const OpInstance& o = r.ops[i];
      if (o.op->device != static_cast<int>(stage)) continue;
      const int step = static_cast<int>(std::lower_bound(r.simulated_steps.begin(), r.simulated_steps.end(), o.step) -
                                        r.simulated_steps.begin());
      if (step >= steps_) continue;
      ops.push_back({to_ns(o.result.start_ps), to_ns(o.result.end_ps), step, static_cast<int>(i), static_cast<std::uint32_t>(i)});
    }
    add_lanes(p, "ops", std::move(ops), true, nullptr);
    add_resource_tracks(p, r.traces[stage], names_[stage], false);  // every unit, busy or not
    processes_.push_back(std::move(p));
  }
  if (!r.link_trace.slices().empty()) {
    Process p;
    p.pid = static_cast<int>(r.traces.size()) + 1;
    p.name = "links (" + r.topology + ")";
    add_resource_tracks(p, r.link_trace, names_.back(), true);  // only the links that carried data
    processes_.push_back(std::move(p));
  }
  // Thread ids unique over the whole trace, in display order: they are the sort indexes too.
  int tid = 0;
  for (const Process& p : processes_) {
    for (std::size_t t : p.tracks) tracks_[t].tid = ++tid;
  }
}

std::uint64_t TraceLayout::events(int steps) const {
  std::uint64_t n = 0;
  for (const Process& p : processes_) {
    std::uint64_t in_process = 0;
    for (std::size_t i : p.tracks) {
      const Track& t = tracks_[i];
      if (t.shown(steps)) in_process += 2 + t.slices_before(steps);  // thread_name, thread_sort_index, slices
    }
    if (p.always || in_process > 0) n += 2 + in_process;  // process_name, process_sort_index
  }
  return n;
}

std::string TraceLayout::json(int steps) const {
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto begin_event = [&] {
    if (!first) out += ",\n";
    first = false;
  };
  auto metadata = [&](const char* what, int pid, int tid, const nlohmann::json& args) {
    nlohmann::json m{{"name", what}, {"ph", "M"}, {"pid", pid}, {"args", args}};
    if (tid > 0) m["tid"] = tid;
    begin_event();
    out += m.dump();
  };
  std::vector<bool> shown_process;
  for (const Process& p : processes_) {
    bool shown = p.always;
    for (std::size_t i : p.tracks) shown = shown || tracks_[i].shown(steps);
    shown_process.push_back(shown);
    if (!shown) continue;
    metadata("process_name", p.pid, 0, {{"name", p.name}});
    metadata("process_sort_index", p.pid, 0, {{"sort_index", p.pid}});
    for (std::size_t i : p.tracks) {
      const Track& t = tracks_[i];
      if (!t.shown(steps)) continue;
      metadata("thread_name", p.pid, t.tid, {{"name", t.name}});
      metadata("thread_sort_index", p.pid, t.tid, {{"sort_index", t.tid}});
    }
  }
  for (std::size_t pi = 0; pi < processes_.size(); ++pi) {
    if (!shown_process[pi]) continue;
    for (std::size_t i : processes_[pi].tracks) {
      const Track& t = tracks_[i];
      const std::string ids = ",\"ph\":\"X\",\"pid\":" + std::to_string(t.pid) + ",\"tid\":" + std::to_string(t.tid) + ",\"ts\":";
      const std::size_t n = t.slices_before(steps);
      for (std::size_t k = 0; k < n; ++k) {
        const Slice& s = t.slices[k];
        begin_event();
        out += "{\"dur\":";
        append_us(out, s.end - s.start);
        if (t.ops) {
          const OpInstance& o = r_.ops[static_cast<std::size_t>(s.name)];
          const nlohmann::json args{{"step", o.step},
                                    {"flops", o.bound.flops},
                                    {"bytes", o.bound.bytes},
                                    {"intensity", o.bound.intensity},
                                    {"bound_s", o.bound.bound_time_s},
                                    {"roof", roof_name(o.bound.roof)}};
          out += ",\"args\":" + args.dump() + ",\"cat\":" + escaped(o.op->op_class) + ",\"name\":" + escaped(o.op->name);
        } else {
          // A transport track's slice: the TLM calls it merges and the bytes they carried (a
          // memory's; a compute family's calls carry work, no bytes).
          if (s.calls > 0) {
            out += ",\"args\":{\"calls\":" + std::to_string(s.calls);
            if (s.bytes > 0) out += ",\"bytes\":" + std::to_string(s.bytes);
            out += "}";
          }
          out += ",\"name\":" + (*t.names)[static_cast<std::size_t>(s.name)];
        }
        out += ids;
        append_us(out, s.start);
        out += "}";
      }
    }
  }
  out += "\n]}\n";
  return out;
}

int TraceLayout::steps_within(std::uint64_t max_events) const {
  int k = steps_;
  while (k > 0 && events(k) > max_events) --k;
  if (k == 0 && steps_ > 0) {
    const std::uint64_t n = events(1);
    throw InputError("the trace of prefill alone would have " + std::to_string(n) + " events (about " +
                     format_si(static_cast<double>(n) * kTraceBytesPerEvent, "B", 0) + "), more than ${trace_max_events} " +
                     std::to_string(max_events) + ": raise ${trace_max_events} to write it");
  }
  return k;
}

std::string trace_json(const ExperimentResult& r) {
  const TraceLayout t(r);
  return t.json(t.steps());
}

// Nanoseconds as microseconds in decimal, exactly: 1234567 -> "1234.567", 5000 -> "5".
void append_trace_us(std::string& out, std::int64_t ns) {
  out += std::to_string(ns / 1000);
  int frac = static_cast<int>(ns % 1000);
  if (frac == 0) return;
  int digits = 3;
  while (frac % 10 == 0) {
    frac /= 10;
    --digits;
  }
  char buf[8];
  std::snprintf(buf, sizeof buf, ".%0*d", digits, frac);
  out += buf;
}

std::string trace_quoted(const std::string& s) { return nlohmann::json(s).dump(); }

}  // namespace roofsim
