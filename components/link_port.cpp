// The link seam's link array and initiator port (declared in link_port.hpp).
#include "components/link_port.hpp"

#include <algorithm>

namespace roofsim {

void LinkArray::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  LinkTransfer& t = LinkTransfer::of(trans);
  const Picoseconds now = now_ps() + delay.value();
  Picoseconds earliest = now, arrival = now, last_start = now;
  if (t.count == 1) {
    // Most transfers claim one link (a ring or torus neighbour, a hop of a routed transfer).
    const LinkHop& h = t.hops[0];
    Timeline& l = server(h.link);
    const Picoseconds end = l.reserve(now, ceil_ps(static_cast<double>(t.bytes) / h.rate));
    bytes(h.link) += t.bytes;
    if (t.label >= 0) traced(h.link, t.label);
    t.arrival = std::max(now, end + h.tail_ps);
    t.last_start = l.last_start();
    delay += sc_core::sc_time::from_value(t.arrival - now);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if (t.together) {
    for (std::size_t i = 0; i < t.count; ++i) earliest = std::max(earliest, server(t.hops[i].link).free_at());
  }
  for (std::size_t i = 0; i < t.count; ++i) {
    const LinkHop& h = t.hops[i];
    Timeline& l = server(h.link);
    const Picoseconds end = l.reserve(earliest, ceil_ps(static_cast<double>(t.bytes) / h.rate));
    bytes(h.link) += t.bytes;
    traced(h.link, t.label);
    arrival = std::max(arrival, end + h.tail_ps);
    last_start = l.last_start();
    // Cut-through: the head reaches the next link this long after this one started.
    if (!t.together) earliest = last_start + h.head_ps;
  }
  t.arrival = arrival;
  t.last_start = last_start;
  delay += sc_core::sc_time::from_value(arrival - now);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

LinkPort::LinkPort(const sc_core::sc_module_name& name)
    : sc_core::sc_module(name), socket_("socket") {
  payload_.set_command(tlm::TLM_WRITE_COMMAND);
  payload_.set_data_ptr(reinterpret_cast<unsigned char*>(&transfer_));
  payload_.set_data_length(sizeof transfer_);
  payload_.set_streaming_width(0);
  payload_.set_byte_enable_ptr(nullptr);
  payload_.set_dmi_allowed(false);
}

const LinkTransfer& LinkPort::transport(const LinkHop* hops, std::size_t count, std::uint64_t bytes, int label, bool together) {
  LinkTransfer& t = transfer_;  // every field set: the reply's by the target
  t.hops = hops;
  t.count = count;
  t.bytes = bytes;
  t.label = label;
  t.together = together;
  payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  socket_->b_transport(payload_, delay);
  if (trace_ && trace_->enabled && label >= 0) {
    const Picoseconds now = now_ps();
    trace_->record_transport(track_, label, now, now + delay.value(), bytes);
  }
  return t;
}

void LinkPort::trace_into(TraceSink& sink, const std::string& initiator, const std::string& target) {
  if (trace_ == &sink) return;
  trace_ = &sink;
  track_ = sink.add_track("transport " + initiator + " -> " + target);
}

}  // namespace roofsim
