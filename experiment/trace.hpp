#pragma once
// Chrome trace-event JSON (opens in Perfetto and chrome://tracing) of an experiment.
#include <nlohmann/json.hpp>

#include "experiment/inference.hpp"

namespace roofsim {

// The timeline of the steps the experiment traced (Experiment::trace_steps).
nlohmann::json trace_json(const ExperimentResult& r);

}  // namespace roofsim
