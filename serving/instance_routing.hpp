#pragma once
// How a request picks one of a pool's instances in disaggregated serving (prefill instances, then
// decode instances): a policy by name. Each is one file in serving/instance_routings/ defining
// register_instance_routings_NAME(InstanceRoutingRegistry&); CMake finds the files and
// instance_routings() calls each (cmake/RoofsimRegistry.cmake), so adding a policy is that file.
#include <cstddef>
#include <string>
#include <vector>

#include "core/registry.hpp"

namespace roofsim {

class InstanceRouting {
 public:
  virtual ~InstanceRouting() = default;
  virtual std::string name() const = 0;
  // What it does, for --help and the docs ("the instance holding the fewest requests").
  virtual std::string summary() const = 0;
  // The instance a request goes to: `loads[i]` is what instance i holds and has yet to fetch
  // (for decode instances, the KV caches on their way too); `turn` is the pool's own counter,
  // kept between calls by the engine (0 at the start).
  virtual std::size_t pick(const std::vector<std::size_t>& loads, std::size_t& turn) const = 0;
};

using InstanceRoutingRegistry = Registry<InstanceRouting>;

// Mutable: a unit library loaded at run time may add its own (components/plugins.hpp).
InstanceRoutingRegistry& instance_routings();

}  // namespace roofsim
