#pragma once
// The validation suite: single ops across the intensity range, decode and prefill,
// collectives, published cases and the user's own cases, simulated in this process one after
// another and checked against the analytic model (the design's invariants) and measurements.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/collective.hpp"
#include "experiment/inference.hpp"
#include "experiment/progress.hpp"
#include "experiment/public_cases.hpp"
#include "experiment/single_op.hpp"

namespace roofsim {

// Where the gap between a run and its bound lies, from the simulation's own counts.
struct RunGap {
  double compute_sustained_clock_s = 0, compute_tile_padding_s = 0, compute_pipeline_fill_and_tails_s = 0;
  double memory_bandwidth_efficiency_s = 0, memory_extra_traffic_s = 0, memory_pipeline_fill_and_tails_s = 0;
  double launch_s = 0, access_latency_s = 0, exposed_communication_s = 0, outside_ops_s = 0;
};
RunGap run_gap(const ExperimentResult& r);

struct ValidationSweep {
  std::string id, hw;
  bool ideal = false;
  RooflineSweepResult result;
};
struct ValidationRun {
  std::string id;
  ExperimentResult result;
  RunGap gap;
};
struct ValidationCollective {
  std::string id;
  CollectiveExperimentResult result;
};
struct CaseOutcome {
  std::string id, category, unit, source;
  double sim = 0, reference = 0, error = 0;  // error = sim / reference - 1
};
struct Invariant {
  std::string name;
  bool holds = true;
  std::string detail;  // where it breaks
};

struct ValidationSuiteResult {
  bool quick = false;
  std::vector<ValidationSweep> sweeps;
  std::vector<ValidationRun> runs;
  std::vector<ValidationCollective> collectives;
  std::vector<CaseOutcome> cases;
  std::map<std::string, double> mape;  // category -> mean absolute error of its cases
  std::vector<Invariant> invariants;
  std::size_t simulations = 0;
  bool all_hold() const;
};

// `quick`: H100 and TPU v4, fewer points, the fast published cases without the held-out ones.
// `user_cases`: a CSV of the user's own cases ("" = none).
ValidationSuiteResult run_validation_suite(bool quick, const std::string& user_cases, const RunControl& control = {});
nlohmann::json to_json(const ValidationSuiteResult& r);

}  // namespace roofsim
