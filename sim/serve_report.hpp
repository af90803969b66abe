#pragma once
// The text report of a `roofsim serve` run: the setup, latency percentiles, throughput, batches
// and the roofline position of its passes, for a person to read (the JSON and CSVs are
// serving/report.hpp's).
#include <ostream>

#include "serving/serving.hpp"

namespace roofsim {

void print_serve_report(std::ostream& os, const ServingResult& r);

}  // namespace roofsim
