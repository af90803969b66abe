// One-shot through a switch: every chip sends its share to each other chip, in shifted rounds
// (round k: chip i to chip i + k) so that no two chips aim at the same port at once; an
// all-reduce does it twice (reduce-scatter, all-gather).
#include "components/collective_algorithms/common.hpp"
#include "validation/collective_bounds.hpp"

namespace roofsim {
namespace {
using namespace collective_detail;

class SwitchOneshot : public CollectiveAlgorithm {
 public:
  std::string name() const override { return "switch_oneshot"; }
  std::string summary() const override { return "every chip sends each other chip its share through the switch"; }
  std::string refusal(const Topology& t, CollectiveKind, const std::vector<int>& group) const override {
    return on_switch(t, group) ? "" : switch_refusal(t);
  }
  std::vector<CollectiveStream> lower(const CollectiveLowering& l) const override {
    // A sendrecv is one chip's whole buffer to one other: a single send through the switch (as
    // a share of it to every chip, it moved 7/8 of the bytes and beat its bound).
    if (l.kind == CollectiveKind::sendrecv) return {send_stream(l.bytes)};
    const std::uint64_t each = collective_share(l.bytes, static_cast<std::uint64_t>(l.members));
    return {CollectiveStream(static_cast<std::size_t>(ring_rounds(l.kind)), {CollectivePhase::Pattern::all_pairs, -1, 0, 1, each})};
  }
  double bound_s(const CollectiveBoundInputs& in) const override {
    return switch_oneshot_s(in.members, in.bytes, in.port_bandwidth, in.latency, ring_rounds(in.kind));
  }
};
}  // namespace

void register_collective_algorithms_switch_oneshot(CollectiveAlgorithmRegistry& r) { r.add(std::make_unique<SwitchOneshot>()); }

}  // namespace roofsim
