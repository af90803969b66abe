#include "serving/kv_preemption.hpp"

namespace roofsim {

#define ROOFSIM_KV_PREEMPTION_FILE(file) void register_kv_preemptions_##file(KvPreemptionRegistry&);
#include "kv_preemptions.inc"
#undef ROOFSIM_KV_PREEMPTION_FILE

KvPreemptionRegistry& kv_preemptions() {
  static KvPreemptionRegistry registry = [] {
    KvPreemptionRegistry r;
#define ROOFSIM_KV_PREEMPTION_FILE(file) register_kv_preemptions_##file(r);
#include "kv_preemptions.inc"
#undef ROOFSIM_KV_PREEMPTION_FILE
    return r;
  }();
  return registry;
}

}  // namespace roofsim
