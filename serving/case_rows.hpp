#pragma once
// One row of a serving-cases file as the reader (serving/serving_cases.cpp) takes it apart: its
// cells, the problem that keeps it from running, the assumptions said on it, and the parallel
// layout and concurrency its columns give. Internal to the serving-cases reader and its helpers
// (serving/case_models.cpp, serving/case_disaggregated.cpp).
#include <cstdint>
#include <optional>
#include <string>

#include "core/csv.hpp"
#include "serving/serving_cases.hpp"

namespace roofsim::case_rows {

// GPUs of one NVLink domain on the systems of these files (8 per H100/H200 node).
constexpr std::int64_t kGpusPerNode = 8;

// A row's problem: the row is listed with it and not simulated.
struct RowProblem {
  std::string reason;
};

std::string cell(const CsvRow& row, const std::string& column);  // "" when absent
// A count that may be absent, empty or 0 ("not set" in these files: then nullopt) and may be
// written as a float ("8.0", as pandas writes an integer column that has gaps).
std::optional<std::int64_t> count(const CsvRow& row, const std::string& column);
double positive_cell(const CsvRow& row, const std::string& column);
// Records an assumption about the deployment on the row (counted as "assumed").
void assume_deployment(ServingCase& c, const std::string& assumption);

// One instance's layout as the columns give it (`p`: "" aggregated, "prefill_" or "decode_").
struct ColumnLayout {
  std::int64_t tp = 1, pp = 1, ep = 1, moe_tp = 0;  // ep: attention-DP ranks, each its own scheduler
};
// The columns' layout as roofsim runs it: attention TP x DP ranks (roofsim's EP ranks, each its
// own attention), experts TP-split over moe_tp of each rank's tp chips and spread over the
// rest and over the ranks. Layouts roofsim has no form for run as the nearest one it has, said
// on the row.
ColumnLayout read_layout(const CsvRow& row, const std::string& p, bool moe, ServingCase& c);
// Nodes a worker of `gpus` GPUs spans (0: one NVLink switch).
std::int64_t nodes_for(std::int64_t gpus);
// The row's clients, or the deployment's batch limit `limit` when it gives none (said).
void fill_concurrency(ServingCase& c, const CsvRow& row, std::int64_t limit);

}  // namespace roofsim::case_rows
