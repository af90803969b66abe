// The link seam's link array (declared in link_port.hpp).
#include "components/link_port.hpp"

#include <algorithm>

namespace roofsim {

void LinkArray::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  LinkTransfer& t = LinkTransfer::of(trans);
  const Picoseconds now = now_ps() + delay.value();
  Picoseconds earliest = now, arrival = now, last_start = now;
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

}  // namespace roofsim
