// All-pairs over a full mesh's direct links (mesh:N): every member sends its share to each
// other member at once, each share on its own pair's links; an all-reduce does it twice
// (reduce-scatter, then all-gather: the "two-shot" of custom all-reduce kernels), all-gather,
// reduce-scatter and all-to-all once. The kernel's launch (collectives.launch_ns) comes first.
// On a mesh whose chips have a link to every peer this keeps every link busy and moves
// (p - 1)/p of the buffer per round over p - 1 links: the least any algorithm can. It is the
// default on a mesh. RCCL's own choice on an MI300X node is its ring and tree kernels over
// rings it lays across the xGMI links (mesh_rings is that shape), MSCCL/MSCCL++ all-pairs
// kernels for some sizes, and all-pairs point-to-point for all-to-all; roofsim has no RCCL
// measurement to calibrate the rings' channels against, so the default is the algorithm whose
// closed form is the fabric's own limit.
#include <cmath>

#include "components/collective_algorithms/common.hpp"

namespace roofsim {
namespace {
using namespace collective_detail;

class MeshOneshot : public CollectiveAlgorithm {
 public:
  std::string name() const override { return "mesh_oneshot"; }
  std::string summary() const override { return "full mesh: every chip sends each other chip its share on their own links, all at once"; }
  std::string refusal(const Topology& t, CollectiveKind, const std::vector<int>&) const override { return no_mesh_refusal(t); }
  std::vector<CollectiveStream> lower(const CollectiveLowering& l) const override {
    if (l.kind == CollectiveKind::sendrecv) return {send_stream(l.bytes)};
    const std::uint64_t each = collective_share(l.bytes, static_cast<std::uint64_t>(l.members));
    CollectiveStream s = launch_phases(l.hw);
    for (int r = 0; r < ring_rounds(l.kind); ++r) s.push_back({CollectivePhase::Pattern::all_pairs, -1, 0, 1, each});
    return {s};
  }
  // Per round, each pair's links carry one share (the buffer / p, rounded up as lowered) and
  // it arrives a link latency later; the rounds follow one another.
  double bound_s(const CollectiveBoundInputs& in) const override {
    const double B = mesh_pair_bandwidth(in.fabric, in.hw, in.link_bandwidth);
    if (in.kind == CollectiveKind::sendrecv) return in.bytes / B + in.latency;
    if (in.members < 2) return 0;
    const double share = std::ceil(in.bytes / in.members);
    return in.hw.collectives.launch_s + ring_rounds(in.kind) * (share / B + in.latency);
  }
};
}  // namespace

void register_collective_algorithms_mesh_oneshot(CollectiveAlgorithmRegistry& r) { r.add(std::make_unique<MeshOneshot>()); }

}  // namespace roofsim
