// One ring, one direction: NCCL's ring on a switch (ring neighbours through the switch), the
// ring of a ring topology, a ring over a full mesh's direct links, or a ring routed from member to member over a torus for groups
// without links of their own. Also sends of sendrecv.
#include "components/collective_algorithms/common.hpp"
#include "validation/collective_bounds.hpp"

namespace roofsim {
namespace {
using namespace collective_detail;

class Ring : public CollectiveAlgorithm {
 public:
  std::string name() const override { return "ring"; }
  std::string summary() const override { return "one ring in one direction (a switch's ring neighbours, or a routed ring)"; }
  std::string refusal(const Topology& t, CollectiveKind k, const std::vector<int>& group) const override {
    if (k == CollectiveKind::alltoall) return alltoall_refusal(t);
    if (!t.rings() || k == CollectiveKind::sendrecv || !is_subtorus(t, group)) return "";
    if (t.multi_dimensional()) return "on a multi-dimensional torus use torus or torus_split";
    return "";
  }
  std::vector<CollectiveStream> lower(const CollectiveLowering& l) const override {
    if (l.kind == CollectiveKind::sendrecv) return {send_stream(l.bytes)};
    return {ring_stream(0, +1, l.bytes, l.members, ring_rounds(l.kind))};
  }
  double bound_s(const CollectiveBoundInputs& in) const override {
    if (on_switch(in.fabric)) return switch_ring_s(in.members, in.bytes, in.port_bandwidth, in.latency, ring_rounds(in.kind));
    // On a full mesh every step crosses one pair's links.
    const double B = in.fabric.direct_pairs() ? mesh_pair_bandwidth(in.fabric, in.hw, in.link_bandwidth) : in.link_bandwidth;
    if (in.fabric.direct_pairs()) {
      return in.kind == CollectiveKind::allreduce ? ring_allreduce_s(in.members, in.bytes, B, in.latency)
                                                  : ring_gather_s(in.members, in.bytes, B, in.latency);
    }
    // A routed ring crosses at least one link a step: more hops and shared links only add time.
    return in.kind == CollectiveKind::allreduce ? ring_allreduce_s(in.members, in.bytes, in.link_bandwidth, in.latency)
                                                : ring_gather_s(in.members, in.bytes, in.link_bandwidth, in.latency);
  }
};
}  // namespace

void register_collective_algorithms_ring(CollectiveAlgorithmRegistry& r) { r.add(std::make_unique<Ring>()); }

}  // namespace roofsim
