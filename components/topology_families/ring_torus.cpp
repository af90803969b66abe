// Rings and tori of direct links: N (a ring), AxB or AxBxC (a torus with wrap-around, x
// fastest), as TPU ICI slices. Every chip has a link in each direction of each dimension; a
// transfer between distant chips is routed dimension by dimension, cut-through
// (Fabric::send_routed).
#include <cctype>

#include "components/fabric.hpp"
#include "components/topology_family.hpp"
#include "core/error.hpp"
#include "core/parse.hpp"
#include "validation/collective_bounds.hpp"

namespace roofsim {
namespace {

class RingTorus : public TopologyFamily {
 public:
  std::string name() const override { return "torus"; }
  std::string syntax() const override { return "N (a ring), AxBxC (a torus)"; }
  std::string example() const override { return "4x4"; }
  std::optional<Topology> parse(const std::string& text) const override {
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
    Topology t;
    t.family = this;
    std::size_t start = 0;
    while (start <= text.size()) {
      const std::size_t x = text.find('x', start);
      const std::string part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
      const auto v = parse_integer(part);
      if (!v || *v <= 0 || *v > 65536) {
        throw InputError("${topology} '" + text + "': expected " + topology_syntax_list() + ", with positive sizes");
      }
      t.dims.push_back(static_cast<int>(*v));
      if (x == std::string::npos) break;
      start = x + 1;
    }
    if (t.dims.size() > 3) throw InputError("${topology} '" + text + "': expected " + topology_syntax_list());
    return t;
  }
  std::string name_of(const Topology& t) const override {
    std::string s;
    for (std::size_t i = 0; i < t.dims.size(); ++i) s += (i ? "x" : "") + std::to_string(t.dims[i]);
    return s;
  }
  bool through_switch() const override { return false; }
  bool rings() const override { return true; }
  // Per chip, per dimension, + then -: link (chip x dims + dim) x 2 + direction.
  std::size_t link_count(const Topology& t) const override { return static_cast<std::size_t>(t.chips()) * 2 * t.dims.size(); }
  std::string link_name(const Topology& t, std::size_t i) const override {
    const std::size_t dims = t.dims.size();
    const std::size_t chip = i / (2 * dims), dim = (i / 2) % dims;
    return "chip" + std::to_string(chip) + " " + "xyz"[dim] + (i % 2 == 0 ? "+" : "-");
  }
  std::string link_refusal(const Topology& t, const HardwareSpec& hw) const override {
    const std::size_t ports = 2 * t.dims.size();
    if (static_cast<std::int64_t>(ports) <= hw.links.count) return "";
    return hw.name + " has " + std::to_string(hw.links.count) + " links per chip; a " + std::to_string(t.dims.size()) +
           "-D topology needs " + std::to_string(ports);
  }
  void send_to(Fabric& fabric, int from, int to, std::uint64_t bytes, Callback done, const Wire& wire) const override {
    fabric.send_routed(from, to, bytes, std::move(done), wire);
  }
  double send_bound_s(const Topology& t, int from, int to, double bytes, double link, std::int64_t, double latency) const override {
    return routed_send_s(static_cast<int>(t.route(from, to).size()), bytes, link, latency);
  }
};

}  // namespace

void register_topology_families_ring_torus(TopologyFamilyRegistry& r) { r.add(std::make_unique<RingTorus>()); }

}  // namespace roofsim
