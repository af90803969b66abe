#pragma once
// A chip composed from its hardware description: matrix units, vector units, HBM channels, a
// DMA engine and the on-chip buffer that tiles stream through. Ops run on it as pipelines of
// tiles; their time is whatever the servers' queues make of them.
#include <memory>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <systemc>
#include <vector>

#include "components/dma.hpp"
#include "components/hbm.hpp"
#include "components/compute_port.hpp"
#include "components/tiling.hpp"
#include "components/trace_sink.hpp"
#include "core/hardware.hpp"

namespace roofsim {

// Coarse: one event per wave of tiles (every unit's share of a step) and memory requests of
// dma.request_bytes. Fine: one event per tile and requests eight times smaller. Both must
// agree on throughput; coarse keeps event counts bounded for large ops.
enum class Granularity { coarse, fine };

struct OpResult {
  std::string name;
  bool near_memory = false;  // ran on the near-memory units
  Picoseconds start_ps = 0, end_ps = 0;
  double flops = 0;          // useful FLOPs executed
  double padded_flops = 0;   // FLOPs the units spent, padding included
  std::uint64_t bytes_read = 0, bytes_written = 0;
  std::uint64_t onchip_bytes_read = 0;  // of bytes_read: operands read where resident in the tile buffer
  std::uint64_t events = 0;  // kernel events this op caused
  std::int64_t steps = 0;
  std::string plan;          // how it was tiled, for people
  double seconds() const { return to_seconds(end_ps - start_ps); }
};

class OpRun;

// What a chip's future depends on at a moment when no op is in flight, relative to that
// moment (components/layer_replay.hpp): the busy time each resource has left, listed from the
// one that receives the next job in turn, and where the next tensor's address falls within the
// channel interleave. Identical units that work in turn are interchangeable: two chips whose
// states compare equal run the same ops in the same time, on units (and channels) renumbered.
struct ChipState {
  std::vector<Picoseconds> matrix, vector, channels;
  std::vector<Picoseconds> near_memory;  // its units, by channel (not interchangeable)
  Picoseconds resident = 0;  // the tile buffer's server for resident reads
  std::vector<Picoseconds> memory;  // the servers of the memory model in front of HBM ([memory] model)
  Picoseconds launcher = 0;
  std::uint64_t address_phase = 0;
  std::size_t cleanups = 0;  // finished ops' clean-up callbacks still queued (each an event)
  bool operator==(const ChipState& o) const;
};

// A chip's running totals: what the run reports (events, bytes, server jobs) and how far its
// turn counters and address allocator have moved.
struct ChipCounters {
  std::uint64_t events = 0, bytes_read = 0, bytes_written = 0, jobs = 0;
  std::uint64_t matrix_turns = 0, vector_turns = 0, address = 0;
  ChipCounters operator-(const ChipCounters& o) const;
  ChipCounters& operator+=(const ChipCounters& o);
};

class Chip : public sc_core::sc_module {
 public:
  Chip(const sc_core::sc_module_name& name, const HardwareSpec& hw,
       Granularity granularity = Granularity::coarse);
  ~Chip() override;

  // Starts the op now (after the launch overhead); `done` runs at its completion with `result`
  // filled in. Several ops may be in flight; they then share the units and channels.
  void run_gemm(const GemmShape& g, OpResult& result, Callback done, const std::string& name = "gemm");
  void run_vector(const VectorShape& v, OpResult& result, Callback done, const std::string& name = "vector op");

  // Timeline tracks: matrix units first, then vector units, then one per HBM stack (named when
  // tracing is first turned on).
  TraceSink& trace_sink() { return trace_; }
  void set_tracing(bool on);
  int matrix_track(std::size_t unit) const { return static_cast<int>(unit); }
  int vector_track(std::size_t unit) const { return static_cast<int>(matrix_units() + unit); }

