// Allocate blocks as tokens arrive (vLLM's paged KV cache): a request is admitted when its first
// chunk's blocks are free; when a running request later needs a block and none is free, the
// newest idle request is preempted (recomputed or swapped: KvCacheConfig::preemption).
#include <memory>

#include "serving/kv_admission.hpp"

namespace roofsim {

namespace {

class OnDemand : public KvAdmissionPolicy {
 public:
  std::string name() const override { return "on_demand"; }
  std::string summary() const override { return "allocated on demand, preempting"; }
  std::int64_t tokens_at_admission(const AdmissionAsk& r) const override { return r.cached + r.first_chunk; }
};

}  // namespace

void register_kv_admissions_on_demand(KvAdmissionRegistry& r) { r.add(std::make_unique<OnDemand>()); }

}  // namespace roofsim
