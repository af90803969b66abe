#pragma once
// Measured serving runs against roofsim's, as a chart: three log-log panels (TTFT, TPOT,
// requests/s), measured on x and simulated on y, a point per row coloured by its concurrency,
// with the line of agreement and the +-15% band. Where a concurrency's points leave the band,
// and in which panel, shows at a glance what the table says row by row.
#include <string>
#include <vector>

#include "serving/serving_cases.hpp"

namespace roofsim {

// Writes FILE.png or FILE.svg with gnuplot; throws InputError (naming ${plot}) for another
// extension, a missing gnuplot or no rows.
void write_serving_cases_plot(const std::string& path, const std::string& title, const std::vector<ServingCaseResult>& results);

}  // namespace roofsim