  const HardwareSpec& hw() const { return hw_; }
  // Which GEMMs the near-memory units take (when the hardware has them).
  void set_near_memory(NearMemory policy) { near_memory_ = policy; }
  SimStats& stats() { return stats_; }
  Granularity granularity() const { return granularity_; }
  const TilingLimits& limits() const { return limits_; }
  // Where op runs send work for the matrix and vector units (components/compute_port.hpp).
  ComputePort& matrix_port() { return matrix_port_; }
  ComputePort& vector_port() { return vector_port_; }
  // The near-memory units' (hw.pim.present: one per HBM channel).
  ComputePort& near_memory_port() { return *near_memory_port_; }
  EventQueue& matrix_events() { return matrix_events_; }
  EventQueue& vector_events() { return vector_events_; }
  std::size_t matrix_units() const { return matrix_->units(); }
  std::size_t vector_units() const { return vector_->units(); }
  HbmChannels& hbm() { return *hbm_; }
  // Jobs every server has taken (tile waves per unit, request pieces per channel, launches):
  // the work the model did, which coarse events batch into fewer kernel wake-ups.
  std::uint64_t server_jobs() const;
  DmaEngine& dma() { return *dma_; }
  // Round-robin over units across ops and steps: work lands on the next unit in turn.
  std::size_t next_vector_unit() { return next_vector_++ % vector_units(); }
  // The next `n` matrix units in turn at once: returns the first, as n calls would.
  std::size_t take_matrix_units(std::uint64_t n) {
    const std::size_t first = next_matrix_ % matrix_units();
    next_matrix_ += n;
    return first;
  }
  // The host launches ops one after another, each taking host_launch_interval; returns when
  // the next op launched from `now` on is in the device's queue.
  Picoseconds host_launch(Picoseconds now) { return host_launch(now, hw_.host_launch_interval_s); }
  // A host call of its own length (an eager framework call outside the graph).
  Picoseconds host_launch(Picoseconds now, double host_s) { return host_.reserve(now, ceil_ps(host_s)); }
  // HBM address space for a new tensor (a bump allocator: tensors never overlap).
  std::uint64_t allocate(std::uint64_t bytes);

  // Layer replay (components/layer_replay.hpp). Whether no op is in flight and every queue is
  // empty but for clean-ups of finished ops (which change no timing).
  bool quiescent() const;
  ChipState state(Picoseconds now) const;
  ChipCounters counters() const;
  // Moves the chip to where it would be at `until` after work that added `delta` to its
  // counters and left it in state `end`. The clean-ups queued now still run (and count).
  void skip_to(Picoseconds until, const ChipState& end, const ChipCounters& delta);
  // Queues `n` clean-ups that free nothing: they stand for the ones the skipped work left.
  void queue_cleanups(std::size_t n);
  // The chip's event queues, numbered; the one whose callbacks are running now (-1: none).
  static constexpr int kQueues = 5;
  EventQueue& queue(int i);
  int dispatching_queue() const;

 private:
  void launch(std::unique_ptr<OpRun> run, OpResult& result, Callback done);
  // Plans depend only on the shape: the same layer's ops in every step reuse them.
  const GemmPlan& gemm_plan(const GemmShape& g);

  HardwareSpec hw_;
  Granularity granularity_;
  SimStats stats_;
  TilingLimits limits_;
  EventQueue matrix_events_, vector_events_, memory_events_, launcher_events_;
  std::unique_ptr<ComputeTarget> matrix_, vector_;  // the unit families, behind the compute seam
  ComputePort matrix_port_, vector_port_;           // the op runs' ends of it
  std::unique_ptr<ComputeTarget> near_memory_units_;  // both null: the chip has none
  std::unique_ptr<ComputePort> near_memory_port_;
  std::unique_ptr<HbmChannels> hbm_;
  std::unique_ptr<DmaEngine> dma_;
  std::unique_ptr<MemoryTarget> front_memory_;  // [memory] model's, in front of hbm_ (null: none)
  std::unique_ptr<QueuedResource> launcher_;  // device front end: starts one op at a time
  Timeline host_;                     // the host thread that launches ops
  TraceSink trace_;
  std::unordered_map<OpRun*, std::unique_ptr<OpRun>> runs_;  // ops in flight
  std::size_t next_matrix_ = 0, next_vector_ = 0;
  std::size_t in_flight_ = 0;         // ops launched and not finished
  std::size_t pending_cleanups_ = 0;  // clean-up callbacks queued on launcher_events_
  std::uint64_t skipped_jobs_ = 0;    // server jobs of replayed layers
  NearMemory near_memory_ = NearMemory::small_rows;
  std::uint64_t next_address_ = 0;
  // Everything of a GemmShape that plan_gemm reads (gemm_plan_key in chip.cpp).
  using GemmPlanKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, int, int, int, bool, std::int64_t, bool,
                                 std::int64_t, std::int64_t, bool, bool, bool, bool, std::int64_t, std::int64_t, bool, bool, std::int64_t, std::int64_t>;
  std::map<GemmPlanKey, GemmPlan> plans_;
};

}  // namespace roofsim
