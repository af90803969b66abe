// An iteration with prompts it can admit runs only those prefills; decodes wait for an iteration
// without any (vLLM V0's scheduler, SGLang before mixed chunks).
#include <memory>

#include "serving/priority_policy.hpp"

namespace roofsim {

namespace {

class PrefillFirst : public PriorityPolicy {
 public:
  std::string name() const override { return "prefill_first"; }
  std::string summary() const override { return "prefills first"; }
  void plan(IterationPlanner& p) const override {
    p.plan_prefills();
    if (p.nothing_planned()) p.plan_decodes();
  }
};

}  // namespace

void register_priorities_prefill_first(PriorityRegistry& r) { r.add(std::make_unique<PrefillFirst>()); }

}  // namespace roofsim
