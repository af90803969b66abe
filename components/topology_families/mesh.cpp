// A full mesh (mesh:N): every chip has links of its own to every other, as the seven AMD
// Infinity Fabric links of each GPU of an 8-GPU MI300X node. A chip's links.count links are
// split evenly over its N - 1 peers (the remainder unused); a transfer uses only its pair's
// links (Fabric::send_direct), so all-pairs exchanges run every pair at once and contend with
// nothing but other transfers between the same two chips.
#include "components/fabric.hpp"
#include "components/topology_family.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"

namespace roofsim {
namespace {

class Mesh : public TopologyFamily {
 public:
  std::string name() const override { return "mesh"; }
  std::string syntax() const override { return "mesh:N"; }
  std::string example() const override { return "mesh:4"; }
  std::optional<Topology> parse(const std::string& text) const override {
    if (text.rfind("mesh:", 0) != 0) return std::nullopt;
    const auto v = parse_integer(text.substr(5));
    // A mesh has N (N - 1) links; beyond 4096 chips no chip has that many links anyway.
    if (!v || *v <= 0 || *v > 4096) {
      throw InputError("${topology} '" + text + "': expected mesh:N with N from 2 to 4096 (" + topology_syntax_list() + ")");
    }
    Topology t;
    t.family = this;
    t.dims = {static_cast<int>(*v)};
    return t;
  }
  std::string name_of(const Topology& t) const override { return "mesh:" + std::to_string(t.chips()); }
  bool through_switch() const override { return false; }
  bool rings() const override { return false; }
  bool direct_pairs() const override { return true; }
  // Per sending chip, one link (direction) to each peer in chip order.
  std::size_t link_count(const Topology& t) const override {
    const std::size_t p = static_cast<std::size_t>(t.chips());
    return p * (p - 1);
  }
  std::string link_name(const Topology& t, std::size_t i) const override {
    const std::size_t peers = static_cast<std::size_t>(t.chips()) - 1;
    const std::size_t from = i / peers, k = i % peers;
    const std::size_t to = k < from ? k : k + 1;
    return "chip" + std::to_string(from) + "->chip" + std::to_string(to);
  }
  std::string link_refusal(const Topology& t, const HardwareSpec& hw) const override {
    const std::int64_t peers = t.chips() - 1;
    if (hw.links.count >= peers) return "";
    return hw.name + " has " + std::to_string(hw.links.count) + " links per chip; a full mesh of " + std::to_string(t.chips()) +
           " chips needs at least " + std::to_string(peers) + " (one to each peer)";
  }
  void send_to(Fabric& fabric, int from, int to, std::uint64_t bytes, Callback done, const Wire& wire) const override {
    fabric.send_direct(from, to, bytes, std::move(done), wire);
  }
  // The pair's links and one latency.
  double send_bound_s(const Topology& t, int from, int to, double bytes, double link, std::int64_t links_per_chip,
                      double latency) const override {
    if (from == to) return 0;
    return bytes / (link * static_cast<double>(mesh_links_per_peer(t.chips(), links_per_chip))) + latency;
  }
};

}  // namespace

void register_topology_families_mesh(TopologyFamilyRegistry& r) { r.add(std::make_unique<Mesh>()); }

}  // namespace roofsim
