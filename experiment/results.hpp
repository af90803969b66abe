#pragma once
// The one result schema. Every result of the library becomes JSON here (the CLI's --json, the
// Python module's dicts, what whatif, sweeps and validate read back) and rows of it become CSV
// through one writer. docs/schema.md documents every key; kSchemaVersion changes whenever a
// key changes meaning or disappears (adding keys keeps it).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiment/collective.hpp"
#include "experiment/inference.hpp"
#include "experiment/public_cases.hpp"
#include "experiment/single_op.hpp"

namespace roofsim {

inline constexpr int kSchemaVersion = 1;

// A run's op table and layer table (experiment/run_summary.hpp), as the run summarised them.
std::vector<OpSummary> summarize_ops(const ExperimentResult& r);
std::vector<LayerSummary> summarize_layers(const ExperimentResult& r);

// A figure a result may lack (a decode time without decode, energy without [energy]): null then.
nlohmann::json number_or_null(bool present, double value);

// `run`: the experiment, its metrics beside their bounds, and the summed ops.
nlohmann::json to_json(const ExperimentResult& r);
// `run --csv`: one record per op instance (every layer of every simulated step).
nlohmann::json op_instance_records(const ExperimentResult& r);
extern const std::vector<std::string> kOpInstanceColumns;

// One simulated op as a record (`op`, and each point of a roofline sweep).
nlohmann::json op_record(const SimulatedOp& o);
// `op`: the single op's record plus the hardware and the kernel's counters.
nlohmann::json single_op_json(const OpsRunResult& r);
// A call of several kernels (an attention call, a MoE layer): its time from the first start to
// the last end, and its ops' bounds added up.
struct CallTotals {
  double sim_s = 0, bounds_s = 0;
};
CallTotals call_totals(const OpsRunResult& r);
// `op --attention` / `op --moe`: every op's record and the call's totals (`totals`: given, as
// the mean over an MoE layer's routing draws; else the run's own).
nlohmann::json call_json(const OpsRunResult& r, const CallTotals& totals);
nlohmann::json call_json(const OpsRunResult& r);
// `sweep`: every point, the emergent and analytic roofline.
nlohmann::json to_json(const RooflineSweepResult& r);
// `collective`.
nlohmann::json to_json(const CollectiveExperimentResult& r);

// `cases run`: one published case, simulated, against its measurement.
nlohmann::json case_result_json(const PublicCase& c, const ExperimentResult& r);

// `roofsim.analyze` (the ui's analytic numbers): a run's bounds, intensities, ridge, memory and
// ops from analyze_experiment, without simulated times.
nlohmann::json analysis_json(const ExperimentResult& r);

// Adds schema_version to a result object.
nlohmann::json versioned(nlohmann::json j);

// CSV of flat records (objects whose values are numbers, strings, booleans or null): one
// column per name in `columns` (empty: the first record's keys), one line per record. Floats
// are written with 9 significant digits; text with a comma, quote or line break is quoted.
std::string records_csv(const nlohmann::json& records, std::vector<std::string> columns = {});

}  // namespace roofsim
