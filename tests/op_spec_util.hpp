#pragma once
// Helpers for tests that look at the ops of one kernel call (OpSpec lists).
#include <string>
#include <vector>

#include "components/simulation.hpp"

namespace roofsim::test {

// The ops' names, in order.
inline std::vector<std::string> op_names(const std::vector<OpSpec>& ops) {
  std::vector<std::string> out;
  for (const OpSpec& op : ops) out.push_back(op.name);
  return out;
}

}  // namespace roofsim::test
