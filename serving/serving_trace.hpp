#pragma once
// A serving run over time: a Chrome trace-event JSON of its iterations and requests (opens in
// ui.perfetto.dev and chrome://tracing), and a chart of batch size, queue length, tokens per
// iteration and KV blocks in use against simulated time (gnuplot, .png or .svg).
//
// Trace layout: one process, "serving". Its first track, "iterations", has one slice per
// iteration, named by its kind (prefill, decode or mixed) with what it held as args. Counters
// at every iteration start: "batch size" (sequences), "tokens per iteration" (prefill tokens
// plus one per decode), "KV blocks in use" (per chip) and "requests waiting"; all four drop to
// 0 where the machine goes idle (at the end of an iteration that the next does not follow at
// once, and at the end of the run). Then tracks "requests 1", "requests 2", ...: each request
// is a slice "request N" from its arrival to its last token, holding "waiting" (arrival to
// first token) and "generating" (first token to finish). A track takes the next request that
// arrives after its last one finished (the lowest such track first), so there are as many
// tracks as requests were ever in the system at once, not one per request. Times are in
// microseconds, rounded to whole nanoseconds; the same result gives the same bytes.
#include <cstddef>
#include <string>
#include <vector>

#include "serving/serving.hpp"

namespace roofsim {

std::string serving_trace_json(const ServingResult& r);

// The track (0-based, "requests 1" is 0) each request's slices are on, by index into
// r.requests; -1 for a request that did not finish. The layout serving_trace_json uses.
std::vector<int> request_lanes(const ServingResult& r);

// A step function of simulated time: each point (t_s[i], value[i]) holds until the next.
struct StepSeries {
  std::vector<double> t_s, value;
};

// What the chart shows: a point at every iteration start, and zeros where the machine goes
// idle, as in the trace's counters.
struct ServingTimeseries {
  StepSeries batch, tokens, kv_blocks, waiting;
  double end_s = 0;  // the end of the last iteration
};

// With max_points > 0, each series is thinned to at most max_points + 2 points: its time span
// cut into max_points / 2 equal bins, each keeping its lowest and its highest point (the first
// of equals, in time order), plus the first and the last point; so peaks and troughs survive.
// Deterministic. 0: every point.
ServingTimeseries serving_timeseries(const ServingResult& r, std::size_t max_points = 0);

// Points per series the chart draws at most (about; see serving_timeseries).
constexpr std::size_t kTimeseriesPlotPoints = 4000;

// Writes FILE.png or FILE.svg (by extension): three panels over simulated time, batch size
// and queue length; tokens per iteration; KV blocks in use per chip with the capacity as a
// line. Throws InputError for another extension, or if gnuplot is missing or fails.
void write_serving_timeseries_plot(const std::string& path, const ServingResult& r);

}  // namespace roofsim
