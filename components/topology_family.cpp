#include "components/topology_family.hpp"

#include <algorithm>

#include "components/fabric.hpp"

namespace roofsim {

#define ROOFSIM_TOPOLOGY_FAMILY_FILE(file) void register_topology_families_##file(TopologyFamilyRegistry&);
#include "topology_families.inc"
#undef ROOFSIM_TOPOLOGY_FAMILY_FILE

const TopologyFamilyRegistry& topology_families() {
  static const TopologyFamilyRegistry registry = [] {
    TopologyFamilyRegistry r;
#define ROOFSIM_TOPOLOGY_FAMILY_FILE(file) register_topology_families_##file(r);
#include "topology_families.inc"
#undef ROOFSIM_TOPOLOGY_FAMILY_FILE
    return r;
  }();
  return registry;
}

std::string topology_syntax_list() {
  std::vector<const TopologyFamily*> all = topology_families().all();
  // One node's families first, as before there were several nodes.
  std::stable_partition(all.begin(), all.end(), [](const TopologyFamily* f) { return !f->networked(); });
  std::string list;
  for (std::size_t i = 0; i < all.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + all[i]->syntax();
  }
  return list;
}

}  // namespace roofsim
