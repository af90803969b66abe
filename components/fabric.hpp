#pragma once
// Chips wired into a topology by links. A link is a server per direction (full duplex): a
// transfer occupies it for bytes / (bandwidth x efficiency) and arrives a latency later. On a
// switch, a transfer occupies the sender's port into the switch and the receiver's port out of
// it at once (cut-through); on a ring or torus, a transfer between distant chips occupies every
// link of its route (cut-through). Contention between transfers that share a link emerges from
// that.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "components/link_port.hpp"
#include "components/server.hpp"
#include "components/topology_family.hpp"
#include "components/trace_sink.hpp"
#include "core/hardware.hpp"

namespace roofsim {

struct Topology {
  // How the chips are linked (components/topology_families/); set by parse_topology.
  const TopologyFamily* family = nullptr;
  std::vector<int> dims;  // ring: {p}; torus: {x, y, z} (sizes >= 1); switch: {p}
  int chips() const;
  std::string name() const;
  // What the family offers collectives: a switch's ports, or rings along `dims`.
  bool through_switch() const { return family && family->through_switch(); }
  bool rings() const { return family && family->rings(); }
  bool direct_pairs() const { return family && family->direct_pairs(); }
  bool multi_dimensional() const { return rings() && dims.size() > 1; }
  // Several nodes joined by a network (nodes:NxL); whether a group reaches itself through one
  // switch (TopologyFamily::switched_group).
  bool networked() const { return family && family->networked(); }
  bool switched(const std::vector<int>& group) const { return family && family->switched_group(*this, group); }

  // Ring/torus coordinates of a chip (x fastest) and back.
  std::vector<int> coords(int chip) const;
  int chip_at(const std::vector<int>& coords) const;

  // A group of consecutive chips on a ring or torus has links of its own (wrap-around
  // included) only when it spans whole leading dimensions: on 4x4x4, 4 chips (an x ring), 16
  // (an x-y plane) or 64. The number of leading dimensions `group` chips span, or -1 when it
  // is no product of leading dimensions; the whole topology spans all of them.
  int spanned_dims(int group) const;
  // The group sizes spanned_dims accepts, smallest first ("1, 4, 16, 64").
  std::string group_sizes() const;
  // The sub-torus a group of `group` chips spans (the topology itself for all chips).
  Topology subtorus(int group) const;

  // The links of the shortest dimension-order route (x, then y, then z; ties go +1) from one
  // chip to another: each hop is the chip it leaves, the dimension and the direction.
  struct Hop {
    int chip, dim, direction;
  };
  std::vector<Hop> route(int from, int to) const;
};

// "8" (a ring of 8), "4x4x4" (a 3D torus with wrap-around), "switch:8" (8 chips on a switch):
// whichever registered family reads it; between 2 and 65536 chips.
Topology parse_topology(const std::string& text);

// How a collective kernel puts one transfer on the wire: the fraction of the link's effective
// bandwidth its payload gets (a protocol's flags), a cap on its rate (the channels, CTAs, that
// copy it), and latency it adds to the link's (a protocol step's synchronisation). The default
// is the link alone.
struct Wire {
  double efficiency = 1;
  double rate_cap = 0;  // bytes/s; 0: none
  double extra_latency_s = 0;
  int trace_name = -1;  // the op's name in the fabric's trace (-1: not traced)
};

// Layer replay (components/layer_replay.hpp): a fabric's running totals, and what work added
// to them (only the links it used).
struct LinkCounters {
  std::uint64_t events = 0;
  std::vector<Picoseconds> busy;
  std::vector<std::uint64_t> jobs, bytes;
};
struct LinkDelta {
  struct Link {
    std::size_t index;
    Picoseconds busy;
    std::uint64_t jobs, bytes;
  };
  std::uint64_t events = 0;
  std::vector<Link> links;
};
LinkDelta operator-(const LinkCounters& after, const LinkCounters& before);

class Fabric : public sc_core::sc_module {
 public:
  Fabric(const sc_core::sc_module_name& name, const HardwareSpec& hw, const Topology& topology);

  const Topology& topology() const { return topology_; }
  int chips() const { return topology_.chips(); }
  // Torus coordinates of a chip and back (a ring is a torus of one dimension).
  std::vector<int> coords(int chip) const { return topology_.coords(chip); }
  int chip_at(const std::vector<int>& coords) const { return topology_.chip_at(coords); }
  // The neighbour of `chip` one step along `dim` in direction +1 or -1 (wrapping around).
  int neighbour(int chip, int dim, int direction) const;

