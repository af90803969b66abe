#pragma once
// Silicon and cost of a run's chips for people: what `run` prints under its energy.
#include <iosfwd>

#include "experiment/inference.hpp"

namespace roofsim {

// The die's area by unit family, one chip's cost, and the run's tokens/s per mm2 and per
// thousand USD of chips; nothing where the chip has no [area] table.
void print_silicon(std::ostream& os, const ExperimentResult& r);

}  // namespace roofsim
