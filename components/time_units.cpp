#include "components/time_units.hpp"

#include <cstdio>

#include "core/error.hpp"

namespace roofsim {

void throw_time_out_of_range(double seconds) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g s", seconds);
  throw InputError(std::string("a simulated duration of ") + buf +
                   " is beyond what roofsim simulates (2^62 ps, about 53 days): a rate in the hardware is too small "
                   "or a size too large");
}

}  // namespace roofsim
