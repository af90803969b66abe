// Several nodes joined by a scale-out network (nodes:NxL): N nodes of L chips, each node's
// chips on their own NVLink switch (as switch:L), every chip with its NIC port (network.*) on
// the network. Chip c sits on node c / L as local rank c % L, so a TP group of L consecutive
// chips stays inside a node while pipeline stages and EP groups span nodes.
//
// Links, one direction each: the NVLink ports (up then down, as a switch lays them out, so
// that a group inside one node runs exactly as on switch:L), then every chip's NIC up and
// down, then (fat tree only) every node's leaf-to-spine uplinks and spine-to-leaf downlinks,
// L x NIC bandwidth / oversubscription each. A transfer between nodes occupies its NIC up and
// the receiver's NIC down (and, on a fat tree, the two nodes' spine links) cut-through, so two
// flows into one NIC queue on it exactly as they do on an NVLink port.
//
// Rail-optimised networks (network.shape = "rail"): NIC i of every node hangs off rail switch
// i, so only same-rail NICs reach each other without the spine. NCCL's PXN moves data bound
// for another rail over NVLink to the local GPU on the destination's rail first; that GPU's
// NIC sends it. We model exactly that path (NVLink up, NVLink down to the rail GPU, its NIC
// up, the receiver's NIC down), cut-through like the switch.
#include <algorithm>

#include "components/fabric.hpp"
#include "components/topology_family.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"

namespace roofsim {
namespace {

class Nodes : public TopologyFamily {
 public:
  std::string name() const override { return "nodes"; }
  std::string syntax() const override { return "nodes:NxL (N nodes of L chips)"; }
  std::string example() const override { return "nodes:2x8"; }
  std::optional<Topology> parse(const std::string& text) const override {
    if (text.rfind("nodes:", 0) != 0) return std::nullopt;
    const std::string body = text.substr(6);
    const std::size_t x = body.find('x');
    const auto n = x == std::string::npos ? std::nullopt : parse_integer(body.substr(0, x));
    const auto l = x == std::string::npos ? std::nullopt : parse_integer(body.substr(x + 1));
    if (!n || !l || *n <= 0 || *l <= 0 || *n > 65536 || *l > 65536) {
      throw InputError("${topology} '" + text + "': expected nodes:NxL (N nodes of L chips each, e.g. nodes:2x8), with positive sizes");
    }
    if (*n < 2) throw InputError("${topology} '" + text + "': one node is switch:" + std::to_string(*l));
    Topology t;
    t.family = this;
    t.dims = {static_cast<int>(*l), static_cast<int>(*n)};  // local rank fastest
    return t;
  }
  std::string name_of(const Topology& t) const override {
    return "nodes:" + std::to_string(t.dims[1]) + "x" + std::to_string(t.dims[0]);
  }
  bool through_switch() const override { return false; }
  bool rings() const override { return false; }
  bool networked() const override { return true; }
  bool switched_group(const Topology& t, const std::vector<int>& group) const override {
    if (group.empty()) return false;  // every chip: all nodes
    for (int c : group) {
      if (node(t, c) != node(t, group.front())) return false;
    }
    return true;
  }

  std::size_t link_count(const Topology& t) const override {
    const std::size_t p = static_cast<std::size_t>(t.chips());
    return 4 * p + 2 * static_cast<std::size_t>(nodes(t));  // the spine links exist but stay idle on a rail network
  }
  std::string link_name(const Topology& t, std::size_t i) const override {
    const std::size_t p = static_cast<std::size_t>(t.chips());
    const std::size_t n = static_cast<std::size_t>(nodes(t));
    if (i < p) return "chip" + std::to_string(i) + "->switch";
    if (i < 2 * p) return "switch->chip" + std::to_string(i - p);
    if (i < 3 * p) return "chip" + std::to_string(i - 2 * p) + "->net";
    if (i < 4 * p) return "net->chip" + std::to_string(i - 3 * p);
    if (i < 4 * p + n) return "node" + std::to_string(i - 4 * p) + "->spine";
    return "spine->node" + std::to_string(i - 4 * p - n);
  }
  std::string link_refusal(const Topology& t, const HardwareSpec& hw) const override {
    if (!hw.network.present) {
      return hw.name + ": " + name_of(t) + " needs a [network] section in the hardware file (the NICs that join the nodes)";
    }
    if (t.dims[0] > hw.network.chips_per_node) {
      return name_of(t) + " puts " + std::to_string(t.dims[0]) + " chips on a node; " + hw.name +
             " has network.chips_per_node = " + std::to_string(hw.network.chips_per_node);
    }
    return "";
  }

