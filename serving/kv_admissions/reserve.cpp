// Admit a request only when blocks for its whole prompt and output are free, and take them all:
// TensorRT-LLM's GUARANTEED_NO_EVICT capacity policy. A running request never needs another
// block, so nothing is ever preempted.
#include <memory>

#include "serving/kv_admission.hpp"

namespace roofsim {

namespace {

class Reserve : public KvAdmissionPolicy {
 public:
  std::string name() const override { return "reserve"; }
  std::string summary() const override { return "reserved at admission"; }
  std::int64_t tokens_at_admission(const AdmissionAsk& r) const override { return r.prompt + r.output_left + r.draft_extra; }
};

}  // namespace

void register_kv_admissions_reserve(KvAdmissionRegistry& r) { r.add(std::make_unique<Reserve>()); }

}  // namespace roofsim
