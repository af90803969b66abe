#pragma once
// Simulated time is kept in whole picoseconds (the SystemC resolution is set to 1 ps before
// anything else); durations are rounded up so that no service is ever shorter than its work.
#include <cmath>
#include <cstdint>

namespace roofsim {

using Picoseconds = std::uint64_t;

inline Picoseconds ceil_ps(double seconds) {
  double ps = std::ceil(seconds * 1e12 - 1e-6);  // tolerate binary noise just above an integer
  return ps <= 0 ? 0 : static_cast<Picoseconds>(ps);
}

inline double to_seconds(Picoseconds ps) { return static_cast<double>(ps) * 1e-12; }

}  // namespace roofsim
