#include "experiment/gap_explain.hpp"

#include <map>
#include <utility>

#include "core/error.hpp"

namespace roofsim {

namespace {

using OpKey = std::pair<std::string, std::string>;  // phase, op name

std::map<OpKey, OpSummary> ops_by_key(const ExperimentResult& r) {
  std::map<OpKey, OpSummary> out;
  for (OpSummary& o : summarize_ops(r)) out.emplace(OpKey{o.phase, o.name}, std::move(o));
  return out;
}

// Splits the drop from `times[0]` (the real chip) to `times.back()` (the ideal chip) into the
// causes, and what the ideal chip spends above `bound` into the tiles.
GapParts parts_of(const std::vector<double>& times, double bound) {
  GapParts p;
  p.sim_s = times.front();
  p.bound_s = bound;
  for (std::size_t i = 1; i < times.size(); ++i) p.parts.push_back(times[i - 1] - times[i]);
  p.tiles = times.back() - bound;
  return p;
}

nlohmann::json causes_json() {
  nlohmann::json causes = nlohmann::json::array();
  for (const NonIdealCost& c : non_ideal_costs()) causes.push_back({{"name", c.name}, {"what", c.what}});
  causes.push_back({{"name", kTilesAndOverlap},
                    {"what", "what the ideal chip still spends above the bound: work padded to tile shapes, partial "
                             "waves of tiles, units waiting on each other"}});
  return causes;
}

nlohmann::json parts_json(const GapParts& p) {
  nlohmann::json parts = nlohmann::json::object();
  for (std::size_t i = 0; i < p.parts.size(); ++i) parts[non_ideal_costs()[i].name + "_s"] = p.parts[i];
  parts[std::string(kTilesAndOverlap) + "_s"] = p.tiles;
  return {{"sim_s", p.sim_s}, {"bound_s", p.bound_s}, {"gap_s", p.gap()}, {"parts", parts}};
}

}  // namespace

GapExplanation explain_gaps(const Experiment& e, const RunControl& control) {
  if (e.ideal) {
    throw InputError("${ideal}: explaining the gap compares the chip with its ideal self; leave --ideal out");
  }
  HardwareSpec hw = e.hardware ? *e.hardware : load_hardware(e.hw);
  const std::size_t runs = non_ideal_costs().size() + 1;
  std::vector<ExperimentResult> results;
  for (std::size_t i = 0; i < runs; ++i) {
    if (control.stop_requested()) throw Cancelled();
    if (i > 0) non_ideal_costs()[i - 1].remove(hw);
    Experiment step = e;
    step.hardware = hw;
    results.push_back(run_experiment(step, RunControl{}));
    control.report(i + 1, runs, i == 0 ? "the chip as it is" : "without " + non_ideal_costs()[i - 1].name);
  }

  GapExplanation g;
  std::vector<double> ttft, tpot;
  for (const ExperimentResult& r : results) {
    ttft.push_back(r.ttft_s);
    tpot.push_back(r.tpot_s);
  }
  g.prefill = parts_of(ttft, results[0].bound_ttft_s);
  g.decode = parts_of(tpot, results[0].bound_tpot_s);

  std::vector<std::map<OpKey, OpSummary>> by_key;
  for (const ExperimentResult& r : results) by_key.push_back(ops_by_key(r));
  for (OpSummary& op : summarize_ops(results[0])) {
    std::vector<double> times;
    const OpKey key{op.phase, op.name};
    for (const auto& ops : by_key) {
      auto it = ops.find(key);
      // The same graph runs every time: only the chip changes.
      if (it == ops.end()) throw std::logic_error("explain_gaps: op " + op.name + " missing from a run");
      times.push_back(it->second.sim_s);
    }
    g.ops.push_back(OpGap{op, parts_of(times, op.bound_s)});
  }
  g.result = std::move(results[0]);
  return g;
}

nlohmann::json to_json(const GapExplanation& g) {
  nlohmann::json j = {{"run", to_json(g.result)}, {"causes", causes_json()}, {"prefill", parts_json(g.prefill)}};
  if (g.result.decode_steps > 0) j["decode_step"] = parts_json(g.decode);
  j["ops"] = gap_records(g);
  return versioned(std::move(j));
}

nlohmann::json gap_records(const GapExplanation& g) {
  nlohmann::json rows = nlohmann::json::array();
  for (const OpGap& o : g.ops) {
    nlohmann::json row = {{"phase", o.op.phase}, {"op", o.op.name}, {"class", o.op.op_class}, {"roof", o.op.roof},
                          {"count", o.op.count}, {"sim_s", o.time.sim_s}, {"bound_s", o.time.bound_s},
                          {"gap_s", o.time.gap()}};
    for (std::size_t i = 0; i < o.time.parts.size(); ++i) row[non_ideal_costs()[i].name + "_s"] = o.time.parts[i];
    row[std::string(kTilesAndOverlap) + "_s"] = o.time.tiles;
    rows.push_back(std::move(row));
  }
  return rows;
}

OpsGapExplanation explain_op_gaps(const HardwareSpec& hw, const std::vector<OpSpec>& ops, Granularity granularity,
                                  double max_events) {
  HardwareSpec step = hw;
  std::vector<OpsRunResult> runs;
  for (std::size_t i = 0; i <= non_ideal_costs().size(); ++i) {
    if (i > 0) non_ideal_costs()[i - 1].remove(step);
    runs.push_back(run_ops(step, false, ops, granularity, max_events));
  }
  OpsGapExplanation g;
  for (std::size_t op = 0; op < ops.size(); ++op) {
    std::vector<double> times;
    for (const OpsRunResult& r : runs) times.push_back(r.ops[op].result.seconds());
    g.ops.push_back(parts_of(times, runs[0].ops[op].bound.bound_time_s));
  }
  std::vector<double> call;
  for (const OpsRunResult& r : runs) call.push_back(call_totals(r).sim_s);
  g.call = parts_of(call, call_totals(runs[0]).bounds_s);
  return g;
}

nlohmann::json to_json(const OpsGapExplanation& g, const std::vector<OpSpec>& ops) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    nlohmann::json row = parts_json(g.ops[i]);
    row["op"] = ops[i].name;
    rows.push_back(std::move(row));
  }
  return {{"causes", causes_json()}, {"call", parts_json(g.call)}, {"ops", rows}};
}

}  // namespace roofsim
