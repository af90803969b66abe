// All-to-all on a ring or torus: every chip sends each other chip its share along the
// dimension-order route, all at once, so routes that share links queue on them.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "components/collective_algorithms/common.hpp"

namespace roofsim {
namespace {
using namespace collective_detail;

class Routed : public CollectiveAlgorithm {
 public:
  std::string name() const override { return "routed"; }
  std::string summary() const override { return "all-to-all on a ring or torus: every share along its dimension-order route"; }
  std::string refusal(const Topology& t, CollectiveKind k, const std::vector<int>&) const override {
    if (on_switch(t)) return "a switch has no routes of links (use switch_oneshot)";
    if (!t.rings()) return "needs a ring or torus of links to route over";
    if (k != CollectiveKind::alltoall) return "routed is an all-to-all algorithm";
    return "";
  }
  std::vector<CollectiveStream> lower(const CollectiveLowering& l) const override {
    const std::uint64_t each = collective_share(l.bytes, static_cast<std::uint64_t>(l.members));
    return {{{CollectivePhase::Pattern::all_pairs, -1, 0, 1, each}}};
  }
  // A lower bound: the busiest link must carry its load, and its last byte then needs a hop's
  // latency to arrive; the longest route's share needs its hops' latencies plus its own
  // transfer time.
  double bound_s(const CollectiveBoundInputs& in) const override {
    std::vector<int> group = in.group;
    if (group.empty()) {
      for (int c = 0; c < in.fabric.chips(); ++c) group.push_back(c);
    }
    const std::size_t p = group.size();
    if (p < 2) return 0;
    const double share = std::ceil(in.bytes / static_cast<double>(p));
    std::map<std::tuple<int, int, int>, double> load;  // (chip, dim, direction) -> bytes
    std::size_t longest = 0;
    for (int a : group) {
      for (int b : group) {
        if (a == b) continue;
        const std::vector<Topology::Hop> hops = in.fabric.route(a, b);
        longest = std::max(longest, hops.size());
        for (const Topology::Hop& h : hops) load[{h.chip, h.dim, h.direction}] += share;
      }
    }
    double busiest = 0;
    for (const auto& [link, bytes] : load) busiest = std::max(busiest, bytes);
    return std::max(busiest / in.link_bandwidth + in.latency,
                    share / in.link_bandwidth + static_cast<double>(longest) * in.latency);
  }
};
}  // namespace

void register_collective_algorithms_routed(CollectiveAlgorithmRegistry& r) { r.add(std::make_unique<Routed>()); }

}  // namespace roofsim
