#pragma once
// HBM as N independent channels. A request is cut at the interleave granularity and granule g
// of the address space belongs to channel g mod N, so each channel receives one coalesced
// piece per request. Each channel is a server at its share of peak bandwidth times an
// efficiency; the data arrives an access latency after the channel has served it (pipelined:
// the latency does not occupy the channel). The request completes, with one event, when its
// last piece has arrived. The channels are a memory target (components/memory_port.hpp): the
// units' DMA engine reaches them through a TLM-2.0 socket.
#include <cstdint>
#include <vector>

#include "components/memory_port.hpp"
#include "components/server.hpp"
#include "components/trace_sink.hpp"
#include "core/hardware.hpp"

namespace roofsim {

class HbmChannels : public MemoryTarget {
 public:
  HbmChannels(const sc_core::sc_module_name& name, const HbmSpec& spec, EventQueue& events);

  const HbmSpec& spec() const { return spec_; }
  // Moves `bytes` at `address`, starting now; returns when all pieces have arrived.
  // `rate` (<= 1) scales the channels' streaming rate for this request (operand tiles).
  Picoseconds serve(std::uint64_t address, std::uint64_t bytes, int label, double rate);
  // The same, `done` called then (one event).
  void access(std::uint64_t address, std::uint64_t bytes, int label, Callback done, double rate = 1.0) {
    events_.at(serve(address, bytes, label, rate), std::move(done));
  }
  void access(std::uint64_t address, std::uint64_t bytes, Callback done) { access(address, bytes, -1, std::move(done)); }
  // Records each request's busy span per stack (channels c * stacks / channels) on tracks
  // first_track + stack.
  void attach_trace(TraceSink* sink, int first_track) {
    trace_ = sink;
    first_track_ = first_track;
  }
  // Bytes each channel receives for `bytes` that start at granule boundary `first_granule`.
  std::vector<std::uint64_t> split(std::uint64_t first_granule, std::uint64_t bytes) const;

  // Near-memory compute reads `bytes` inside channel c at `factor` times its bandwidth; the
  // channel is busy meanwhile. Returns when the read ends (no latency: the unit is beside the banks).
  Picoseconds reserve_internal(std::size_t c, std::uint64_t bytes, double factor, Picoseconds not_before);
  // Moves `bytes` over channel c's external interface; returns when they have arrived.
  Picoseconds reserve_external(std::size_t c, std::uint64_t bytes, Picoseconds not_before);
  EventQueue& events() { return events_; }
  std::uint64_t interleave_bytes() const { return static_cast<std::uint64_t>(spec_.interleave_bytes); }
  std::size_t channel_count() const { return channels_.size(); }
  const Timeline& channel(std::size_t i) const { return channels_[i]; }
  Timeline& channel(std::size_t i) { return channels_[i]; }
  double channel_bandwidth() const { return channel_bandwidth_; }

 protected:
  // A transaction through the socket: served as `serve`, the delay annotated.
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override;

 private:
  const HbmSpec& spec_;
  EventQueue& events_;
  std::vector<Timeline> channels_;
  double channel_bandwidth_;  // bytes/s one channel sustains
  double ps_per_byte_;        // its inverse, in picoseconds
  Picoseconds latency_ps_;
  TraceSink* trace_ = nullptr;
  int first_track_ = 0;
  std::vector<Picoseconds> stack_start_, stack_end_;  // scratch for tracing
};

}  // namespace roofsim
