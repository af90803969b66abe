#include "components/matrix_tile.hpp"

#include <algorithm>

namespace roofsim {

namespace {
std::int64_t round_up(std::int64_t v, std::int64_t g) { return (v + g - 1) / g * g; }
}  // namespace

double matrix_tile_cycles(const MatrixSpec& spec, const TileShape& t, DType compute) {
  auto eff = spec.dtype_efficiency.find(compute);
  const double rate = spec.macs_per_clock * spec.dtype_rate.at(compute) *
                      (eff == spec.dtype_efficiency.end() ? 1.0 : eff->second);
  const double m = static_cast<double>(round_up(t.m, spec.granule_m));
  const double n = static_cast<double>(round_up(t.n, spec.granule_n));
  const double k = static_cast<double>(round_up(t.k, spec.granule_k));
  if (!spec.weight_stationary) return m * n * k / rate;
  // One pass holds a granule_k x granule_n weight tile and streams the m rows through it.
  const double passes = (n / static_cast<double>(spec.granule_n)) *
                        (k / static_cast<double>(spec.granule_k));
  const double stream_cycles = m * static_cast<double>(spec.granule_n * spec.granule_k) / rate;
  return passes * std::max(stream_cycles, spec.weight_load_cycles);
}

}  // namespace roofsim
