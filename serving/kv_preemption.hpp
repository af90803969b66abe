#pragma once
// What becomes of a preempted request's KV cache: a policy by name. Each is one file in
// serving/kv_preemptions/ defining register_kv_preemptions_NAME(KvPreemptionRegistry&); CMake
// finds the files (cmake/RoofsimRegistry.cmake). The scheduler preempts the newest idle request
// when a running one needs a block and none is free (serving/scheduler.cpp); the policy says
// whether the blocks it held are lost or kept elsewhere to come back.
#include <string>

#include "core/registry.hpp"

namespace roofsim {

// Where a preempted request's cached tokens go.
enum class PreemptedKv {
  dropped,         // freed: it later prefills its prompt and what it generated again
  copied_to_host,  // copied to host memory over the chip's host link, and back when readmitted
};

class KvPreemptionPolicy {
 public:
  virtual ~KvPreemptionPolicy() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // for --help, the docs and the run's description
  virtual PreemptedKv preempted_kv() const = 0;
};

using KvPreemptionRegistry = Registry<KvPreemptionPolicy>;

// Mutable: a unit library loaded at run time may add its own (components/plugins.hpp).
KvPreemptionRegistry& kv_preemptions();

}  // namespace roofsim
