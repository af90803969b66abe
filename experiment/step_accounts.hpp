#pragma once
// A run's figures taken step by step: as each simulated step (prefill, then each decode step
// simulated) ends, its time, bound, communication, op table, layer table and energy are added
// to the ExperimentResult, and its op records are kept only for the first steps (the trace,
// the graph drawing) unless every one was asked for (RunControl::keep_every_op). A run's memory
// then stays flat in the tokens it generates: a step's graph and results go once taken.
#include <cstddef>
#include <vector>

#include "experiment/inference.hpp"
#include "experiment/run_bounds.hpp"
#include "experiment/run_summary.hpp"

namespace roofsim {

class StepAccounts {
 public:
  // `kept`: the steps, from the first, whose graphs and op records the result keeps.
  StepAccounts(ExperimentResult& r, const CommSetup& links, std::size_t kept);
  std::size_t kept() const { return kept_; }
  // Step i ended: its ops' results (moved from where kept) and when it started and ended.
  void take(std::size_t i, std::vector<OpResult>& results, Picoseconds start, Picoseconds end);
  // Every step taken: the per-step sums made means, the op and layer tables filled in.
  void finish();

 private:
  ExperimentResult& r_;
  CommSetup links_;
  std::size_t kept_;
  RunSummarizer summary_;
};

}  // namespace roofsim
