#pragma once
// Helpers of the architecture tests (test_architectures.cpp, test_architectures_bounds.cpp).
#include <string>

#include "workloads/transformer.hpp"

namespace roofsim::test_architectures {

// A model fixture of tests/models by name.
inline std::string fixture(const std::string& name) { return std::string(ROOFSIM_TEST_MODELS_DIR) + "/" + name + ".toml"; }

// The forward graph of `pass` on `tp` chips, fused attention.
inline OpGraph graph(const ModelConfig& m, ForwardPass pass, std::int64_t tp = 1, Precision p = {}) {
  pass.tp = tp;
  return build_forward(m, pass, p, AttentionImpl::fused);
}

}  // namespace roofsim::test_architectures
