#pragma once
// The seam between the units and memory: TLM-2.0 sockets. An initiator (the DMA engine) sends a
// loosely-timed transaction (a generic payload: read or write, address, bytes) through its
// socket to whatever memory target it is bound to; the target reserves its own resources (its
// channels' timelines) and annotates the delay until the last byte has arrived, so contention
// emerges in the target as before, and a new memory (an L2 in front of HBM, a near-memory bank)
// is a module bound to the same socket rather than edits in the units. The payload carries no
// data: roofsim times bytes, it does not move them.
#include <systemc>
#include <tlm>
#include <string>
#include <vector>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "components/server.hpp"
#include "components/trace_sink.hpp"

namespace roofsim {

// What a memory transaction carries beyond the generic payload: the share of the memory's
// streaming rate it gets (operand tiles and writes stream below plain reads: hbm.tile_efficiency,
// hbm.write_efficiency) and the op it belongs to in the trace (-1: none).
struct MemoryRequest : tlm::tlm_extension<MemoryRequest> {
  double rate = 1.0;
  int label = -1;
  tlm::tlm_extension_base* clone() const override { return new MemoryRequest(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const MemoryRequest&>(other); }
};

// A memory the units read and write through: any number of initiators bind to its socket, none
// included (a memory used directly, as near-memory units use the HBM channels).
// b_transport is called at the initiator's current time plus `delay` and leaves in `delay` the
// time from now until the transaction's last byte has arrived.
class MemoryTarget : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<MemoryTarget, 32, tlm::tlm_base_protocol_types, 0, sc_core::SC_ZERO_OR_MORE_BOUND> socket;
  // Its own servers, which layer replay saves and skips like the chip's (components/layer_replay.hpp)
  // and whose jobs the run counts; a memory that keeps other state between transactions cannot
  // be replayed.
  virtual std::vector<Timeline*> servers() { return {}; }

 protected:
  explicit MemoryTarget(const sc_core::sc_module_name& name) : sc_core::sc_module(name), socket("socket") {
    socket.register_b_transport(this, &MemoryTarget::transport);
  }
  virtual void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) = 0;

 private:
  void transport(int /*initiator*/, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) { b_transport(trans, delay); }
};

// An initiator's end of the seam, a module of its own so that a unit that is no module (the DMA
// engine) can hold one: one reusable payload (b_transport returns before the next is sent),
// its MemoryRequest owned by the payload.
class MemoryPort : public sc_core::sc_module {
 public:
  explicit MemoryPort(const sc_core::sc_module_name& name);
  // Binds this port to a memory.
  void bind(MemoryTarget& memory) { socket_.bind(memory.socket); }
  // Sends a read or write of `bytes` at `address` now; returns the delay until it has arrived,
  // in picoseconds.
  std::uint64_t transport(bool write, std::uint64_t address, std::uint64_t bytes, double rate, int label);
  // Records every labelled transport call from now on (while `sink` is enabled) on a track of
  // its own, "transport INITIATOR -> TARGET", added to `sink` by the first call: a slice per op
  // and run of calls, with their count and bytes.
  void trace_into(TraceSink& sink, const std::string& initiator, const std::string& target);

 private:
  tlm_utils::simple_initiator_socket<MemoryPort> socket_;
  tlm::tlm_generic_payload payload_;
  MemoryRequest* request_;  // owned by payload_
  TraceSink* trace_ = nullptr;
  int track_ = -1;
};

}  // namespace roofsim
