#pragma once
// Simulated time is kept in whole picoseconds (the SystemC resolution is set to 1 ps before
// anything else); durations are rounded up so that no service is ever shorter than its work.
#include <cmath>
#include <cstdint>

namespace roofsim {

using Picoseconds = std::uint64_t;

// The longest simulated time roofsim accepts: 2^62 ps (about 53 days). Any duration and any
// point in time stays below it, so sums of two never wrap around 2^64.
inline constexpr Picoseconds kMaxSimulatedPs = Picoseconds{1} << 62;

// Throws InputError: a duration beyond kMaxSimulatedPs (or not a number) comes from a rate in
// the hardware that is too small or a size that is too large, never from a sane run.
[[noreturn]] void throw_time_out_of_range(double seconds);

inline Picoseconds ceil_ps(double seconds) {
  double ps = std::ceil(seconds * 1e12 - 1e-6);  // tolerate binary noise just above an integer
  if (!(ps < static_cast<double>(kMaxSimulatedPs))) throw_time_out_of_range(seconds);  // also NaN
  return ps <= 0 ? 0 : static_cast<Picoseconds>(ps);
}

inline double to_seconds(Picoseconds ps) { return static_cast<double>(ps) * 1e-12; }

}  // namespace roofsim
