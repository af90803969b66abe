#pragma once
// Arithmetic on simulated time intervals.
#include <utility>
#include <vector>

#include "components/time_units.hpp"

namespace roofsim {

// Seconds within the [start, end) intervals `comm` that no interval of `compute` covers: the
// communication no computation hid.
double exposed_time(std::vector<std::pair<Picoseconds, Picoseconds>> comm, std::vector<std::pair<Picoseconds, Picoseconds>> compute);

}  // namespace roofsim
