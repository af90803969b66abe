// Collectives over a group that spans nodes (nodes:NxL), as NCCL runs them hierarchically:
// inside each node over its NVLink switch, between nodes over the NICs, every local rank's
// ring across the nodes at once (all rails busy).
//
//   all-reduce:      reduce-scatter inside each node -> all-reduce of each chip's shard across
//                    the nodes (a ring of the chips with the same position on every node) ->
//                    all-gather inside each node;
//   all-gather:      across the nodes first (each chip's piece), then inside each node;
//   reduce-scatter:  inside each node first, then across the nodes;
//   all-to-all:      every chip sends each other its share, point-to-point: NVLink inside a
//                    node, the NICs between nodes (PXN on a rail network: the fabric's path);
//   send/receive:    one transfer over the network.
//
// Large buffers are cut into chunks that flow through the phases as a pipeline (chunk i's
// phase j starts once chunk i - 2 has left phase j: two chunks per phase), so the NVLink phases of one chunk overlap
// the network phase of another; contention between them emerges from the links. The protocol
// (LL, LL128, Simple) is the one whose closed form costs least, as NCCL's tuner picks.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "components/collective_algorithms/nccl_model.hpp"

namespace roofsim {
namespace {
using namespace collective_detail;

// Pipeline chunks: one per 4 MiB of the buffer, at most 8 (assumed: the order of NCCL's
// Simple chunk per channel times the channels a network ring keeps in flight).
constexpr double kPipelineChunkBytes = 4.0 * 1024 * 1024;
constexpr int kMaxPipelineChunks = 8;
// Chunks in one phase at a time (assumed: double buffering, so that one chunk's step latency
// hides behind another's transfer).
constexpr int kPipelineDepth = 2;

int pipeline_chunks(double bytes) {
  return static_cast<int>(std::clamp(std::floor(bytes / kPipelineChunkBytes), 1.0, static_cast<double>(kMaxPipelineChunks)));
}

// How a group sits on the nodes: `per_node` members on each of `nodes` nodes, listed node by
// node. Empty when the group is irregular (different counts per node, or out of node order).
struct Shape {
  int per_node = 0, nodes = 0;
};
std::optional<Shape> shape_of(const Topology& t, const std::vector<int>& group) {
  const int L = t.dims[0];
  if (group.empty()) return Shape{L, t.chips() / L};
  Shape s;
  int last_node = -1, count = 0;
  for (int c : group) {
    const int n = c / L;
    if (n < last_node) return std::nullopt;
    if (n != last_node) {
      if (last_node >= 0 && s.per_node != 0 && count != s.per_node) return std::nullopt;
      if (last_node >= 0 && s.per_node == 0) s.per_node = count;
      ++s.nodes;
      last_node = n;
      count = 0;
    }
    ++count;
  }
  if (s.per_node == 0) s.per_node = count;
  if (count != s.per_node) return std::nullopt;
  return s;
}

double share(double bytes, double parts) { return std::ceil(bytes / parts); }

// The network port's rate for a wire (NIC bandwidth x efficiency x the protocol's payload
// share, capped by the channels).
double nic_rate(const HardwareSpec& hw, const Wire& w) {
  const double r = hw.network.port_bandwidth() * w.efficiency;
  return w.rate_cap > 0 ? std::min(r, w.rate_cap) : r;
}

// Phases of one pipeline chunk of `b` bytes, ring collectives.
CollectiveStream chunk_phases(CollectiveKind k, const Shape& s, double b, const Wire& w) {
  using Pattern = CollectivePhase::Pattern;
  const int L = s.per_node, N = s.nodes;
  auto intra = [&](double chunk) {
    CollectivePhase ph{Pattern::ring, 0, +1, L - 1, static_cast<std::uint64_t>(chunk), w, 0};
    ph.ring_size = L;
    ph.ring_stride = 1;
    return ph;
  };
  auto inter = [&](int steps, double chunk) {
    CollectivePhase ph{Pattern::ring, 0, +1, steps, static_cast<std::uint64_t>(chunk), w, 0};
    ph.ring_size = N;
    ph.ring_stride = L;
    return ph;
  };
  CollectiveStream out;
  const double piece = share(b, L);  // a node-local shard
  switch (k) {
    case CollectiveKind::allreduce:
      if (L > 1) out.push_back(intra(piece));
      out.push_back(inter(2 * (N - 1), share(piece, N)));
      if (L > 1) out.push_back(intra(piece));
      break;
    case CollectiveKind::allgather:
      out.push_back(inter(N - 1, share(piece, N)));
      if (L > 1) out.push_back(intra(piece));
      break;
    case CollectiveKind::reducescatter:
      if (L > 1) out.push_back(intra(piece));
      out.push_back(inter(N - 1, share(piece, N)));
      break;
    default: break;
  }
  return out;
}

// The closed form of a ring collective run hierarchically with protocol `pr`: it cannot end
// before the launch plus the busiest NVLink port's or NIC's (or, on a fat tree, a node's
// spine uplink's) bytes at their rates and the latency after the last of them, nor before one
// chunk has gone through every step of every phase.
double ring_bound_s(const HardwareSpec& hw, const Topology& t, CollectiveKind k, const Shape& s, double bytes, nccl::Proto pr) {
  const CollectiveKernelSpec& c = hw.collectives;
  const int L = s.per_node, N = s.nodes;
  const double b = share(bytes, pipeline_chunks(bytes));
  const Wire w = nccl::wire(c, pr, b);
  const double nv = nccl::port_rate(hw, w), nic = nic_rate(hw, w);
  const double nvl_lat = 2 * hw.links.latency_s + w.extra_latency_s, net_lat = hw.network.latency_s + w.extra_latency_s;
  const int rounds = k == CollectiveKind::allreduce ? 2 : 1;
  const double piece = share(bytes, L), chunk_piece = share(b, L);
  const int inter_steps = rounds * (N - 1);
  // Per chip: NVLink out, NIC out, over the whole buffer.
  const double nv_bytes = rounds * (L - 1) * piece;
  const double nic_bytes = inter_steps * share(piece, N);
  double busy = std::max(nv_bytes / nv + (L > 1 ? nvl_lat : 0), nic_bytes / nic + net_lat);
  if (hw.network.shape == "fat_tree") {
    const double uplink = static_cast<double>(t.dims[0]) * hw.network.port_bandwidth() / hw.network.oversubscription;
    busy = std::max(busy, L * nic_bytes / uplink + net_lat);
  }
  const double chain = rounds * (L - 1) * (nvl_lat + chunk_piece / nv) + inter_steps * (net_lat + share(chunk_piece, N) / nic);
  return c.launch_s + std::max(busy, chain);
}

nccl::Proto best_proto(const HardwareSpec& hw, const Topology& t, CollectiveKind k, const Shape& s, double bytes) {
  nccl::Proto best = nccl::Proto::simple;
  double best_s = std::numeric_limits<double>::infinity();
  for (nccl::Proto pr : {nccl::Proto::ll, nccl::Proto::ll128, nccl::Proto::simple}) {
    const double v = ring_bound_s(hw, t, k, s, bytes, pr);
    if (v < best_s) {  // ties go to the lower-latency protocol
      best_s = v;
      best = pr;
    }
  }
  return best;
}

// Point-to-point: the protocol by the per-peer share, as NCCL's p2p does.
Wire p2p_wire(const CollectiveKernelSpec& c, double per_peer) {
  const bool ll = per_peer <= c.p2p_ll_max_bytes;
  Wire w;
  w.efficiency = c.p2p_efficiency * (ll ? c.ll_efficiency : c.simple_efficiency);
  w.extra_latency_s = ll ? c.ll_step_s : c.simple_step_s;
  return w;
}

class Hierarchical : public CollectiveAlgorithm {
 public:
  std::string name() const override { return "hierarchical"; }
  std::string summary() const override {
    return "groups spanning nodes (nodes:NxL), as NCCL: inside each node over NVLink, across nodes over the NICs "
           "(all-reduce = reduce-scatter, all-reduce across nodes, all-gather), pipelined in chunks";
  }
  std::string refusal(const Topology& t, CollectiveKind k, const std::vector<int>& group) const override {
    if (!t.networked()) return "needs several nodes joined by a network (nodes:NxL)";
    if (t.switched(group)) return "the group is inside one node: it runs on that node's switch (nccl)";
    if (k == CollectiveKind::alltoall || k == CollectiveKind::sendrecv) return "";
    if (!shape_of(t, group)) {
      return "a group of " + std::to_string(group.size()) +
             " chips with different numbers of chips on the nodes it spans has no hierarchical ring (${algo} ring runs one ring through them)";
    }
    return "";
  }
  std::vector<CollectiveStream> lower(const CollectiveLowering& l) const override {
    using Pattern = CollectivePhase::Pattern;
    const CollectiveKernelSpec& c = l.hw.collectives;
    const double n = static_cast<double>(l.bytes);
    if (l.kind == CollectiveKind::sendrecv) return {send_stream(l.bytes)};
    if (l.kind == CollectiveKind::alltoall) {
      const std::uint64_t each = collective_share(l.bytes, static_cast<std::uint64_t>(l.members));
      const CollectivePhase post{Pattern::delay, 0, 0, 1, 0, {}, c.launch_s + (l.members - 1) * c.p2p_peer_s};
      return {{post, {Pattern::all_pairs, -1, 0, 1, each, p2p_wire(c, static_cast<double>(each)), 0}}};
    }
    const Shape s = *shape_of(l.topology, l.group);
    const nccl::Proto pr = best_proto(l.hw, l.topology, l.kind, s, n);
    const int chunks = pipeline_chunks(n);
    const double b = share(n, chunks);
    const Wire w = nccl::wire(c, pr, b);
    std::vector<CollectiveStream> out;
    for (int i = 0; i < chunks; ++i) {
      // The launch delays the first chunks; a chunk enters a phase when the one two before it
      // has left it.
      CollectiveStream st{{Pattern::delay, 0, 0, 1, 0, {}, i == 0 ? c.launch_s : 0.0}};
      for (const CollectivePhase& ph : chunk_phases(l.kind, s, b, w)) st.push_back(ph);
      for (CollectivePhase& ph : st) ph.pipeline_depth = kPipelineDepth;
      st.front().pipeline_depth = 1;  // no chunk moves before the launch
      out.push_back(std::move(st));
    }
    return out;
  }
  double bound_s(const CollectiveBoundInputs& in) const override {
    const HardwareSpec& hw = in.hw;
    const Topology& t = in.fabric;
    if (in.kind == CollectiveKind::sendrecv) {
      const int from = in.group.empty() ? 0 : in.group[0];
      const int to = in.group.empty() ? 1 : in.group[in.group.size() > 1 ? 1 : 0];
      return t.family->send_bound_s(t, hw, from, to, in.bytes);
    }
    if (in.kind == CollectiveKind::alltoall) return alltoall_bound_s(in);
    const Shape s = *shape_of(t, in.group);
    return ring_bound_s(hw, t, in.kind, s, in.bytes, best_proto(hw, t, in.kind, s, in.bytes));
  }

