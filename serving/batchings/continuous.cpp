// Iteration-level continuous batching (Orca, TensorRT-LLM's in-flight batching, vLLM, SGLang):
// requests join and leave the batch at every iteration, within its batch and token limits.
#include <memory>

#include "serving/batching_policy.hpp"

namespace roofsim {

namespace {

class Continuous : public BatchingPolicy {
 public:
  std::string name() const override { return "continuous"; }
  std::string summary() const override { return "iteration-level batching, requests join and leave every iteration"; }
  void plan(BatchSteps& steps) const override {
    steps.admit_arrived_caches();
    steps.plan_by_priority();
  }
  bool iteration_level() const override { return true; }
};

}  // namespace

void register_batchings_continuous(BatchingRegistry& r) { r.add(std::make_unique<Continuous>()); }

}  // namespace roofsim
