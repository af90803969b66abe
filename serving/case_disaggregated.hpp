#pragma once
// A disaggregated row's deployment: its prefill and decode pools' layouts, worker counts and
// batch limits from its columns, and for InferenceMAX's rows from the recipes its configs name
// (configs/harnesses/inferencemax_disagg.csv). Internal to the serving-cases reader.
#include "core/csv.hpp"
#include "serving/serving_cases.hpp"

namespace roofsim::case_rows {

// Fills `c`'s pools from `row` (`moe`: the model has experts); throws RowProblem.
void read_disaggregated(const CsvRow& row, bool moe, ServingCase& c);

}  // namespace roofsim::case_rows
