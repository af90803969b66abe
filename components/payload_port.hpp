#pragma once
// The two ends of a TLM-2.0 seam whose request travels as the generic payload's data (the
// compute and link seams: components/compute_port.hpp, components/link_port.hpp). The
// initiator's port holds one reusable payload (b_transport returns before the next call is
// sent) and, once traced, a track of the labelled calls, merged per op and run of calls.
#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "components/server.hpp"
#include "components/trace_sink.hpp"

namespace roofsim {

// The target's end: a module that is its socket's transport interface itself (no simple
// socket's dispatch in between: a transport call is one virtual call, on the simulation's hot
// paths), loosely timed only. Subclasses implement b_transport.
class PayloadTarget : public sc_core::sc_module, public tlm::tlm_fw_transport_if<> {
 public:
  tlm::tlm_target_socket<> socket;

 protected:
  explicit PayloadTarget(const sc_core::sc_module_name& name) : sc_core::sc_module(name), socket("socket") { socket.bind(*this); }
  // No forward path, no direct memory, no debug access.
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase&, sc_core::sc_time&) override {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
};

template <typename Request>
class PayloadPort : public sc_core::sc_module {
 public:
  // Records every labelled call from now on (while `sink` is enabled) on a track of its own,
  // "transport INITIATOR -> TARGET", added to `sink` by the first call: a slice per op and run
  // of calls, with their count (and bytes, where calls carry them).
  void trace_into(TraceSink& sink, const std::string& initiator, const std::string& target) {
    if (trace_ == &sink) return;
    trace_ = &sink;
    track_ = sink.add_track("transport " + initiator + " -> " + target);
  }

 protected:
  explicit PayloadPort(const sc_core::sc_module_name& name) : sc_core::sc_module(name), socket_("socket") {
    payload_.set_command(tlm::TLM_WRITE_COMMAND);
    payload_.set_data_ptr(reinterpret_cast<unsigned char*>(&request_));
    payload_.set_data_length(sizeof request_);
    payload_.set_streaming_width(0);
    payload_.set_byte_enable_ptr(nullptr);
    payload_.set_dmi_allowed(false);
  }
  void bind_to(tlm::tlm_target_socket<>& target) { socket_.bind(target); }
  Request& request_data() { return request_; }
  // Sends the request now; returns the delay until its reply is ready. A labelled call (label
  // >= 0) is traced with `bytes`.
  Picoseconds send(int label, std::uint64_t bytes) {
    payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket_->b_transport(payload_, delay);
    if (trace_ && trace_->enabled && label >= 0) {
      const Picoseconds now = now_ps();
      trace_->record_transport(track_, label, now, now + delay.value(), bytes);
    }
    return delay.value();
  }

 private:
  tlm_utils::simple_initiator_socket<PayloadPort> socket_;
  tlm::tlm_generic_payload payload_;
  Request request_;
  TraceSink* trace_ = nullptr;
  int track_ = -1;
};

}  // namespace roofsim
