#include "serving/priority_policy.hpp"

#include "experiment/stack.hpp"

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

namespace {
// A stack file's [serving] priority takes this registry's names, a plug-in's included (experiment/stack.hpp).
[[maybe_unused]] const bool priorities_in_stack_files = [] {
  set_stack_serving_choices("priority", [] { return priorities().names(); });
  return true;
}();
}  // namespace

}  // namespace roofsim
