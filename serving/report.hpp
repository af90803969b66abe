#pragma once
// A serving run as data: JSON (the schema in docs/schema.md), per-request and per-iteration CSV.
#include <nlohmann/json.hpp>
#include <string>

#include "serving/serving.hpp"

namespace roofsim {

nlohmann::json serving_json(const ServingResult& r);
// One row per request: arrival, first token, finish, TTFT, TPOT, end-to-end (seconds),
// prompt and output tokens, preemptions.
std::string requests_csv(const ServingResult& r);
// One row per iteration: start, seconds, prefill and decode sequences, prefill tokens, KV
// blocks in use, queue length, and the shape it ran as.
std::string iterations_csv(const ServingResult& r);
// The same rows as JSON arrays of objects, with the CSVs' column names (the Python module's
// `requests` and `iteration_records`; pandas.DataFrame takes them as they are).
nlohmann::json serving_request_records(const ServingResult& r);
nlohmann::json serving_iteration_records(const ServingResult& r);
// `stages`: the pipeline stages of an instance (its micro-batches under way are named when more than one).
std::string describe_scheduler(const SchedulerConfig& c, std::int64_t stages = 1);
// An iteration shape as text: "4x prefill 512@512 + 60x decode @1088" (count x new tokens @ context).
std::string groups_text(const std::vector<SequenceGroup>& groups);

}  // namespace roofsim
