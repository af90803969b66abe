#pragma once
// How the scheduler forms each iteration's batch: a policy by name (the `scheduler` setting).
// Each is one file in serving/batchings/ defining register_batchings_NAME(BatchingRegistry&);
// CMake finds the files (cmake/RoofsimRegistry.cmake). A policy plans an iteration through the
// scheduler's steps (serving/scheduler.cpp); within a continuous iteration the priority policy
// (serving/priorities/) orders decodes and prefills.
#include <cstdint>
#include <string>

#include "core/registry.hpp"

namespace roofsim {

// What a batching policy can ask of the scheduler while it plans one iteration.
class BatchSteps {
 public:
  virtual ~BatchSteps() = default;
  virtual bool batch_running() const = 0;  // requests of an earlier iteration are still running
  // Admits the request at the head of the queue with its whole (uncached) prompt prefilled in
  // this iteration, while the batch has room and the cache its blocks; false when it cannot.
  virtual bool admit_whole_prompt() = 0;
  virtual void plan_every_decode() = 0;  // every running request decodes, no token budget
  // Requests whose KV cache is already there (sent by a prefill instance) join at once.
  virtual void admit_arrived_caches() = 0;
  // The priority policy orders decodes and prefills within the iteration's token budget.
  virtual void plan_by_priority() = 0;
};

class BatchingPolicy {
 public:
  virtual ~BatchingPolicy() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // for --help and the docs
  virtual void plan(BatchSteps& steps) const = 0;
  // Whether requests join and leave at any iteration: what swapped-out requests, pipeline
  // micro-batches and disaggregated instances need.
  virtual bool iteration_level() const = 0;
};

using BatchingRegistry = Registry<BatchingPolicy>;

// Mutable: a unit library loaded at run time may add its own (components/plugins.hpp).
BatchingRegistry& batchings();

}  // namespace roofsim
