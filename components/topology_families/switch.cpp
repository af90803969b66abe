// Chips on a switch (switch:N), as NVLink with NVSwitch: each chip's port is all of its links;
// a transfer occupies the sender's port into the switch and the receiver's port out of it,
// cut-through with buffering in the switch (Fabric::send_switched), and the switch may reduce
// (links.in_switch_reduction).
#include "components/fabric.hpp"
#include "components/topology_family.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"

namespace roofsim {
namespace {

class Switch : public TopologyFamily {
 public:
  std::string name() const override { return "switch"; }
  std::string syntax() const override { return "switch:N"; }
  std::string example() const override { return "switch:8"; }
  std::optional<Topology> parse(const std::string& text) const override {
    if (text.rfind("switch:", 0) != 0) return std::nullopt;
    const auto v = parse_integer(text.substr(7));
    if (!v || *v <= 0 || *v > 65536) {
      const bool dims = text.find('x', 7) != std::string::npos;
      throw InputError("${topology} '" + text + "': expected " + topology_syntax_list() + (dims ? "" : ", with positive sizes"));
    }
    Topology t;
    t.family = this;
    t.dims = {static_cast<int>(*v)};
    return t;
  }
  std::string name_of(const Topology& t) const override { return "switch:" + std::to_string(t.chips()); }
  bool through_switch() const override { return true; }
  bool rings() const override { return false; }
  // Up ports (chip to switch) first, then down ports.
  std::size_t link_count(const Topology& t) const override { return 2 * static_cast<std::size_t>(t.chips()); }
  std::string link_name(const Topology& t, std::size_t i) const override {
    const std::size_t p = static_cast<std::size_t>(t.chips());
    return i < p ? "chip" + std::to_string(i) + "->switch" : "switch->chip" + std::to_string(i - p);
  }
  std::string link_refusal(const Topology&, const HardwareSpec&) const override { return ""; }
  void send_to(Fabric& fabric, int from, int to, std::uint64_t bytes, Callback done, const Wire& wire) const override {
    fabric.send_switched(from, to, bytes, std::move(done), wire);
  }
  // One traversal: the port's bandwidth, a latency into the switch and one out.
  double send_bound_s(const Topology&, int, int, double bytes, double link, std::int64_t links_per_chip, double latency) const override {
    return bytes / (link * static_cast<double>(links_per_chip)) + 2 * latency;
  }
};

}  // namespace

void register_topology_families_switch(TopologyFamilyRegistry& r) { r.add(std::make_unique<Switch>()); }

}  // namespace roofsim
