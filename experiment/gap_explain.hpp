#pragma once
// Why a run is slower than its roofline bound, measured by the simulator itself: the run is
// simulated again on its chip with one non-ideal cost taken away after another (per-kernel
// launch and drain, the sustained clock, a dtype's kernel efficiency, HBM efficiency, pipeline
// and memory latency, the collective kernels and links), ending on the ideal chip (`--ideal`).
// The time each removal saves is that cost's share of the gap; what the ideal chip still spends
// above the bound is the tiles (work padded to tile shapes, partial waves) and the units
// waiting on each other. The order is fixed and stated: a cost's share is measured with the
// costs before it already gone.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/inference.hpp"
#include "experiment/progress.hpp"
#include "experiment/results.hpp"
#include "experiment/single_op.hpp"

namespace roofsim {

// The name of what is left on the ideal chip.
inline constexpr const char* kTilesAndOverlap = "tiles";

// Times and their parts: `parts[i]` is what removing non_ideal_costs()[i] (core/hardware.hpp) saved; `tiles` what the
// ideal chip spends above the bound.
struct GapParts {
  double sim_s = 0, bound_s = 0;
  std::vector<double> parts;
  double tiles = 0;
  double gap() const { return sim_s - bound_s; }
};

struct OpGap {
  OpSummary op;  // from the run on the real chip
  GapParts time;
};

struct GapExplanation {
  ExperimentResult result;  // the run on the real chip
  GapParts prefill, decode;  // TTFT, and the mean decode step (TPOT)
  std::vector<OpGap> ops;    // summed over layers and steps, as summarize_ops gives them
};

// Simulates `e` on its chip and on each step towards the ideal one (non_ideal_costs().size() + 1
// runs). Refuses an experiment that already runs on the ideal chip.
GapExplanation explain_gaps(const Experiment& e, const RunControl& control = {});
nlohmann::json to_json(const GapExplanation& g);
// One record per op: phase, op, roof, sim, bound, gap and each part in seconds (CSV rows).
nlohmann::json gap_records(const GapExplanation& g);

// The same for one op or one call of several kernels (`roofsim op --explain`): each op's gap,
// and the call's (its first start to its last end against its ops' bounds summed), with the
// ops simulated on `hw` and again with one non-ideal cost taken away after another.
struct OpsGapExplanation {
  std::vector<GapParts> ops;  // in the order of the ops given
  GapParts call;
};
OpsGapExplanation explain_op_gaps(const HardwareSpec& hw, const std::vector<OpSpec>& ops,
                                  Granularity granularity = Granularity::coarse, double max_events = kDefaultMaxEvents);
// {causes, call, ops: [{op, sim_s, bound_s, gap_s, parts}]}.
nlohmann::json to_json(const OpsGapExplanation& g, const std::vector<OpSpec>& ops);

}  // namespace roofsim