 private:
  // The launch and the posting of every peer, then the busiest port (NVLink or NIC) with the
  // shares it must carry, and a latency after it.
  static double alltoall_bound_s(const CollectiveBoundInputs& in) {
    const HardwareSpec& hw = in.hw;
    const CollectiveKernelSpec& c = hw.collectives;
    std::vector<int> group = in.group;
    if (group.empty()) {
      for (int i = 0; i < in.fabric.chips(); ++i) group.push_back(i);
    }
    const int p = static_cast<int>(group.size());
    const int L = in.fabric.dims[0];
    const double each = share(in.bytes, p);
    const Wire w = p2p_wire(c, each);
    Wire port_wire = w;
    const double nv = nccl::port_rate(hw, port_wire), nic = nic_rate(hw, w);
    int most_local = 0, most_remote = 0;
    for (int a : group) {
      int local = 0;
      for (int b : group) local += b != a && b / L == a / L;
      most_local = std::max(most_local, local);
      most_remote = std::max(most_remote, p - 1 - local);
    }
    const double nvl_lat = 2 * hw.links.latency_s + w.extra_latency_s, net_lat = hw.network.latency_s + w.extra_latency_s;
    const double busy = std::max(most_local * each / nv + nvl_lat, most_remote * each / nic + net_lat);
    return c.launch_s + (p - 1) * c.p2p_peer_s + busy;
  }
};
}  // namespace

void register_collective_algorithms_hierarchical(CollectiveAlgorithmRegistry& r) { r.add(std::make_unique<Hierarchical>()); }

}  // namespace roofsim
