#pragma once
// What several collective algorithms share: refusals with the same wording, and the ring
// phases an all-reduce (reduce-scatter, then all-gather) or a gather makes.
#include <string>
#include <vector>

#include "components/collective_algorithm.hpp"

namespace roofsim::collective_detail {

inline bool on_switch(const Topology& t) { return t.through_switch(); }
// Whether a group (empty: every chip) reaches itself through one switch: a switch, or a group
// inside one node of several (switch algorithms run there exactly as on that node alone).
inline bool on_switch(const Topology& t, const std::vector<int>& group) { return t.switched(group); }
inline std::string switch_refusal(const Topology& t) {
  return t.networked() ? "needs a group inside one node (the group spans nodes: hierarchical)" : "needs a switch topology (switch:N)";
}

// Ring and torus algorithms need rings of links along dimensions.
inline std::string no_rings_refusal(const Topology& t) {
  return on_switch(t) ? "a switch has no ring or torus links" : "needs a ring or torus of links";
}

inline std::string alltoall_refusal(const Topology& t) {
  if (t.direct_pairs()) return "all-to-all on a full mesh is mesh_oneshot";
  if (t.networked()) return "all-to-all on several nodes is switch_oneshot inside a node, hierarchical across nodes";
  return on_switch(t) ? "all-to-all on a switch is switch_oneshot" : "all-to-all on a ring or torus is routed";
}

// Algorithms of a full mesh refuse other fabrics with one wording.
inline std::string no_mesh_refusal(const Topology& t) {
  return t.direct_pairs() ? "" : "needs a full mesh (mesh:N), where every pair of chips has links of its own";
}

// A group on a ring or torus that has no links of its own runs only a routed ring.
inline std::string routed_group_refusal(const Topology& t, const std::vector<int>& group) {
  return "a group of " + std::to_string(group.size()) + " chips that spans no whole leading dimensions of " + t.name() +
         " (sizes that do: " + t.group_sizes() + ") has no links of its own: it runs a ring routed between its members (${algo} ring)";
}

// Ring steps per chunk: an all-reduce reduce-scatters then all-gathers; a gather does one.
inline int ring_rounds(CollectiveKind k) { return k == CollectiveKind::allreduce ? 2 : 1; }

// One ring over `members` chips moving `bytes` in `members` chunks, `rounds` times round.
inline CollectiveStream ring_stream(int dim, int direction, std::uint64_t bytes, int members, int rounds) {
  return {{CollectivePhase::Pattern::ring, dim, direction, rounds * (members - 1),
           collective_share(bytes, static_cast<std::uint64_t>(members))}};
}

// A collective library kernel's per-call launch and handshake (collectives.launch_ns), before
// any transfer; nothing when the hardware file gives none.
inline CollectiveStream launch_phases(const HardwareSpec& hw) {
  if (hw.collectives.launch_s <= 0) return {};
  CollectivePhase launch;
  launch.pattern = CollectivePhase::Pattern::delay;
  launch.seconds = hw.collectives.launch_s;
  return {launch};
}

inline CollectiveStream send_stream(std::uint64_t bytes) { return {{CollectivePhase::Pattern::send, 0, +1, 1, bytes}}; }

}  // namespace roofsim::collective_detail
