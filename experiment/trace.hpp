#pragma once
// Chrome trace-event JSON (opens in Perfetto and chrome://tracing) of the steps an experiment
// traced (Experiment::trace_steps: prefill, then the first decode steps simulated).
//
// Layout: one process per simulated chip, in pipeline-stage order (a stage's ep x tp chips do
// the same work in lockstep and are simulated as one chip; the process name says which chips it
// stands for), then, in multi-chip runs, a process of links with a track per link that carried
// traffic. In a chip's process the ops track comes first (thread_sort_index), then a track per
// matrix unit, vector unit and HBM stack. Slices on a track nest or are disjoint: work that
// overlaps otherwise goes to further lanes of the same track, each slice to the first lane whose
// open slices have ended or contain it ("ops", "ops 2", ...; "HBM stack 0", "HBM stack 0 (2)").
// Times are in microseconds, rounded to whole nanoseconds. The same result gives the same bytes.
#include <cstdint>
#include <string>
#include <vector>

#include "experiment/inference.hpp"

namespace roofsim {

// Bytes of JSON an event takes, on average (measured on runs with one to three processes).
constexpr double kTraceBytesPerEvent = 87;

class TraceLayout {
 public:
  explicit TraceLayout(const ExperimentResult& r);

  // Steps the result traced.
  int steps() const { return steps_; }
  // Events (metadata and slices) in a trace of the first `steps` traced steps.
  std::uint64_t events(int steps) const;
  // The JSON of the first `steps` traced steps, one event per line.
  std::string json(int steps) const;
  // The most traced steps whose trace has at most `max_events` events; throws InputError,
  // naming the count, when not even the first step's (prefill's) trace fits.
  int steps_within(std::uint64_t max_events) const;

 private:
  struct Slice {
    std::int64_t start = 0, end = 0;  // nanoseconds
    int step = 0;                     // index among the traced steps
    int name = 0;                     // into the track's names, or into the result's ops
    std::uint32_t seq = 0;            // recording order: ties resolve by it
    std::uint64_t calls = 0, bytes = 0;  // a transport track's TLM calls and their bytes
  };
  struct Track {
    std::string name;
    int pid = 0, tid = 0;
    bool always = false;  // listed even when empty (a chip's first lane of each resource)
    bool ops = false;     // slices name ops (OpInstance) rather than hardware slices
    const std::vector<std::string>* names = nullptr;  // escaped JSON strings, hardware tracks
    std::vector<Slice> slices;                         // in step order, then by start
    bool shown(int steps) const { return always || (!slices.empty() && slices.front().step < steps); }
    std::size_t slices_before(int steps) const;
  };
  struct Process {
    std::string name;
    int pid = 0;
    bool always = false;
    std::vector<std::size_t> tracks;  // into tracks_
  };
  // Lays out `slices` of one resource in lanes and adds a track per lane to `p`.
  void add_lanes(Process& p, const std::string& name, std::vector<Slice> slices, bool ops,
                 const std::vector<std::string>* names);

  const ExperimentResult& r_;
  int steps_ = 0;
  std::vector<std::vector<std::string>> names_;  // per trace sink (stages, then links), escaped
  std::vector<Track> tracks_;
  std::vector<Process> processes_;
};

// The whole trace (every traced step) as JSON text.
std::string trace_json(const ExperimentResult& r);

// Trace timestamps: nanoseconds as microseconds in decimal, exactly ("1234.567", "5"), and a
// string as a quoted JSON string. Shared by every trace roofsim writes.
void append_trace_us(std::string& out, std::int64_t ns);
std::string trace_quoted(const std::string& s);

}  // namespace roofsim
