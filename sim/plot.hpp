#pragma once
// Roofline charts drawn by gnuplot: log-log, analytic roofs as lines, simulated ops as points.
#include <string>
#include <vector>

#include "validation/analytic.hpp"
#include "validation/knee.hpp"

namespace roofsim {

// Writes FILE.png or FILE.svg (by extension). Throws InputError if gnuplot is missing or fails.
void write_roofline_plot(const std::string& path, const std::string& title, const Roofline& analytic,
                         const std::vector<RooflinePoint>& simulated, const Knee& knee);

}  // namespace roofsim
