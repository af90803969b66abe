// The buffer halved over both directions of a ring: twice the links of a one-way ring.
#include "components/collective_algorithms/common.hpp"
#include "validation/collective_bounds.hpp"

namespace roofsim {
namespace {
using namespace collective_detail;

class BidirectionalRing : public CollectiveAlgorithm {
 public:
  std::string name() const override { return "bidirectional_ring"; }
  std::string summary() const override { return "the buffer halved over both directions of a ring"; }
  std::string refusal(const Topology& t, CollectiveKind k, const std::vector<int>& group) const override {
    if (!t.rings()) return no_rings_refusal(t);
    if (k == CollectiveKind::alltoall) return alltoall_refusal(t);
    if (k == CollectiveKind::sendrecv) return "";
    if (!is_subtorus(t, group)) return routed_group_refusal(t, group);
    if (t.multi_dimensional()) return "on a multi-dimensional torus use torus or torus_split";
    return "";
  }
  std::vector<CollectiveStream> lower(const CollectiveLowering& l) const override {
    if (l.kind == CollectiveKind::sendrecv) return {send_stream(l.bytes)};
    const std::uint64_t half = collective_share(l.bytes, 2);
    return {ring_stream(0, +1, half, l.members, ring_rounds(l.kind)), ring_stream(0, -1, half, l.members, ring_rounds(l.kind))};
  }
  double bound_s(const CollectiveBoundInputs& in) const override {
    return in.kind == CollectiveKind::allreduce
               ? bidirectional_ring_allreduce_s(in.members, in.bytes, in.link_bandwidth, in.latency)
               : ring_gather_s(in.members, in.bytes / 2, in.link_bandwidth, in.latency);
  }
};
}  // namespace

void register_collective_algorithms_bidirectional_ring(CollectiveAlgorithmRegistry& r) {
  r.add(std::make_unique<BidirectionalRing>());
}

}  // namespace roofsim
