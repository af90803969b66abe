// A preempted request's cached tokens are copied to host memory over the chip's host link
// (hardware host.link_gb_per_s), one block of one layer's keys or values per copy as vLLM's
// swap_blocks issues them, and back when it is readmitted; the iteration that swaps waits for its
// copies (PreemptionMode.SWAP). Needs a host link and continuous batching.
#include <memory>

#include "serving/kv_preemption.hpp"

namespace roofsim {

namespace {

class Swap : public KvPreemptionPolicy {
 public:
  std::string name() const override { return "swap"; }
  std::string summary() const override { return "copied to host memory over the host link and back when readmitted"; }
  PreemptedKv preempted_kv() const override { return PreemptedKv::copied_to_host; }
};

}  // namespace

void register_kv_preemptions_swap(KvPreemptionRegistry& r) { r.add(std::make_unique<Swap>()); }

}  // namespace roofsim
