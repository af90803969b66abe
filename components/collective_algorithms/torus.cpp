// Torus collectives dimension by dimension, in both directions of each ring: reduce-scatter
// along each spanned dimension, the shard shrinking each time, then all-gather back in reverse
// order (all-gather and reduce-scatter do one of the two halves). torus_split cuts the buffer
// into one part per dimension, each starting on another dimension, so that all of a chip's
// links work at once (six on a 3-D torus).
#include "components/collective_algorithms/common.hpp"
#include "validation/collective_bounds.hpp"

namespace roofsim {
namespace {
using namespace collective_detail;

class Torus : public CollectiveAlgorithm {
 public:
  explicit Torus(bool split) : split_(split) {}
  std::string name() const override { return split_ ? "torus_split" : "torus"; }
  std::string summary() const override {
    return split_ ? "dimension by dimension, the buffer in one part per dimension, each starting on another (all links busy)"
                  : "dimension by dimension, both directions of each ring";
  }
  std::string refusal(const Topology& t, CollectiveKind k, const std::vector<int>& group) const override {
    if (!t.rings()) return no_rings_refusal(t);
    if (k == CollectiveKind::alltoall || k == CollectiveKind::sendrecv) {
      return "torus algorithms are lowered for all-reduce, all-gather and reduce-scatter";
    }
    if (!is_subtorus(t, group)) return routed_group_refusal(t, group);
    return "";
  }
  std::vector<CollectiveStream> lower(const CollectiveLowering& l) const override {
    const int dims = l.spanned_dims;  // a sub-torus has links of its own there
    const int parts = split_ ? dims : 1;
    std::vector<CollectiveStream> streams;
    for (int part = 0; part < parts; ++part) {
      for (int direction : {+1, -1}) {
        std::uint64_t bytes = collective_share(l.bytes, static_cast<std::uint64_t>(2 * parts));
        CollectiveStream reduce_scatter;
        for (int i = 0; i < dims; ++i) {
          const int d = (part + i) % dims;
          const int k = l.topology.dims[static_cast<std::size_t>(d)];
          if (k == 1) continue;
          bytes = collective_share(bytes, static_cast<std::uint64_t>(k));
          reduce_scatter.push_back({CollectivePhase::Pattern::ring, d, direction, k - 1, bytes});
        }
        CollectiveStream s;
        if (l.kind != CollectiveKind::allgather) s = reduce_scatter;
        if (l.kind != CollectiveKind::reducescatter) s.insert(s.end(), reduce_scatter.rbegin(), reduce_scatter.rend());
        streams.push_back(s);
      }
    }
    return streams;
  }
  double bound_s(const CollectiveBoundInputs& in) const override {
    return in.kind == CollectiveKind::allreduce ? torus_allreduce_s(in.links.dims, in.bytes, in.link_bandwidth, in.latency, split_)
                                                : torus_gather_s(in.links.dims, in.bytes, in.link_bandwidth, in.latency, split_);
  }

 private:
  bool split_;
};
}  // namespace

void register_collective_algorithms_torus(CollectiveAlgorithmRegistry& r) {
  r.add(std::make_unique<Torus>(false));
  r.add(std::make_unique<Torus>(true));
}

}  // namespace roofsim