  // Moves `bytes` from `from` to an adjacent chip (ring/torus: the link along dim, direction;
  // switch: any chip); `done` when the data has arrived.
  void send(int from, int dim, int direction, std::uint64_t bytes, Callback done, const Wire& wire = {});
  void send_switched(int from, int to, std::uint64_t bytes, Callback done, const Wire& wire = {});
  // Ring/torus: moves `bytes` from `from` to any chip along Topology::route, cut-through: each
  // link of the route carries the data once, starting a hop latency after the link before it
  // started (later, when it is busy: the chip in between buffers; a link serves transfers in the
  // order their heads arrive); `done` a hop latency after
  // the last link has carried it all. Without contention: hops x latency + bytes / bandwidth.
  void send_routed(int from, int to, std::uint64_t bytes, Callback done, const Wire& wire = {});
  // Full mesh: moves `bytes` from `from` to `to` over the links that pair owns (its share of
  // the chip's links, mesh_links_per_peer), a latency after they have carried it.
  void send_direct(int from, int to, std::uint64_t bytes, Callback done, const Wire& wire = {});
  // One link of a path (send_path): its index in the family's layout, its bandwidth (bytes/s,
  // before the wire), how long after this link starts the data's head reaches the next link,
  // and the latency from this link's last byte to the data's arrival.
  struct PathLink {
    std::size_t link;
    double bandwidth;
    double head_delay_s;
    double tail_latency_s;
  };
  // Moves `bytes` over `path`, cut-through: each link is claimed when the head of the data
  // reaches it (later when busy) and carries all of it at its own rate; `done` when the last
  // link's data has arrived. A switch traversal (send_switched) is the path {up, down}.
  void send_path(const std::vector<PathLink>& path, std::uint64_t bytes, Callback done, const Wire& wire = {});
  // Any chip to any chip, as the topology's family sends (through the switch, routed, ...).
  void send_to(int from, int to, std::uint64_t bytes, Callback done, const Wire& wire = {});
  // Through the switch with in-network reduction: `bytes` up from every chip, reduced in the
  // switch, and the result down to every chip; `done` per chip when its result has arrived.
  void switch_reduce(std::uint64_t bytes, const std::vector<Callback>& done, const std::vector<int>& chips, const Wire& wire = {});
  // Runs `done` from the event queue, after the current callback returns.
  void at_now(Callback done) { events_.at(now_ps(), std::move(done)); }
  // Runs `done` `seconds` from now (a kernel's fixed costs: no link is busy meanwhile).
  void after(double seconds, Callback done) { events_.at(now_ps() + ceil_ps(seconds), std::move(done)); }
  const HardwareSpec& hw() const { return hw_; }

  double link_bandwidth() const { return link_bandwidth_; }  // bytes/s, one direction, effective
  double port_bandwidth() const { return link_bandwidth_ * static_cast<double>(hw_.links.count); }
  double latency_s() const { return hw_.links.latency_s; }
  SimStats& stats() { return stats_; }
  struct LinkUse {
    std::string name;
    Picoseconds busy = 0;
    std::uint64_t bytes = 0;
  };
  std::vector<LinkUse> link_use() const;
  // Bytes every link has carried so far, added up (a path's bytes once per hop).
  std::uint64_t link_bytes_total() const;
  // Busy intervals per link (a track per link, in link_use's order), recorded for transfers
  // whose Wire names an op while tracing is on. The tracks are made when tracing is first
  // turned on: a fabric of 65536 chips names none it does not need.
  TraceSink& trace_sink() { return trace_; }
  const TraceSink& trace_sink() const { return trace_; }
  void set_tracing(bool on);

  // Layer replay: whether no transfer is in flight; each link's busy time left after `now`
  // (links are not interchangeable: they are compared one by one); totals; and the fabric as
  // it would be at `until` after work that added `delta` and left its links in state `end`.
  bool quiescent() const { return events_.empty(); }
  std::vector<Picoseconds> state(Picoseconds now) const;
  LinkCounters counters() const;
  void credit(const LinkDelta& delta);
  void skip_to(Picoseconds until, const std::vector<Picoseconds>& end);
  EventQueue& events() { return events_; }

 private:
  // A link's (or port's) effective bandwidth as `wire` uses it.
  static double rate(double bandwidth, const Wire& wire);
  // send_routed from hop i on, now that the data's head has reached that hop's link.
  void forward(std::shared_ptr<const std::vector<Topology::Hop>> hops, std::size_t i, std::uint64_t bytes, Callback done,
               const Wire& wire);
  int link_index(int chip, int dim, int direction) const;

  HardwareSpec hw_;
  Topology topology_;
  SimStats stats_;
  EventQueue events_;
  double link_bandwidth_;
  Picoseconds latency_ps_;
  TraceSink trace_;
  // As the family lays them out (ring/torus: chip x dim x direction; switch: up then down
  // ports; mesh: per sending chip, its chips - 1 peers in order), behind the link seam
  // (components/link_port.hpp).
  std::unique_ptr<LinkTarget> links_;
  LinkPort port_;
};

}  // namespace roofsim
