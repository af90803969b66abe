#include "components/topology_family.hpp"

#include <stdexcept>

#include "components/fabric.hpp"

namespace roofsim {

#define ROOFSIM_TOPOLOGY_FAMILY_FILE(file) void register_topology_families_##file(TopologyFamilyRegistry&);
#include "topology_families.inc"
#undef ROOFSIM_TOPOLOGY_FAMILY_FILE

void TopologyFamilyRegistry::add(std::unique_ptr<TopologyFamily> f) {
  if (find(f->name())) throw std::logic_error("topology family '" + f->name() + "' registered twice");
  families_.push_back(std::move(f));
}

const TopologyFamily* TopologyFamilyRegistry::find(const std::string& name) const {
  for (const auto& f : families_) {
    if (f->name() == name) return f.get();
  }
  return nullptr;
}

std::vector<const TopologyFamily*> TopologyFamilyRegistry::all() const {
  std::vector<const TopologyFamily*> out;
  for (const auto& f : families_) out.push_back(f.get());
  return out;
}

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
  const std::vector<const TopologyFamily*> all = topology_families().all();
  std::string list;
  for (std::size_t i = 0; i < all.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + all[i]->syntax();
  }
  return list;
}

}  // namespace roofsim
