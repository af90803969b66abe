#include "experiment/validation_suite.hpp"

#include <cmath>

#include "core/format.hpp"
#include "experiment/results.hpp"

namespace roofsim {

RunGap run_gap(const ExperimentResult& r) {
  // Ops bound by compute: the sustained clock below the datasheet clock, array work spent on
  // padding. Ops bound by memory: the achievable bandwidth fraction, bytes moved beyond each
  // operand once. Every op pays the device's start-up once and waits at least one access
  // latency for its first load and one for its last write: exact per-op costs of the model,
  // taken out of the rest. What remains is pipeline fill and tails; then collectives and time
  // outside any op (dependency stalls).
  const HardwareSpec& hw = r.hw;
  const DType act = r.setup.precision.activations;
  const double peak = hw.matrix_peak_flops(act);
  const double sustained = peak * hw.matrix.sustained_clock_hz / hw.matrix.clock_hz *
                           (hw.matrix.dtype_efficiency.count(act) ? hw.matrix.dtype_efficiency.at(act) : 1.0);
  const double bw = hw.hbm.bandwidth, bw_eff = bw * hw.hbm.efficiency;
  const double per_op_launch = hw.op_overhead_s, per_op_latency = 2 * hw.hbm.access_latency_s;
  RunGap g;
  double ops = 0;
  for (const OpSummary& op : summarize_ops(r)) {
    const double sim = op.sim_s, bound = op.bound_s;
    ops += sim;
    const double fixed_launch = op.count * per_op_launch, fixed_latency = op.count * per_op_latency;
    if (op.roof == "link") {
      g.exposed_communication_s += sim - bound;
    } else if (op.roof == "compute" && op.flops > 0) {
      const double c = op.flops / sustained - op.flops / peak;
      const double p = (op.padded_flops - op.flops) / sustained;
      g.compute_sustained_clock_s += c;
      g.compute_tile_padding_s += p;
      g.launch_s += fixed_launch;
      g.access_latency_s += fixed_latency;
      g.compute_pipeline_fill_and_tails_s += sim - bound - c - p - fixed_launch - fixed_latency;
    } else if (op.roof == "memory") {
      const double e = op.bytes / bw_eff - op.bytes / bw;
      const double t = (op.sim_bytes - op.bytes) / bw_eff;
      g.memory_bandwidth_efficiency_s += e;
      g.memory_extra_traffic_s += t;
      g.launch_s += fixed_launch;
      g.access_latency_s += fixed_latency;
      g.memory_pipeline_fill_and_tails_s += sim - bound - e - t - fixed_launch - fixed_latency;
    } else {
      g.compute_pipeline_fill_and_tails_s += sim - bound;  // vector-unit and near-memory compute
    }
  }
  g.outside_ops_s = r.total_s - ops;
  return g;
}

bool ValidationSuiteResult::all_hold() const {
  for (const Invariant& v : invariants) {
    if (!v.holds) return false;
  }
  return true;
}

namespace {

Experiment llama3_run(const std::string& hw, const std::string& model, std::int64_t batch, std::int64_t prompt,
                      std::int64_t gen) {
  Experiment e;
  e.hw = hw;
  e.model = model;
  e.batch = batch;
  e.prompt = prompt;
  e.generate = gen;
  return e;
}

void breaks(Invariant& v, const std::string& what) {
  v.holds = false;
  v.detail += (v.detail.empty() ? "" : "; ") + what;
}

}  // namespace

ValidationSuiteResult run_validation_suite(bool quick, const std::string& user_cases, const RunControl& control) {
  ValidationSuiteResult out;
  out.quick = quick;
  const std::vector<std::string> hws = quick ? std::vector<std::string>{"h100_sxm5", "tpu_v4"}
                                             : std::vector<std::string>{"h100_sxm5", "tpu_v4", "a100_sxm4_80gb", "h200_sxm"};
  const int points = quick ? 8 : 16;

  // What to simulate, in order: each item is a closure so that progress counts them all.
  struct RunItem {
    std::string id;
    Experiment e;
  };
  std::vector<std::pair<std::string, bool>> sweeps;  // hw, ideal
  std::vector<RunItem> runs;
  for (const auto& hw : hws) {
    sweeps.push_back({hw, false});
    sweeps.push_back({hw, true});
    for (std::int64_t batch : {1, 16}) {
      runs.push_back({"decode-llama-3-8b-b" + std::to_string(batch) + "-" + hw, llama3_run(hw, "llama-3-8b", batch, 512, 16)});
    }
    runs.push_back({"prefill-llama-3-8b-2048-" + hw, llama3_run(hw, "llama-3-8b", 1, 2048, 1)});
    if (!quick) runs.push_back({"decode-mistral-7b-b8-" + hw, llama3_run(hw, "mistral-7b", 8, 1024, 16)});
  }
  // Monotonicity: the same decode on twice the bandwidth.
  runs.push_back({"decode-llama-3-8b-b1-h100_2xbw", llama3_run("h100_2xbw", "llama-3-8b", 1, 512, 16)});
  struct CollectiveItem {
    std::string id;
    CollectiveExperiment x;
  };
  auto collective = [](const std::string& id, const char* hw, const char* topology, CollectiveKind kind, std::uint64_t bytes,
                       int group) {
    CollectiveExperiment x;
    x.hw = load_hardware(hw);
    x.topology = topology;
    x.kind = kind;
    x.bytes = bytes;
    x.group = group;
    return CollectiveItem{id, x};
  };
  std::vector<CollectiveItem> collectives = {
      collective("allreduce-1GiB-h100-switch8", "h100_sxm5", "switch:8", CollectiveKind::allreduce, 1ull << 30, 0),
      collective("allreduce-1GiB-tpu_v4-4x4x4", "tpu_v4", "4x4x4", CollectiveKind::allreduce, 1ull << 30, 0),
      // The routed lowerings: an all-to-all over the torus, and rings over groups that are no sub-torus.
      collective("alltoall-64MiB-tpu_v4-4x4x4", "tpu_v4", "4x4x4", CollectiveKind::alltoall, 64ull << 20, 0),
      collective("allreduce-256MiB-tpu_v4-4x4x4-groups-of-8", "tpu_v4", "4x4x4", CollectiveKind::allreduce, 256ull << 20, 8)};
  std::vector<PublicCase> cases;
  for (const PublicCase& c : load_public_cases()) {
    const bool slow = c.experiment.generate > 256 || c.experiment.batch * c.experiment.generate > 16384;
    if (quick && (slow || c.category == "held_out")) continue;  // ctest runs every case itself
    cases.push_back(c);
  }
  if (!user_cases.empty()) {
    for (PublicCase& c : load_user_cases(user_cases)) {
      c.category = "user";
      c.source = user_cases;
      cases.push_back(c);
    }
  }

  out.simulations = sweeps.size() + runs.size() + collectives.size() + cases.size();
  std::size_t done = 0;
  auto finished = [&](const std::string& what) {
    control.report(++done, out.simulations, what);
    if (control.stop_requested()) throw Cancelled();
  };
  for (const auto& [hw, ideal] : sweeps) {
    const std::string id = (ideal ? "ops-ideal-" : "ops-") + hw;
    out.sweeps.push_back({id, hw, ideal, run_roofline_sweep(hardware_for_run(load_hardware(hw), ideal), ideal, DType::bf16, points)});
    finished(id);
  }
  for (const RunItem& item : runs) {
    ExperimentResult r = run_experiment(item.e, RunControl{});
    const RunGap gap = run_gap(r);
    out.runs.push_back({item.id, std::move(r), gap});
    finished(item.id);
  }
  for (const CollectiveItem& item : collectives) {
    out.collectives.push_back({item.id, run_collective_experiment(item.x)});
    finished(item.id);
  }
  std::map<std::string, std::pair<double, int>> mape;
  for (const PublicCase& c : cases) {
    const ExperimentResult r = run_experiment(c.experiment, RunControl{});
    CaseOutcome o{c.id, c.category, c.unit, c.source, case_metric(c, r), c.reference, 0};
    o.error = o.sim / o.reference - 1;
    mape[o.category].first += std::fabs(o.error);
    mape[o.category].second += 1;
    out.cases.push_back(o);
    finished(c.id);
  }
  for (const auto& [cat, v] : mape) out.mape[cat] = v.first / v.second;

  // Invariants of ../shared/DESIGN.md, checked on what the suite produced.
  std::vector<Invariant>& inv = out.invariants;
  inv.resize(5);
  inv[0].name = "1. no simulated op, run or collective beats its analytic bound";
  inv[1].name = "2. ideal runs within 1% of the bound far from the ridge";
  inv[2].name = "3. the emergent ridge within 5% of the analytic ridge (ideal sweeps)";
  inv[3].name = "4. more bandwidth never makes decode slower (h100_2xbw vs h100_sxm5)";
  inv[4].name = "5. simulated FLOPs equal the ops' FLOPs";
  for (const ValidationSweep& s : out.sweeps) {
    const double ridge = s.result.analytic.ridge();
    for (const SimulatedOp& p : s.result.run.ops) {
      const double sim = p.result.seconds(), bound = p.bound.bound_time_s;
      if (sim < bound * (1 - 1e-9)) breaks(inv[0], s.id + " " + p.spec.name);
      if (std::fabs(p.result.flops / p.cost.flops - 1) > 1e-9) breaks(inv[4], s.id + " " + p.spec.name);
      if (s.ideal && (p.bound.intensity < ridge / 8 || p.bound.intensity > 8 * ridge) && sim > 1.01 * bound) {
        breaks(inv[1], s.id + " " + p.spec.name);
      }
    }
    if (s.ideal && std::fabs(s.result.knee.ridge() / ridge - 1) > 0.05) breaks(inv[2], s.id);
  }
  const ExperimentResult* base = nullptr;
  const ExperimentResult* more = nullptr;
  for (const ValidationRun& v : out.runs) {
    const ExperimentResult& r = v.result;
    if (r.ttft_s < r.bound_ttft_s * (1 - 1e-9)) breaks(inv[0], v.id + " ttft_s");
    if (r.decode_steps > 0 && r.tpot_s < r.bound_tpot_s * (1 - 1e-9)) breaks(inv[0], v.id + " tpot_s");
    if (r.total_s < r.bound_total_s * (1 - 1e-9)) breaks(inv[0], v.id + " total_s");
    if (v.id == "decode-llama-3-8b-b1-h100_sxm5") base = &r;
    if (v.id == "decode-llama-3-8b-b1-h100_2xbw") more = &r;
  }
  if (base && more && more->tpot_s > base->tpot_s) breaks(inv[3], "decode");
  for (const ValidationCollective& c : out.collectives) {
    if (c.result.sim.sim_time_s < c.result.sim.bound_time_s * (1 - 1e-9)) breaks(inv[0], c.id);
  }
  return out;
}

nlohmann::json to_json(const ValidationSuiteResult& r) {
  nlohmann::json out;
  out["cases"] = nlohmann::json::array();
  for (const CaseOutcome& c : r.cases) {
    out["cases"].push_back({{"id", c.id}, {"sim", c.sim}, {"reference", c.reference}, {"error", c.error},
                            {"unit", c.unit}, {"category", c.category}, {"source", c.source}});
  }
  out["mape"] = nlohmann::json::object();
  for (const auto& [cat, v] : r.mape) out["mape"][cat] = v;
  out["invariants"] = nlohmann::json::array();
  for (const auto& v : r.invariants) out["invariants"].push_back({{"invariant", v.name}, {"holds", v.holds}, {"detail", v.detail}});
  out["items"] = nlohmann::json::array();
  for (const ValidationSweep& s : r.sweeps) {
    for (const SimulatedOp& p : s.result.run.ops) {
      const double sim = p.result.seconds(), bound = p.bound.bound_time_s;
      out["items"].push_back({{"id", s.id + " " + p.spec.name}, {"sim", sim}, {"bound", bound}, {"ratio", sim / bound},
                              {"roof", roof_name(p.bound.roof)}});
    }
  }
  for (const ValidationRun& v : r.runs) {
    const RunGap& g = v.gap;
    const nlohmann::json gap = {
        {"compute_sustained_clock_s", g.compute_sustained_clock_s}, {"compute_tile_padding_s", g.compute_tile_padding_s},
        {"compute_pipeline_fill_and_tails_s", g.compute_pipeline_fill_and_tails_s},
        {"memory_bandwidth_efficiency_s", g.memory_bandwidth_efficiency_s}, {"memory_extra_traffic_s", g.memory_extra_traffic_s},
        {"memory_pipeline_fill_and_tails_s", g.memory_pipeline_fill_and_tails_s}, {"launch_s", g.launch_s},
        {"access_latency_s", g.access_latency_s}, {"exposed_communication_s", g.exposed_communication_s},
        {"outside_ops_s", g.outside_ops_s}};
    out["items"].push_back({{"id", v.id}, {"sim", v.result.total_s}, {"bound", v.result.bound_total_s},
                            {"ratio", v.result.total_s / v.result.bound_total_s}, {"gap", gap}});
  }
  for (const ValidationCollective& c : r.collectives) {
    const CollectiveResult& s = c.result.sim;
    out["items"].push_back({{"id", c.id}, {"sim", s.sim_time_s}, {"bound", s.bound_time_s}, {"ratio", s.sim_time_s / s.bound_time_s}});
  }
  return versioned(std::move(out));
}

}  // namespace roofsim
