#pragma once
// Layer replay: the exact fast path for repeated layers.
//
// A transformer's decoder layers are the same ops over and over. The simulation is
// deterministic, and at the end of a layer (its last op has just finished, nothing else is in
// flight) everything the next layer's run depends on is small and known: each resource's busy
// time left, which unit and HBM channel gets the next job in turn (identical idle units are
// interchangeable, so only the order from the next one matters), where the next tensor falls
// within the channel interleave, the launch times of the layer's ops, and which event queue is
// running. A layer whose ops and edges equal an earlier one's and that starts from an equal
// state runs exactly as that one did, shifted in time by whole picoseconds, and ends in that
// one's end state. Such layers are not simulated again: their op results are the recorded ones
// shifted, the chip's and fabric's counters advance by what the recorded layer added, the
// resources are left as it left them, and the run continues when the last replayed layer would
// have ended. Nothing is assumed: every replayed layer's start state is compared with the
// recording's, and where nothing matches the layer is simulated (and recorded).
//
// Why the SystemC kernel does not get in the way: with every queue empty, the kernel has no
// timed notification pending (each one was for an event still queued), so its scheduling from
// the layer's end on depends only on the queue running now; replay resumes in that queue.
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "components/chip.hpp"
#include "components/fabric.hpp"
#include "workloads/graph.hpp"

namespace roofsim {

// The machine at the end of a layer, relative to that moment.
struct MachineState {
  int dispatching = -1;  // the queue whose callbacks run now: a chip queue, or Chip::kQueues for the fabric's
  ChipState chip;
  std::vector<Picoseconds> links;
  bool operator==(const MachineState& o) const;
};

// A layer as it ran: from which state, for how long, with what results (relative to its
// start), adding what to the counters, ending in which state.
struct LayerRecord {
  int kind = 0;  // layers of one kind have equal ops and edges
  MachineState start, end;
  std::vector<Picoseconds> launch_offsets;
  Picoseconds duration = 0;
  std::vector<OpResult> ops;
  ChipCounters chip;
  LinkDelta links;
};

// The layers recorded in one simulation (one chip and fabric), for every graph it runs: a
// decode step's layers differ from the last step's (the context grew), but its final norm and
// LM head repeat step after step.
struct ReplayMemory {
  // Hashed: a run describes thousands of layers, and decode steps' layers differ only deep in
  // their descriptions (attention's context), so ordered comparisons were long.
  struct Hash {
    std::size_t operator()(const std::vector<std::uint64_t>& d) const;
  };
  std::unordered_map<std::vector<std::uint64_t>, int, Hash> kinds;  // a layer's ops and edges -> its kind
  std::vector<LayerRecord> records;
};

class LayerReplay {
 public:
  // The graph's layers as replay sees them, recorded in and replayed from `memory`; nullptr
  // when it has nothing to replay (ops on several chips, layers that overlap, fewer than three
  // layers). The ops after the last layer (final norm, LM head) count as one more layer.
  static std::unique_ptr<LayerReplay> find(const OpGraph& g, ReplayMemory& memory);

  // The layer whose last op is `id`, or -1.
  int layer_ended_by(OpId id) const { return id < ended_by_.size() ? ended_by_[id] : -1; }

  struct Plan {
    int first_layer = 0;               // the first replayed layer
    std::vector<std::size_t> records;  // per replayed layer, in order: the recording it replays
    Picoseconds until = 0;             // when the last replayed layer ends
  };
  // At the end of layer l (its last op has just finished): records layer l if it was simulated
  // from a boundary like this one, then plans the replay of the layers after it (no records:
  // simulate the next layer). `launched_at` is when the host launched each op.
  Plan at_layer_end(int l, Chip& chip, Fabric* fabric, const std::vector<OpResult>& results,
                    const std::vector<Picoseconds>& launched_at);
  // Fills in the replayed layers' op results and moves the chip and fabric to the plan's end.
  // Returns the replayed ops' count and the last layer's last op.
  std::pair<std::size_t, OpId> replay(const Plan& plan, Chip& chip, Fabric* fabric, std::vector<OpResult>& results,
                                      const OpGraph& g);
  // The queue the run continues in when a plan's last layer ends, and the clean-ups queued then.
  int resume_queue(const Plan& plan) const { return memory_->records[plan.records.back()].end.dispatching; }
  std::size_t resume_cleanups(const Plan& plan) const { return memory_->records[plan.records.back()].end.chip.cleanups; }

 private:
  struct Layer {
    std::vector<OpId> ops;  // in id order
    OpId last = 0;          // the op every later op waits for
    int kind = 0;           // layers of one kind have equal ops and edges
    bool entered_by_previous = false;  // every op waits, directly or not, for the previous layer's last op
  };
  // The machine at the end of a simulated layer.
  struct Boundary {
    int layer = 0;
    Picoseconds at = 0;
    MachineState state;
    ChipCounters chip;
    LinkCounters links;
  };
  std::vector<Picoseconds> launch_offsets(const Layer& layer, Picoseconds start, const std::vector<Picoseconds>& launched_at) const;
  std::optional<std::size_t> recording_for(int l, const MachineState& start, Picoseconds at,
                                           const std::vector<Picoseconds>& launched_at) const;

  std::vector<Layer> layers_;    // by layer number
  std::vector<int> ended_by_;    // per op: the layer it ends, or -1
  ReplayMemory* memory_ = nullptr;
  std::optional<Boundary> previous_;  // the last layer end, when the layer after it is being simulated
};

}  // namespace roofsim
