#pragma once
// Published measurements (validation/public-cases.csv) that roofsim can express as an
// experiment (validation/public_case_runs.csv), run and compared with their reference.
#include <string>
#include <vector>

#include "experiment/inference.hpp"

namespace roofsim {

struct PublicCase {
  std::string id;
  Experiment experiment;
  std::string metric;  // throughput | ttft | decode_tok_s
  double reference = 0;
  std::string unit, source;
  std::string category;  // the reference table's category (llm_throughput, ttft, ...)
};

// Reads both tables from `dir` (default: the repository's validation/ folder).
std::vector<PublicCase> load_public_cases(const std::string& dir = "");
const PublicCase& find_public_case(const std::vector<PublicCase>& cases, const std::string& id);
// The metric of a finished experiment, in the reference's unit.
double case_metric(const PublicCase& c, const ExperimentResult& r);
// The user's cases: a CSV with the columns of public_case_runs.csv plus reference and unit.
std::vector<PublicCase> load_user_cases(const std::string& path);
// First number in a reference value such as "104.9 / 1397.31" or "~370".
double first_number(const std::string& text);

}  // namespace roofsim
