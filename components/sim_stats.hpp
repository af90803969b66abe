#pragma once
// What one simulation counted: events dispatched and the work the hardware did. Invariant 5 of
// the design compares these counts with the operator graph's.
#include <cstdint>

namespace roofsim {

struct SimStats {
  std::uint64_t events = 0;         // server completions dispatched by the SystemC kernel
  std::uint64_t bytes_read = 0;     // HBM -> chip
  std::uint64_t bytes_written = 0;  // chip -> HBM
  double matrix_flops = 0;          // useful FLOPs (padding excluded)
  double matrix_padded_flops = 0;   // FLOPs the arrays spent, padding included
  double vector_flops = 0;
};

}  // namespace roofsim
