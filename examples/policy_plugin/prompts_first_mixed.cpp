// An out-of-tree serving policy, loaded with `roofsim --plugin libroofsim_prompts_first_mixed.so`:
// a continuous iteration plans the waiting prompts first and lets the running decodes fill what
// the token budget leaves, in the same iteration. Between the shipped policies: decode_first
// (decodes take the budget, prompts fill the rest) and prefill_first (prompts only, decodes wait
// for an iteration without any). Picked with
//   roofsim --plugin LIB serve --priority prompts_first_mixed ...
// Built by examples/CMakeLists.txt against roofsim's headers only: the running roofsim provides
// the rest (components/plugins.hpp).
#include <memory>

#include "serving/priority_policy.hpp"

namespace {

class PromptsFirstMixed : public roofsim::PriorityPolicy {
 public:
  std::string name() const override { return "prompts_first_mixed"; }
  std::string summary() const override { return "prompts first, decodes fill the rest (example plugin)"; }
  void plan(roofsim::IterationPlanner& p) const override {
    p.plan_prefills();
    p.plan_decodes();
    p.drop_prefills_if_held();
  }
};

}  // namespace

extern "C" void roofsim_register_plugin() { roofsim::priorities().add(std::make_unique<PromptsFirstMixed>()); }
