#pragma once
// The seam between a fabric's transfers and its links (ring and torus links, switch ports, mesh
// pairs, network ports): TLM-2.0 sockets, as between op runs and compute units
// (components/compute_port.hpp). The fabric sends each transfer as a loosely-timed transaction
// naming the links it claims, cut-through, in order; the link module reserves its own links'
// timelines and annotates the delay until the data has arrived, so contention between transfers
// that share a link emerges there as before, and another model of the links (credit-based flow
// control, a packet-level NIC) is a module bound to the same socket rather than edits in the
// fabric's topologies and collective algorithms. The payload moves no data: its data pointer
// carries the request (LinkTransfer).
#include <cstddef>
#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "components/payload_port.hpp"
#include "components/server.hpp"
#include "components/trace_sink.hpp"

namespace roofsim {

// One link a transfer claims: its index in the fabric's layout, the rate the data gets on it
// (bytes/s, the wire's share applied), how long after this link starts the data's head reaches
// the next link of the path, and the time from this link's last byte to the data's arrival.
struct LinkHop {
  std::size_t link = 0;
  double rate = 0;
  Picoseconds head_ps = 0, tail_ps = 0;
};

// What a link transaction carries, as the generic payload's data (its data pointer: read inline,
// where an extension's lookup is a library call on the fabric's hottest path).
struct LinkTransfer {
  // In.
  const LinkHop* hops = nullptr;
  std::size_t count = 0;
  std::uint64_t bytes = 0;
  // false: cut-through, each link claimed when the data's head reaches it (later when busy).
  // true: every link carries the data over the same interval, from when the last of them is free
  // (a switch reducing in the network streams in and out at once).
  bool together = false;
  int label = -1;  // the op in the trace (-1: none)
  // Out.
  Picoseconds arrival = 0;     // the latest of the links' last byte plus its tail
  Picoseconds last_start = 0;  // when the last link of the path began carrying the data
  static LinkTransfer& of(tlm::tlm_generic_payload& trans) { return *reinterpret_cast<LinkTransfer*>(trans.get_data_ptr()); }
};

// The links of a fabric, one server each, behind a target socket. b_transport is called at the
// initiator's current time and leaves in `delay` the time from then until the data has arrived.
class LinkTarget : public PayloadTarget {
 public:
  std::size_t links() const { return links_.size(); }
  // Layer replay saves and skips the timelines (links are not interchangeable: compared one by
  // one) and credits the bytes of skipped work.
  Timeline& server(std::size_t link) { return links_[link]; }
  const Timeline& server(std::size_t link) const { return links_[link]; }
  std::uint64_t& bytes(std::size_t link) { return bytes_[link]; }
  const std::vector<std::uint64_t>& bytes() const { return bytes_; }
  // Records each link's busy intervals (while `sink` is enabled) on track `link`.
  void trace_into(TraceSink& sink) { trace_ = &sink; }

 protected:
  LinkTarget(const sc_core::sc_module_name& name, std::size_t links)
      : PayloadTarget(name), links_(links), bytes_(links, 0) {}
  void traced(std::size_t link, int label) {
    if (trace_ && trace_->enabled && label >= 0) trace_->record(static_cast<int>(link), label, links_[link].last_start(), links_[link].free_at());
  }

 private:
  std::vector<Timeline> links_;
  std::vector<std::uint64_t> bytes_;
  TraceSink* trace_ = nullptr;
};

// Links that each carry one transfer after another at the transfer's rate: the fabric's own.
class LinkArray final : public LinkTarget {
 public:
  LinkArray(const sc_core::sc_module_name& name, std::size_t links) : LinkTarget(name, links) {}

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override;
};

// The fabric's end of the seam (the payload's data: the port's LinkTransfer).
class LinkPort : public PayloadPort<LinkTransfer> {
 public:
  explicit LinkPort(const sc_core::sc_module_name& name) : PayloadPort(name) {}
  void bind(LinkTarget& links) { bind_to(links.socket); }
  // Sends `bytes` over `hops` now; returns the reply.
  const LinkTransfer& transport(const LinkHop* hops, std::size_t count, std::uint64_t bytes, int label, bool together = false) {
    LinkTransfer& t = request_data();  // every field set: the reply's by the target
    t.hops = hops;
    t.count = count;
    t.bytes = bytes;
    t.label = label;
    t.together = together;
    send(label, bytes);
    return t;
  }
};

}  // namespace roofsim
