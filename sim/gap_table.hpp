#pragma once
// The gap tables `roofsim explain` and `roofsim op --explain` print: a row's simulated time,
// its bound, its gap, and each non-ideal cost's share of that gap (experiment/gap_explain.hpp).
#include <iosfwd>
#include <string>
#include <vector>

#include "experiment/gap_explain.hpp"

namespace roofsim {

// `first` (the row's own columns' names), then simulated, bound, gap, each cost, tiles.
std::vector<std::string> gap_header(std::vector<std::string> first);
// `first` (the row's own cells), then the times and each part as a share of the gap.
std::vector<std::string> gap_cells(std::vector<std::string> first, const GapParts& p);
// One line per cost, in the order they are taken away, and what the ideal chip leaves.
void print_gap_causes(std::ostream& os);

}  // namespace roofsim
