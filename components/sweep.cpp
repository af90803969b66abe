#include "components/sweep.hpp"

#include <cmath>

namespace roofsim {

std::vector<OpSpec> roofline_sweep_ops(const HardwareSpec& hw, DType dtype, int points) {
  const std::int64_t n = 16384;
  std::vector<OpSpec> ops;
  std::int64_t last = 0;
  for (int i = 0; i < points; ++i) {
    std::int64_t m = std::llround(std::pow(2.0, 15.0 * i / (points - 1)));
    // Shapes that fill the arrays: M a multiple of the granule once it exceeds it.
    if (m > hw.matrix.granule_m) m = m / hw.matrix.granule_m * hw.matrix.granule_m;
    if (m <= last) continue;
    last = m;
    OpSpec op;
    op.gemm = GemmShape{1, m, n, n, dtype, dtype, dtype};
    op.name = "gemm " + std::to_string(m) + "," + std::to_string(n) + "," + std::to_string(n);
    ops.push_back(op);
  }
  return ops;
}

}  // namespace roofsim
