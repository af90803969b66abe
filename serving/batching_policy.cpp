#include "serving/batching_policy.hpp"

namespace roofsim {

#define ROOFSIM_BATCHING_FILE(file) void register_batchings_##file(BatchingRegistry&);
#include "batchings.inc"
#undef ROOFSIM_BATCHING_FILE

BatchingRegistry& batchings() {
  static BatchingRegistry registry = [] {
    BatchingRegistry r;
#define ROOFSIM_BATCHING_FILE(file) register_batchings_##file(r);
#include "batchings.inc"
#undef ROOFSIM_BATCHING_FILE
    return r;
  }();
  return registry;
}

}  // namespace roofsim
