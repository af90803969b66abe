#pragma once
// The op list of a roofline sweep: GEMMs M x N x N with N fixed and M growing geometrically,
// so intensity runs from about 1 FLOP/byte (a GEMV) to several thousand.
#include <vector>

#include "components/simulation.hpp"

namespace roofsim {

std::vector<OpSpec> roofline_sweep_ops(const HardwareSpec& hw, DType dtype, int points);

}  // namespace roofsim
