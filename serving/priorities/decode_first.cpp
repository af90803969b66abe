// Running decodes take the token budget first and prompts (or chunks) fill the rest of the same
// iteration: TensorRT-LLM's in-flight batching, Sarathi-Serve, vLLM V1 and SGLang's mixed chunks.
#include <memory>

#include "serving/priority_policy.hpp"

namespace roofsim {

namespace {

class DecodeFirst : public PriorityPolicy {
 public:
  std::string name() const override { return "decode_first"; }
  std::string summary() const override { return "decodes first"; }
  void plan(IterationPlanner& p) const override {
    p.plan_decodes();
    p.plan_prefills();
    p.drop_prefills_if_held();
  }
};

}  // namespace

void register_priorities_decode_first(PriorityRegistry& r) { r.add(std::make_unique<DecodeFirst>()); }

}  // namespace roofsim
