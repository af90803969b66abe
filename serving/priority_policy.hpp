#pragma once
// What an iteration of the continuous scheduler plans first within its token budget: a policy by
// name. Each is one file in serving/priorities/ defining register_priorities_NAME(PriorityRegistry&);
// CMake finds the files (cmake/RoofsimRegistry.cmake). The static scheduler has no priority.
#include <string>

#include "core/registry.hpp"

namespace roofsim {

// The scheduler's planning steps for one iteration, which a policy calls in its order.
class IterationPlanner {
 public:
  virtual ~IterationPlanner() = default;
  virtual void plan_decodes() = 0;   // running requests take a token each (and their drafts) of the budget
  virtual void plan_prefills() = 0;  // waiting prompts, or chunks of them, take what the budget has left
  virtual bool nothing_planned() const = 0;
  // TensorRT-LLM's batch waiting and attention-DP balancing: when they hold this iteration's new
  // prompts back, the prompts planned are taken out again (they stay admitted).
  virtual void drop_prefills_if_held() = 0;
};

class PriorityPolicy {
 public:
  virtual ~PriorityPolicy() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // for --help, the docs and the run's description
  virtual void plan(IterationPlanner& planner) const = 0;
};

using PriorityRegistry = Registry<PriorityPolicy>;

// Mutable: a unit library loaded at run time may add its own (components/plugins.hpp,
// examples/policy_plugin/).
PriorityRegistry& priorities();

}  // namespace roofsim
