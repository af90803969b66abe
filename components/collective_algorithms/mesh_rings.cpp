// Rings over a full mesh's direct links, as RCCL lays several rings across the xGMI links of
// an MI300X node and splits the buffer over them (its channels). Ring r visits the members in
// steps of a stride coprime with their number (1, 3, 5, 7 on 8 chips), so each ring passes
// through every member and no two rings share a pair's links in the same direction. It uses
// phi(p) of the p - 1 links a chip has to its peers (4 of 7 on 8 chips): slower than
// mesh_oneshot at large sizes, with fewer, larger transfers. Sends of sendrecv go direct. The
// kernel's launch (collectives.launch_ns) comes first.
#include <numeric>

#include "components/collective_algorithms/common.hpp"
#include "validation/collective_bounds.hpp"

namespace roofsim {
namespace {
using namespace collective_detail;

// Strides from 1 to p - 1 coprime with p: each makes one ring through all p members.
std::vector<int> ring_strides(int p) {
  std::vector<int> s;
  for (int k = 1; k < p; ++k) {
    if (std::gcd(k, p) == 1) s.push_back(k);
  }
  if (p == 2) s = {1};
  return s;
}

class MeshRings : public CollectiveAlgorithm {
 public:
  std::string name() const override { return "mesh_rings"; }
  std::string summary() const override { return "full mesh: the buffer split over rings of different strides, each on its own direct links"; }
  std::string refusal(const Topology& t, CollectiveKind k, const std::vector<int>&) const override {
    const std::string why = no_mesh_refusal(t);
    if (!why.empty()) return why;
    if (k == CollectiveKind::alltoall) return alltoall_refusal(t);
    return "";
  }
  std::vector<CollectiveStream> lower(const CollectiveLowering& l) const override {
    if (l.kind == CollectiveKind::sendrecv) return {send_stream(l.bytes)};
    const std::vector<int> strides = ring_strides(l.members);
    const std::uint64_t part = collective_share(l.bytes, strides.size());
    std::vector<CollectiveStream> out;
    for (int stride : strides) {
      CollectiveStream ring = ring_stream(0, +1, part, l.members, ring_rounds(l.kind));
      for (CollectivePhase& ph : ring) ph.stride = stride;
      CollectiveStream s = launch_phases(l.hw);
      s.insert(s.end(), ring.begin(), ring.end());
      out.push_back(s);
    }
    return out;
  }
  // Each ring alone on its own links with its part of the buffer.
  double bound_s(const CollectiveBoundInputs& in) const override {
    const double B = mesh_pair_bandwidth(in.fabric, in.hw, in.link_bandwidth);
    if (in.kind == CollectiveKind::sendrecv) return in.bytes / B + in.latency;
    if (in.members < 2) return 0;
    const double part = in.bytes / static_cast<double>(ring_strides(in.members).size());
    return in.hw.collectives.launch_s + (in.kind == CollectiveKind::allreduce ? ring_allreduce_s(in.members, part, B, in.latency)
                                                                               : ring_gather_s(in.members, part, B, in.latency));
  }
};
}  // namespace

void register_collective_algorithms_mesh_rings(CollectiveAlgorithmRegistry& r) { r.add(std::make_unique<MeshRings>()); }

}  // namespace roofsim
