#pragma once
// Layer replay: the exact fast path for repeated work, in segments of a graph.
//
// A transformer's decoder layers are the same ops over and over, and so are most ops of one
// serving pass and the next (their GEMMs have the same tokens; only attention's context
// differs). The graph is cut into segments at ops that every earlier op leads to and every
// later op waits for (in a decoder layer nearly every op: the residual adds' skip edges come
// from ops already finished). The simulation is deterministic, and at the end of a segment
// (its last op has just finished, nothing else is in flight) everything the next segment's
// run depends on is small and known: each resource's busy
// time left, which unit and HBM channel gets the next job in turn (identical idle units are
// interchangeable, so only the order from the next one matters), where the next tensor falls
// within the channel interleave, the launch times of the segment's ops, and which event queue
// is running. A segment whose ops and edges equal an earlier one's and that starts from an equal
// state runs exactly as that one did, shifted in time by whole picoseconds, and ends in that
// one's end state. Such segments are not simulated again: their op results are the recorded ones
// shifted, the chip's and fabric's counters advance by what the recorded segment added, the
// resources are left as it left them, and the run continues when the last replayed segment
// would have ended. Nothing is assumed: every replayed segment's start state is compared with
// the recording's, and where nothing matches the segment is simulated (and recorded). The
// recordings may outlive one graph: a run keeps them for all its steps, a serving pass
// simulator for all its passes (each starts on an idle machine, as the recordings of earlier
// passes did).
//
// Why the SystemC kernel does not get in the way: with every queue empty, the kernel has no
// timed notification pending (each one was for an event still queued), so its scheduling from
// the segment's end on depends only on the queue running now; replay resumes in that queue.
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "components/chip.hpp"
#include "components/fabric.hpp"
#include "workloads/graph.hpp"

namespace roofsim {

// The machine at the end of a segment, relative to that moment.
struct MachineState {
  int dispatching = -1;  // the queue whose callbacks run now: a chip queue, or Chip::kQueues for the fabric's
  ChipState chip;
  std::vector<Picoseconds> links;
  bool operator==(const MachineState& o) const;
};

// A segment as it ran: from which state, for how long, with what results (relative to its
// start), adding what to the counters, ending in which state (states by their number in
// ReplayMemory::states).
struct LayerRecord {
  int kind = 0;  // segments of one kind have equal ops and edges
  int start = 0, end = 0;
  std::vector<Picoseconds> launch_offsets;
  Picoseconds duration = 0;
  std::vector<OpResult> ops;
  ChipCounters chip;
  LinkDelta links;
};

// The segments recorded on one machine (one chip and fabric), for every graph it runs: a
// decode step's attention differs from the last step's (the context grew), but its GEMMs, norms
// and LM head repeat step after step, and pass after pass of a serving run.
struct ReplayMemory {
  // Hashed: a run describes thousands of segments, and decode steps' segments differ only deep
  // in their descriptions (attention's context), so ordered comparisons were long.
  struct Hash {
    std::size_t operator()(const std::vector<std::uint64_t>& d) const;
  };
  struct StateHash {
    std::size_t operator()(const MachineState& s) const;
  };
  std::unordered_map<std::vector<std::uint64_t>, int, Hash> kinds;  // a segment's ops and edges -> its kind
  std::vector<LayerRecord> records;
  std::unordered_map<int, std::vector<std::size_t>> records_of_kind;  // in recording order
  // Each distinct boundary state once: most boundaries find the machine idle, and a serving
  // run records tens of thousands of segments.
  std::vector<MachineState> states;
  std::unordered_map<MachineState, int, StateHash> state_numbers;
  int number_of(const MachineState& s);
};

class LayerReplay {
 public:
  // The graph's segments as replay sees them, recorded in and replayed from `memory`; nullptr
  // when it has nothing to replay (ops on several chips, fewer than two cuts). The ops after
  // the last cut, if any, belong to no segment and are always simulated.
  static std::unique_ptr<LayerReplay> find(const OpGraph& g, ReplayMemory& memory);

  // The segment whose last op is `id`, or -1.
  int segment_ended_by(OpId id) const { return id < ended_by_.size() ? ended_by_[id] : -1; }
  // The segment op `id` belongs to, or -1 (after the last cut).
  int segment_of(OpId id) const { return segment_of_[id]; }
  const std::vector<OpId>& segment_ops(int s) const { return segments_[static_cast<std::size_t>(s)].ops; }

  struct Plan {
    int first_segment = 0;             // the first replayed segment
    std::vector<std::size_t> records;  // per replayed segment, in order: the recording it replays
    Picoseconds until = 0;             // when the last replayed segment ends
  };
  // At the end of segment s (its last op has just finished): records segment s if it was
  // simulated from a boundary like this one, then plans the replay of the segments after it
  // (no records: simulate the next one). `launched_at` is when the host launched each op.
  Plan at_segment_end(int s, Chip& chip, Fabric* fabric, const std::vector<OpResult>& results,
                      const std::vector<Picoseconds>& launched_at);
  // Fills in the replayed segments' op results and moves the chip and fabric to the plan's
  // end. Returns the replayed ops' count and the last segment's last op.
  std::pair<std::size_t, OpId> replay(const Plan& plan, Chip& chip, Fabric* fabric, std::vector<OpResult>& results,
                                      const OpGraph& g);
  // The queue the run continues in when a plan's last segment ends, and the clean-ups queued then.
  int resume_queue(const Plan& plan) const { return end_state(plan).dispatching; }
  std::size_t resume_cleanups(const Plan& plan) const { return end_state(plan).chip.cleanups; }

 private:
  struct Segment {
    std::vector<OpId> ops;  // in launch (topological) order
    OpId last = 0;          // the op every later op waits for
    int kind = 0;           // segments of one kind have equal ops and edges
    bool entered_by_previous = false;  // every op waits, directly or not, for the previous segment's last op
  };
  // The machine at the end of a simulated segment.
  struct Boundary {
    int segment = 0;
    Picoseconds at = 0;
    int state = 0;  // in ReplayMemory::states
    ChipCounters chip;
    LinkCounters links;
  };
  const MachineState& end_state(const Plan& plan) const {
    return memory_->states[static_cast<std::size_t>(memory_->records[plan.records.back()].end)];
  }
  std::vector<Picoseconds> launch_offsets(const Segment& segment, Picoseconds start, const std::vector<Picoseconds>& launched_at) const;
  std::optional<std::size_t> recording_for(int s, int start, Picoseconds at, const std::vector<Picoseconds>& launched_at) const;

  std::vector<Segment> segments_;  // in launch order
  std::vector<int> ended_by_;      // per op: the segment it ends, or -1
  std::vector<int> segment_of_;    // per op: its segment, or -1
  ReplayMemory* memory_ = nullptr;
  std::optional<Boundary> previous_;  // the last segment end, when the segment after it is being simulated
};

}  // namespace roofsim
