// A run's figures, step by step (declared in step_accounts.hpp).
#include "experiment/step_accounts.hpp"

#include <algorithm>
#include <utility>

#include "components/time_intervals.hpp"

namespace roofsim {

StepAccounts::StepAccounts(ExperimentResult& r, const CommSetup& links, std::size_t kept)
    : r_(r), links_(links), kept_(std::min(kept, r.simulated_steps.size())), summary_(r.hw, static_cast<double>(r.stage_chips())) {}

void StepAccounts::take(std::size_t i, std::vector<OpResult>& results, Picoseconds start, Picoseconds end) {
  const Experiment& e = r_.setup;
  const OpGraph& g = r_.graphs[i];
  const double sim = to_seconds(end - start);
  const std::vector<OpBound> bounds = op_bounds(g, r_.hw, links_, e.near_memory);
  const double bound = std::max(critical_path_bound(g, bounds), resource_bound(g, r_.hw, e.near_memory, bounds));
  // Communication: time in collectives, and the part of it no compute op overlapped.
  std::vector<std::pair<Picoseconds, Picoseconds>> comm, compute;
  for (OpId v = 0; v < g.size(); ++v) {
    const OpResult& res = results[v];
    (g.op(v).is_collective ? comm : compute).emplace_back(res.start_ps, res.end_ps);
  }
  double comm_s = 0;
  for (const auto& [a, b] : comm) comm_s += to_seconds(b - a);
  const double exposed_s = comm.empty() ? 0.0 : exposed_time(comm, compute);
  if (i == 0) {
    r_.ttft_s = sim;
    r_.bound_ttft_s = bound;
    r_.prefill_flops = g.total_flops();
    r_.prefill_bytes = g.total_bytes();
    r_.prefill_comm_s = comm_s;
    r_.prefill_exposed_comm_s = exposed_s;
  } else {
    const double w = r_.step_weights[i];
    r_.decode_comm_s += w * comm_s;
    r_.decode_exposed_comm_s += w * exposed_s;
    r_.tpot_s += w * sim;
    r_.bound_tpot_s += w * bound;
    r_.decode_flops += w * g.total_flops();
    r_.decode_bytes += w * g.total_bytes();
    r_.decode_speed_of_light_s += w * decode_read_time_s(g, r_.hw, e.near_memory);
  }
  r_.step_op_energy.push_back(summary_.add_step(r_.simulated_steps[i], r_.step_weights[i], g, bounds, results));
  if (i >= kept_) return;
  for (OpId v = 0; v < g.size(); ++v) {
    OpInstance inst;
    inst.step = r_.simulated_steps[i];
    inst.weight = r_.step_weights[i];
    inst.op = &g.op(v);
    inst.bound = bounds[v];
    inst.result = std::move(results[v]);
    r_.ops.push_back(std::move(inst));
  }
}

void StepAccounts::finish() {
  r_.total_s = r_.ttft_s + r_.tpot_s;
  r_.bound_total_s = r_.bound_ttft_s + r_.bound_tpot_s;
  if (r_.decode_steps > 0) {
    const double steps = r_.decode_steps;
    r_.tpot_s /= steps;
    r_.bound_tpot_s /= steps;
    r_.decode_flops /= steps;
    r_.decode_bytes /= steps;
    r_.decode_speed_of_light_s /= steps;
    r_.decode_comm_s /= steps;
    r_.decode_exposed_comm_s /= steps;
  }
  r_.op_summaries = summary_.ops();
  r_.layer_summaries = summary_.layers(r_.decode_steps);
}

}  // namespace roofsim
