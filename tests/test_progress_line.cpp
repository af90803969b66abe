// The progress line's estimate of the time left (sim/progress_line.hpp).
#include <catch2/catch.hpp>

#include "sim/progress_line.hpp"

using namespace roofsim;

TEST_CASE("progress: the time left from the pace since the last report, once 1% is done", "[systemc][cli]") {
  // Before 1% of the work, or with nothing moving, no number: a slow start says little.
  CHECK(eta_text(1, 2000, 0.3) == "estimating");
  CHECK(eta_text(19, 2000, 5.0) == "estimating");
  CHECK(eta_text(500, 2000, 0.0) == "estimating");
  // Then what is left at the recent pace.
  CHECK(eta_text(20, 2000, 99.0) == "20 s");
  CHECK(eta_text(1000, 2000, 50.0) == "20 s");
  CHECK(eta_text(2000, 2000, 50.0) == "0 s");
}
