#pragma once
// Chrome trace-event JSON (opens in Perfetto and chrome://tracing) of an experiment.
#include <string>

#include "experiment/inference.hpp"

namespace roofsim {

void write_trace(const std::string& path, const ExperimentResult& r);

}  // namespace roofsim
