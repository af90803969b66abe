#pragma once
// The seam between an op's run and the compute units it keeps busy: TLM-2.0 sockets, as between
// the DMA engine and memory (components/memory_port.hpp). An op run sends a loosely-timed
// transaction (a wave: an amount of work per unit, or one job on one unit) through its chip's
// port to the family of units bound to it (matrix units, vector units); the family reserves its
// own units' timelines and annotates the delay until the last job's result is ready, so
// contention and queueing emerge in the family as before, and another model of the units (a
// systolic array stepped cycle by cycle, a Verilator-generated block) is a module bound to the
// same socket rather than edits in the op runs. The payload moves no data: its data pointer
// carries the request (UnitWave).
#include <cstddef>
#include <string>
#include <systemc>
#include <tlm>

#include "components/payload_port.hpp"
#include "components/server.hpp"
#include "components/trace_sink.hpp"

namespace roofsim {

// What a compute transaction carries, as the generic payload's data (its data pointer: read
// inline, where an extension's lookup is a library call on the op runs' hottest path). Work is
// in the family's own measure: cycles of a matrix unit, FLOPs of a vector unit.
struct UnitWave {
  // In.
  Picoseconds hold_ps = 0;       // every unit is held this long first (a kernel's per-CTA cost)
  // The jobs: `count` amounts, the i-th for unit (first + i) mod units, each plus `every_unit`
  // (whole rounds of a wave). An amount of 0 is no job unless zero_jobs (a job that only waits
  // for its unit to free up). count 0: only the hold.
  const double* work = nullptr;
  std::size_t first = 0, count = 0;
  double every_unit = 0;
  bool zero_jobs = false;
  const Picoseconds* not_before = nullptr;  // per job: the earliest it may start (null: now)
  int label = -1;                // the op in the trace (-1: none)
  // Out.
  Picoseconds ready = 0;         // when the last job's result is ready (the call's time when none)
  Picoseconds last_started = 0;  // of the units ending last, the latest start: a choice that does
                                 // not depend on the units' numbering (layer replay renumbers them)
  static UnitWave& of(tlm::tlm_generic_payload& trans) { return *reinterpret_cast<UnitWave*>(trans.get_data_ptr()); }
};

// A family of compute units an op run sends work to. b_transport is called at the initiator's
// current time and leaves in `delay` the time from then until the wave's last result is ready
// (and the UnitWave's ready and last_started filled in).
class ComputeTarget : public PayloadTarget {
 public:
  // The units, one server each: layer replay saves and skips their timelines
  // (components/layer_replay.hpp) and the run counts their jobs. Units are interchangeable: a
  // model whose units keep other state between transactions cannot be replayed.
  virtual std::size_t units() const = 0;
  virtual Timeline& server(std::size_t unit) = 0;
  const Timeline& server(std::size_t unit) const { return const_cast<ComputeTarget*>(this)->server(unit); }
  // Records each unit's busy intervals (while `sink` is enabled) on tracks first_track,
  // first_track + 1, ...
  void trace_into(TraceSink& sink, int first_track) {
    trace_ = &sink;
    first_track_ = first_track;
  }

 protected:
  explicit ComputeTarget(const sc_core::sc_module_name& name) : PayloadTarget(name) {}
  // Whether a transaction labelled `label` is traced now; then the busy interval of `unit` just
  // reserved, for the trace.
  bool tracing_label(int label) const { return trace_ && trace_->enabled && label >= 0; }
  void traced(std::size_t unit, int label, Picoseconds start, Picoseconds end) {
    trace_->record(first_track_ + static_cast<int>(unit), label, start, end);
  }

 private:
  TraceSink* trace_ = nullptr;
  int first_track_ = 0;
};

// Identical units that each serve one job after another (a timeline each), every job ready a
// pipelined latency after its service ends: the matrix and vector units of a chip. A subclass
// says how long an amount of its work takes.
class UnitArray : public ComputeTarget {
 public:
  std::size_t units() const override { return units_.size(); }
  Timeline& server(std::size_t unit) override { return units_[unit]; }

 protected:
  UnitArray(const sc_core::sc_module_name& name, std::size_t units, Picoseconds latency_ps)
      : ComputeTarget(name), units_(units), latency_ps_(latency_ps) {}
  virtual Picoseconds service_ps(double work) const = 0;
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override;

 private:
  std::vector<Timeline> units_;
  Picoseconds latency_ps_;
};

// An op run's end of the seam (the payload's data: the port's UnitWave).
class ComputePort : public PayloadPort<UnitWave> {
 public:
  explicit ComputePort(const sc_core::sc_module_name& name) : PayloadPort(name) {}
  void bind(ComputeTarget& units) { bind_to(units.socket); }
  // The request to fill in: cleared to its defaults, the previous call's reply included.
  UnitWave& request() { return request_data() = UnitWave(); }
  // Sends the request now; returns it with its reply.
  const UnitWave& transport() {
    send(request_data().label, 0);
    return request_data();
  }
  // Every unit held `ps` first (a kernel's per-CTA cost, before a fine step's jobs).
  void hold(Picoseconds ps) {
    request().hold_ps = ps;
    transport();
  }
  // One job of `work` on `unit` (a fine step's), labelled `label`; returns when it is ready.
  Picoseconds job(std::size_t unit, double work, int label) {
    UnitWave& w = request();
    w.work = &work;
    w.first = unit;
    w.count = 1;
    w.zero_jobs = true;
    w.label = label;
    return transport().ready;
  }
};

}  // namespace roofsim