  void send_to(Fabric& f, int from, int to, std::uint64_t bytes, Callback done, const Wire& wire) const override {
    const Topology& t = f.topology();
    if (node(t, from) == node(t, to)) {
      f.send_switched(from, to, bytes, std::move(done), wire);
      return;
    }
    const HardwareSpec& hw = f.hw();
    const std::size_t p = static_cast<std::size_t>(t.chips());
    const double port = f.port_bandwidth(), nic = hw.network.port_bandwidth(), net = hw.network.latency_s;
    const double nvl = 2 * hw.links.latency_s;  // into the NVLink switch and out
    std::vector<Fabric::PathLink> path;
    int sender = from;  // the chip whose NIC sends
    if (hw.network.shape == "rail" && local(t, from) != local(t, to)) {
      // PXN: over NVLink to the GPU of this node on the destination's rail.
      sender = node(t, from) * t.dims[0] + local(t, to);
      path.push_back({static_cast<std::size_t>(from), port, 0, nvl + net});
      path.push_back({p + static_cast<std::size_t>(sender), port, nvl, nvl + net});
    }
    path.push_back({2 * p + static_cast<std::size_t>(sender), nic, 0, net});
    if (hw.network.shape == "fat_tree") {
      const std::size_t base = 4 * p, n = static_cast<std::size_t>(nodes(t));
      const double uplink = leaf_bandwidth(t, hw);
      path.push_back({base + static_cast<std::size_t>(node(t, from)), uplink, 0, net});
      path.push_back({base + n + static_cast<std::size_t>(node(t, to)), uplink, 0, net});
    }
    path.push_back({3 * p + static_cast<std::size_t>(to), nic, 0, net});
    f.send_path(path, bytes, std::move(done), wire);
  }
  // Without the hardware only the NVLink part is known: the closed form below is the one callers use.
  double send_bound_s(const Topology&, int, int, double bytes, double link, std::int64_t links_per_chip, double latency) const override {
    return bytes / (link * static_cast<double>(links_per_chip)) + 2 * latency;
  }
  double send_bound_s(const Topology& t, const HardwareSpec& hw, int from, int to, double bytes) const override {
    const double port = hw.links.bandwidth_per_direction * hw.links.efficiency * static_cast<double>(hw.links.count);
    const double nvl = 2 * hw.links.latency_s;
    if (node(t, from) == node(t, to)) return bytes / port + nvl;
    const double nic = hw.network.port_bandwidth(), net = hw.network.latency_s;
    if (hw.network.shape == "fat_tree") return bytes / std::min(nic, leaf_bandwidth(t, hw)) + net;
    if (local(t, from) != local(t, to)) return std::max(bytes / port, bytes / nic) + nvl + net;  // PXN
    return bytes / nic + net;
  }

 private:
  static int nodes(const Topology& t) { return t.dims[1]; }
  static int node(const Topology& t, int chip) { return chip / t.dims[0]; }
  static int local(const Topology& t, int chip) { return chip % t.dims[0]; }
  // A node's leaf-to-spine capacity: its chips' NICs over the oversubscription ratio.
  static double leaf_bandwidth(const Topology& t, const HardwareSpec& hw) {
    return static_cast<double>(t.dims[0]) * hw.network.port_bandwidth() / hw.network.oversubscription;
  }
};

}  // namespace

void register_topology_families_nodes(TopologyFamilyRegistry& r) { r.add(std::make_unique<Nodes>()); }

}  // namespace roofsim
