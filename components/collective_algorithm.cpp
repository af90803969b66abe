#include "components/collective_algorithm.hpp"

#include "core/error.hpp"

namespace roofsim {

// Each file of components/collective_algorithms/ defines a registration function; CMake
// writes their names into collective_algorithms.inc (build folder).
#define ROOFSIM_COLLECTIVE_ALGORITHM_FILE(file) void register_collective_algorithms_##file(CollectiveAlgorithmRegistry&);
#include "collective_algorithms.inc"
#undef ROOFSIM_COLLECTIVE_ALGORITHM_FILE

namespace {
const char* kKinds[] = {"allreduce", "allgather", "reducescatter", "alltoall", "sendrecv"};
}  // namespace

const CollectiveAlgo CollectiveAlgo::ring{"ring"};
const CollectiveAlgo CollectiveAlgo::bidirectional_ring{"bidirectional_ring"};
const CollectiveAlgo CollectiveAlgo::torus{"torus"};
const CollectiveAlgo CollectiveAlgo::torus_split{"torus_split"};
const CollectiveAlgo CollectiveAlgo::switch_oneshot{"switch_oneshot"};
const CollectiveAlgo CollectiveAlgo::switch_reduce{"switch_reduce"};
const CollectiveAlgo CollectiveAlgo::routed{"routed"};

double mesh_pair_bandwidth(const Topology& fabric, const HardwareSpec& hw, double link_bandwidth) {
  return link_bandwidth * static_cast<double>(mesh_links_per_peer(fabric.chips(), hw.links.count));
}

bool parse_collective_kind(const std::string& s, CollectiveKind& out) {
  for (std::size_t i = 0; i < std::size(kKinds); ++i) {
    if (s == kKinds[i]) {
      out = static_cast<CollectiveKind>(i);
      return true;
    }
  }
  return false;
}

std::string collective_kind_name(CollectiveKind k) { return kKinds[static_cast<int>(k)]; }

const CollectiveAlgorithmRegistry& collective_algorithms() {
  static const CollectiveAlgorithmRegistry registry = [] {
    CollectiveAlgorithmRegistry r;
#define ROOFSIM_COLLECTIVE_ALGORITHM_FILE(file) register_collective_algorithms_##file(r);
#include "collective_algorithms.inc"
#undef ROOFSIM_COLLECTIVE_ALGORITHM_FILE
    return r;
  }();
  return registry;
}

std::string collective_algorithm_list() { return collective_algorithms().list(); }

bool parse_collective_algo(const std::string& s, CollectiveAlgo& out) {
  if (!collective_algorithms().find(s)) return false;
  out.name = s;
  return true;
}

std::string collective_algo_name(const CollectiveAlgo& a) { return a.name; }

bool is_subtorus(const Topology& t, const std::vector<int>& group) {
  if (group.empty()) return true;
  const int p = static_cast<int>(group.size());
  if (t.spanned_dims(p) < 0 || group.front() % p != 0) return false;
  for (int i = 0; i < p; ++i) {
    if (group[static_cast<std::size_t>(i)] != group.front() + i) return false;
  }
  return true;
}

}  // namespace roofsim
