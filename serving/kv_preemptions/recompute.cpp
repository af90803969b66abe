// A preempted request's blocks are freed; when it is readmitted it prefills its prompt and what
// it has generated so far again (vLLM's default, PreemptionMode.RECOMPUTE).
#include <memory>

#include "serving/kv_preemption.hpp"

namespace roofsim {

namespace {

class Recompute : public KvPreemptionPolicy {
 public:
  std::string name() const override { return "recompute"; }
  std::string summary() const override { return "freed; the request prefills its prompt and output so far again"; }
  PreemptedKv preempted_kv() const override { return PreemptedKv::dropped; }
};

}  // namespace

void register_kv_preemptions_recompute(KvPreemptionRegistry& r) { r.add(std::make_unique<Recompute>()); }

}  // namespace roofsim
