#include "serving/instance_routing.hpp"

namespace roofsim {

#define ROOFSIM_INSTANCE_ROUTING_FILE(file) void register_instance_routings_##file(InstanceRoutingRegistry&);
#include "instance_routings.inc"
#undef ROOFSIM_INSTANCE_ROUTING_FILE

InstanceRoutingRegistry& instance_routings() {
  static InstanceRoutingRegistry registry = [] {
    InstanceRoutingRegistry r;
#define ROOFSIM_INSTANCE_ROUTING_FILE(file) register_instance_routings_##file(r);
#include "instance_routings.inc"
#undef ROOFSIM_INSTANCE_ROUTING_FILE
    return r;
  }();
  return registry;
}

}  // namespace roofsim
