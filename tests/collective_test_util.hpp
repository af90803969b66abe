#pragma once
// Helpers of the collective tests (test_collectives.cpp, test_collectives_nccl_mesh.cpp).
#include <vector>

#include "experiment/collective.hpp"

namespace roofsim::test_collectives {

// The hardware preset with link efficiency 1 (latency stays: the closed form has it).
inline HardwareSpec ideal_links(const char* preset) {
  HardwareSpec hw = load_hardware(preset);
  hw.links.efficiency = 1.0;
  return hw;
}

// Chips first, first + 1, ..., first + count - 1.
inline std::vector<int> chips_from(int first, int count) {
  std::vector<int> g;
  for (int c = first; c < first + count; ++c) g.push_back(c);
  return g;
}

}  // namespace roofsim::test_collectives
