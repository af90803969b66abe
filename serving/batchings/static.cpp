// Static batching (TensorRT-LLM 0.9's gptSessionBenchmark): up to max_batch waiting requests
// prefill together and decode until the last of them finishes; then the next batch.
#include <memory>

#include "serving/batching_policy.hpp"

namespace roofsim {

namespace {

class Static : public BatchingPolicy {
 public:
  std::string name() const override { return "static"; }
  std::string summary() const override { return "a batch prefills together and decodes until its last request finishes"; }
  void plan(BatchSteps& steps) const override {
    if (steps.batch_running()) {
      steps.plan_every_decode();
      return;
    }
    while (steps.admit_whole_prompt()) {
    }
  }
  bool iteration_level() const override { return false; }
};

}  // namespace

void register_batchings_static(BatchingRegistry& r) { r.add(std::make_unique<Static>()); }

}  // namespace roofsim
