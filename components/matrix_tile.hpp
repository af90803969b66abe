#pragma once
// How long a matrix array is busy with one tile: plain arithmetic on the array's structure.
// A TPU MXU and a GPU SM's tensor cores are two configurations of it: both do macs_per_clock
// multiply-adds per cycle on operands padded to their granule; a weight-stationary array also
// loads each granule_k x granule_n weight tile, which hides behind a pass only when enough rows
// stream through it.
#include <cstdint>

#include "core/hardware.hpp"

namespace roofsim {

struct TileShape {
  std::int64_t m = 0, n = 0, k = 0;
};

double matrix_tile_cycles(const MatrixSpec& spec, const TileShape& t, DType compute);

}  // namespace roofsim
