#pragma once
// How the scheduler admits a waiting request into the paged KV cache: a policy by name. Each is
// one file in serving/kv_admissions/ defining register_kv_admissions_NAME(KvAdmissionRegistry&);
// CMake finds the files (cmake/RoofsimRegistry.cmake). Blocks a running request needs beyond
// what it was admitted with are taken as its tokens arrive; when none are free the newest idle
// request is preempted (serving/scheduler.cpp), so a policy that reserves everything up front
// never preempts.
#include <cstdint>
#include <string>

#include "core/registry.hpp"

namespace roofsim {

// The request at the head of the queue, in tokens.
struct AdmissionAsk {
  std::int64_t prompt = 0;        // its prompt (and, after a recompute preemption, what it had generated)
  std::int64_t output_left = 0;   // tokens it has still to generate
  std::int64_t draft_extra = 0;   // keys a verification writes beyond the last one kept (speculative decoding)
  std::int64_t cached = 0;        // tokens whose KV it already holds (a swapped or prefix-cached request)
  std::int64_t first_chunk = 0;   // the tokens its first iteration would feed
};

class KvAdmissionPolicy {
 public:
  virtual ~KvAdmissionPolicy() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // for --help, the docs and the run's description
  // The tokens whose blocks must be free (and are taken) for the request to be admitted.
  virtual std::int64_t tokens_at_admission(const AdmissionAsk& r) const = 0;
};

using KvAdmissionRegistry = Registry<KvAdmissionPolicy>;

// Mutable: a unit library loaded at run time may add its own (components/plugins.hpp).
KvAdmissionRegistry& kv_admissions();

}  // namespace roofsim
