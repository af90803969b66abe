#pragma once
// Topology families as a registry: how chips are linked (rings and tori of direct links, a
// switch, ...). A family parses its syntax (--topology), names and lays out the fabric's
// links, says how a transfer crosses them, and what collectives can count on (a switch's
// ports, rings along dimensions). Each lives in components/topology_families/NAME.cpp, which
// defines register_topology_families_NAME(registry); CMake finds the files and generates the
// list that calls them, so adding a family is one new file plus its test.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "components/server.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"

namespace roofsim {

struct Topology;
class Fabric;
struct Wire;

class TopologyFamily {
 public:
  virtual ~TopologyFamily() = default;
  virtual std::string name() const = 0;
  // How --topology writes one, for help and errors ("switch:N").
  virtual std::string syntax() const = 0;
  // A topology of this family for tests and help ("4x4", "switch:8").
  virtual std::string example() const = 0;
  // nullopt when `text` is not written in this family's syntax; InputError when it is but
  // malformed. The result's chip count is checked by parse_topology.
  virtual std::optional<Topology> parse(const std::string& text) const = 0;
  virtual std::string name_of(const Topology& t) const = 0;

  // What collectives can count on. Through a switch: any chip reaches any other through its
  // port (all of its links) and the switch's; switch algorithms apply, a send costs one
  // traversal. Rings: chips sit on rings along dimensions (Topology::dims) with links of their
  // own, wrap-around included; ring and torus algorithms and sub-tori apply.
  virtual bool through_switch() const = 0;
  virtual bool rings() const = 0;
  // Every pair of chips has links of its own (a full mesh, as AMD Infinity Fabric between the
  // GPUs of an MI300X node): a send uses only its pair's links, so all-pairs algorithms move
  // every share at once and a ring of any order runs on direct links.
  virtual bool direct_pairs() const { return false; }
  // Several nodes joined by a scale-out network (hw.network): a group may span nodes.
  virtual bool networked() const { return false; }
  // Whether the chips of `group` (empty: every chip) reach each other through one switch
  // (switch algorithms apply to them): on a switch always; on several nodes, a group inside
  // one node.
  virtual bool switched_group(const Topology&, const std::vector<int>&) const { return through_switch(); }

  // The fabric's links (one direction each): how many, and their names for people.
  virtual std::size_t link_count(const Topology& t) const = 0;
  virtual std::string link_name(const Topology& t, std::size_t link) const = 0;
  // Why the chips' links cannot form this topology ("" when they can).
  virtual std::string link_refusal(const Topology& t, const HardwareSpec& hw) const = 0;
  // Moves `bytes` from one chip to any other over the links; `done` when they have arrived.
  virtual void send_to(Fabric& fabric, int from, int to, std::uint64_t bytes, Callback done, const Wire& wire) const = 0;
  // That send's time alone on idle links (its closed form): `link` bytes/s per link and
  // direction, `links_per_chip`, `latency` per link.
  virtual double send_bound_s(const Topology& t, int from, int to, double bytes, double link, std::int64_t links_per_chip,
                              double latency) const = 0;
  // The same from the hardware (families whose paths leave the chips' links, such as a
  // network between nodes, override this one); what callers use.
  virtual double send_bound_s(const Topology& t, const HardwareSpec& hw, int from, int to, double bytes) const {
    return send_bound_s(t, from, to, bytes, hw.links.bandwidth_per_direction * hw.links.efficiency, hw.links.count, hw.links.latency_s);
  }
};

using TopologyFamilyRegistry = Registry<TopologyFamily>;

// A full mesh of `chips` chips with `links_per_chip` links each: the links each pair gets
// (split evenly over the chips' chips - 1 peers, the remainder left unused; 0 when too few).
inline std::int64_t mesh_links_per_peer(int chips, std::int64_t links_per_chip) {
  return chips > 1 ? links_per_chip / (chips - 1) : links_per_chip;
}

const TopologyFamilyRegistry& topology_families();
// "N (a ring), AxBxC (a torus) or switch:N": every family's syntax, for messages and help.
std::string topology_syntax_list();

}  // namespace roofsim
