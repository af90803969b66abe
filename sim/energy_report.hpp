#pragma once
// Energy and power of a run for people: what `run` and `explain` print under their tables.
#include <iosfwd>

#include "experiment/inference.hpp"

namespace roofsim {

// Energy per output token, tokens/J, average and busiest-step power per chip, the shares, and
// the power roof; nothing where the chip has no [energy] table.
void print_energy(std::ostream& os, const ExperimentResult& r);

}  // namespace roofsim
