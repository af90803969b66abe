#pragma once
// What one simulation counted: kernel events and the bytes that crossed the HBM interface.
// (FLOPs are counted per op, in OpRun, since ops may overlap.)
#include <cstdint>

namespace roofsim {

struct SimStats {
  std::uint64_t events = 0;         // server completions dispatched by the SystemC kernel
  std::uint64_t bytes_read = 0;     // HBM -> chip
  std::uint64_t bytes_written = 0;  // chip -> HBM
};

}  // namespace roofsim
