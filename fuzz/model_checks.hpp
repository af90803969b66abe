#pragma once
// What fuzz_model and fuzz_hf_config ask of a model a loader accepted: check_model() accepts it
// too (the loaders refuse at least what it refuses, naming the key), and its sizes compute.
#include <cstdio>
#include <cstdlib>

#include "core/error.hpp"
#include "workloads/model.hpp"

namespace roofsim::fuzz {

inline void check_loaded_model(const ModelConfig& m) {
  try {
    check_model(m, "model");
  } catch (const InputError& e) {
    std::fprintf(stderr, "the loader accepted a model that check_model refuses: %s\n", e.what());
    std::abort();
  }
  volatile double sink = m.total_params() + m.active_params_per_token() + m.kv_bytes_per_token(DType::bf16);
  (void)sink;
}

}  // namespace roofsim::fuzz
