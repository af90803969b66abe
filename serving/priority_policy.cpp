#include "serving/priority_policy.hpp"

namespace roofsim {

#define ROOFSIM_PRIORITY_FILE(file) void register_priorities_##file(PriorityRegistry&);
#include "priorities.inc"
#undef ROOFSIM_PRIORITY_FILE

PriorityRegistry& priorities() {
  static PriorityRegistry registry = [] {
    PriorityRegistry r;
#define ROOFSIM_PRIORITY_FILE(file) register_priorities_##file(r);
#include "priorities.inc"
#undef ROOFSIM_PRIORITY_FILE
    return r;
  }();
  return registry;
}

}  // namespace roofsim
