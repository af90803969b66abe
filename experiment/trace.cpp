#include "experiment/trace.hpp"

namespace roofsim {

nlohmann::json trace_json(const ExperimentResult& r) {
  // Chrome trace-event format: "X" slices with microsecond timestamps; one process for the
  // chip, one thread (track) per matrix unit, vector unit and HBM stack, plus a track of ops.
  nlohmann::json events = nlohmann::json::array();
  const TraceSink& t = r.trace;
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", r.hw.description}}}});
  const int ops_track = static_cast<int>(t.tracks().size());
  for (std::size_t i = 0; i < t.tracks().size(); ++i) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", i + 1}, {"args", {{"name", t.tracks()[i]}}}});
    events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 1}, {"tid", i + 1}, {"args", {{"sort_index", i + 1}}}});
  }
  events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", ops_track + 1}, {"args", {{"name", "ops"}}}});
  for (const TraceSlice& s : t.slices()) {
    events.push_back({{"name", t.names()[static_cast<std::size_t>(s.name)]},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", s.track + 1},
                      {"ts", static_cast<double>(s.start) / 1e6},
                      {"dur", static_cast<double>(s.end - s.start) / 1e6}});
  }
  for (const OpInstance& o : r.ops) {
    if (o.step >= r.setup.trace_steps && !(o.step == 0 && r.setup.trace_steps > 0)) continue;
    events.push_back({{"name", o.op->name},
                      {"cat", o.op->op_class},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", ops_track + 1},
                      {"ts", static_cast<double>(o.result.start_ps) / 1e6},
                      {"dur", static_cast<double>(o.result.end_ps - o.result.start_ps) / 1e6},
                      {"args", {{"flops", o.bound.flops}, {"bytes", o.bound.bytes}, {"intensity", o.bound.intensity},
                                {"bound_s", o.bound.bound_time_s}, {"roof", roof_name(o.bound.roof)}}}});
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
}

}  // namespace roofsim
