#pragma once
// Collective algorithms as a registry: each algorithm says which collectives it can run on
// which fabrics, how it lowers one to link transfers (streams of phases), and its closed form.
// Each lives in components/collective_algorithms/NAME.cpp, which defines
// register_collective_algorithms_NAME(CollectiveAlgorithmRegistry&); CMake finds the files and
// generates the list that calls them, so adding an algorithm is one new file plus its test.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "components/fabric.hpp"
#include "core/dtype.hpp"
#include "core/registry.hpp"

namespace roofsim {

enum class CollectiveKind { allreduce, allgather, reducescatter, alltoall, sendrecv };
bool parse_collective_kind(const std::string& s, CollectiveKind& out);
std::string collective_kind_name(CollectiveKind k);

// An algorithm by name. The built-in ones have constants for code that names them.
struct CollectiveAlgo {
  std::string name = "ring";
  bool operator==(const CollectiveAlgo& o) const { return name == o.name; }
  bool operator!=(const CollectiveAlgo& o) const { return name != o.name; }
  static const CollectiveAlgo ring, bidirectional_ring, torus, torus_split, switch_oneshot, switch_reduce, routed;
};

// One phase of a stream. delay: the stream waits `seconds` (a kernel's launch, a barrier,
// posting sends) with no link busy. ring: every member sends `chunk` to its neighbour along `dim` (or
// its ring neighbour through a switch or a routed ring) `steps` times, forwarding what it
// received; all_pairs: every member sends `chunk` to each other member (shifted rounds; through
// the switch, or routed over the torus); switch_reduce: every member sends `chunk` up, the
// switch reduces and multicasts it back; send: group[0] sends `chunk` to group[1].
struct CollectivePhase {
  enum class Pattern { ring, all_pairs, switch_reduce, send, delay };
  Pattern pattern = Pattern::ring;
  int dim = 0;
  int direction = +1;
  int steps = 1;
  std::uint64_t chunk = 0;
  // How the kernel puts the phase's transfers on the wire (its protocol and channels;
  // Fabric::Wire): the default is the links alone.
  Wire wire{};
  double seconds = 0;  // delay
  // ring on a mesh or switch: a member sends to the member `stride` positions on in
  // `direction` (1: its neighbour). A stride coprime with the members makes one ring through
  // all of them; different strides use different links of a full mesh.
  int stride = 1;
  // ring: the group's positions form rings of `ring_size` members `ring_stride` positions
  // apart (0: one ring of the whole group). On several nodes, with the group listed node by
  // node, L members a node: size L stride 1 is a ring inside each node, size N stride L a ring
  // across the nodes through the members at the same position.
  int ring_size = 0;
  int ring_stride = 1;
  // Pipelining (a stream per chunk of the buffer): this phase starts only once the stream
  // `pipeline_depth` before it has finished its phase of the same index (0: no wait; 1: one
  // chunk in a phase at a time; 2: two, as double-buffered kernels keep).
  int pipeline_depth = 0;
};
// Phases one after another; a stream's next phase starts when every member finished this one.
using CollectiveStream = std::vector<CollectivePhase>;

// What an algorithm lowers: the collective, its group's size and, on a ring or torus, the
// dimensions a sub-torus group spans (its own links).
struct CollectiveLowering {
  const HardwareSpec& hw;
  const Topology& topology;
  CollectiveKind kind;
  std::uint64_t bytes;
  int members;
  int spanned_dims;  // ring/torus sub-torus groups; 0 otherwise
  DType dtype;
  std::vector<int> group;  // the members' chips (empty: every chip)
};

// Bytes/s one direction of a pair of chips of a full mesh gets: its share of the chip's links.
double mesh_pair_bandwidth(const Topology& fabric, const HardwareSpec& hw, double link_bandwidth);

// What a closed form needs: the collective over p members and the links' numbers.
struct CollectiveBoundInputs {
  const Topology& fabric;     // the whole fabric
  const Topology& links;      // the links the group runs on (its sub-torus, or the switch)
  const std::vector<int>& group;  // empty: every chip
  CollectiveKind kind;
  int members;
  double bytes;
  double link_bandwidth;      // one direction of one link, efficiency applied
  double port_bandwidth;      // a switch port: all of a chip's links
  double latency;
  double switch_reduction_rate;  // bytes/s per port the switch reduces (0: port speed)
  const HardwareSpec& hw;        // the kernels' parameters (hw.collectives)
  DType dtype;
};

// Chunks round up: every byte of the buffer moves, at worst a few bytes more.
inline std::uint64_t collective_share(std::uint64_t bytes, std::uint64_t parts) { return (bytes + parts - 1) / parts; }

class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;
  virtual std::string name() const = 0;
  // One line for --help and the docs.
  virtual std::string summary() const = 0;
  // Why it cannot run this collective over this group of this fabric ("" when it can; the
  // group is a sub-torus or any chips on a switch, or a routed group on a ring or torus).
  virtual std::string refusal(const Topology& t, CollectiveKind k, const std::vector<int>& group) const = 0;
  // Why the chips' hardware cannot run it ("" when it can), checked before the kernel starts.
  virtual std::string hardware_refusal(const HardwareSpec&) const { return ""; }
  virtual std::vector<CollectiveStream> lower(const CollectiveLowering& l) const = 0;
  virtual double bound_s(const CollectiveBoundInputs& in) const = 0;
};

using CollectiveAlgorithmRegistry = Registry<CollectiveAlgorithm>;

// Every registered algorithm.
const CollectiveAlgorithmRegistry& collective_algorithms();
// "ring, bidirectional_ring, ..." for messages and help.
std::string collective_algorithm_list();
bool parse_collective_algo(const std::string& s, CollectiveAlgo& out);
std::string collective_algo_name(const CollectiveAlgo& a);

// Whether a group (empty = every chip) of a ring or torus is a sub-torus with links of its own:
// consecutive chips, aligned, spanning whole leading dimensions (Topology::spanned_dims).
bool is_subtorus(const Topology& t, const std::vector<int>& group);

}  // namespace roofsim
