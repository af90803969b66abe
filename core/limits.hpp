#pragma once
// Largest values of the sizes a user gives (anything larger is a typo or beyond what the
// analytic and simulated models mean): shared by experiments, serving workloads and traces.
#include <cstdint>

namespace roofsim {

inline constexpr std::int64_t kMaxBatch = 1 << 20, kMaxTokens = 1 << 24, kMaxChips = 65536;

}  // namespace roofsim
