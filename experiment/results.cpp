#include "experiment/results.hpp"


#include "experiment/collective_settings.hpp"
#include "experiment/energy.hpp"
#include "experiment/silicon.hpp"
#include "experiment/experiment_settings.hpp"
#include "experiment/hardware_json.hpp"
#include "validation/analytic.hpp"

#include <map>
#include <sstream>
#include <string_view>
#include <unordered_map>

namespace roofsim {

namespace {

nlohmann::json link_records(const std::vector<Fabric::LinkUse>& links, double over_s) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& l : links) out.push_back({{"link", l.name}, {"bytes", l.bytes}, {"utilisation", to_seconds(l.busy) / over_s}});
  return out;
}

void write_csv_cell(std::ostream& os, const nlohmann::json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.find_first_of(",\"\n\r") == std::string::npos) {
      os << s;
      return;
    }
    os << '"';
    for (char c : s) os << (c == '"' ? "\"\"" : std::string(1, c));
    os << '"';
  } else if (v.is_number_float()) {
    os << v.get<double>();
  } else if (v.is_number_unsigned()) {
    os << v.get<std::uint64_t>();
  } else if (v.is_number_integer()) {
    os << v.get<std::int64_t>();
  } else if (v.is_boolean()) {
    os << (v.get<bool>() ? "true" : "false");
  }  // null, objects and arrays: an empty cell
}

// Scale-out runs only (--nodes or --replicas given; a run on one node without replicas keeps
// its output as it was): the nodes, the replicas, every chip, and the throughput of one
// replica (the simulated one: replicas exchange nothing) and of all.
void put_scale_out(nlohmann::json& j, const ExperimentResult& r) {
  const Experiment& e = r.setup;
  if (e.nodes <= 0 && e.replicas <= 1) return;
  j["nodes"] = e.nodes > 0 ? nlohmann::json(e.nodes) : nlohmann::json(nullptr);
  j["replicas"] = e.replicas;
  j["chips_per_replica"] = r.replica_chips();
  j["chips_total"] = r.total_chips();
  if (r.total_s > 0) {
    j["replica_throughput_tok_s"] = r.replica_throughput_tok_s();
    j["total_throughput_tok_s"] = r.total_throughput_tok_s();
  }
}

}  // namespace

nlohmann::json versioned(nlohmann::json j) {
  j["schema_version"] = kSchemaVersion;
  return j;
}

std::vector<OpSummary> summarize_ops(const ExperimentResult& r) { return r.op_summaries; }

std::vector<LayerSummary> summarize_layers(const ExperimentResult& r) { return r.layer_summaries; }

namespace {
// What ran on what: the keys a run record and an analysis share.
void put_setup(nlohmann::json& j, const ExperimentResult& r) {
  const Experiment& e = r.setup;
  j["hardware"] = r.hw.name;
  j["model"] = r.model.name;
  j["batch"] = e.batch;
  j["prompt"] = e.prompt;
  j["generate"] = e.generate;
  j["weights_dtype"] = std::string(dtype_name(e.precision.weights));
  j["activations_dtype"] = std::string(dtype_name(e.precision.activations));
  j["kv_dtype"] = std::string(dtype_name(e.precision.kv));
  j["fp8_scaling"] = e.precision.scale_block_k > 0 ? "block" : "tensor";
}

// Energy and power from the run's events (experiment/energy.hpp); null where the chip has no
// [energy] table.
// Silicon and cost of the chips (core/chip_area.hpp) and the throughput per mm2 and per
// thousand USD of them; null where the chip has no [area] (or [cost]) table.
void put_silicon(nlohmann::json& j, const ExperimentResult& r) {
  const RunSilicon s = run_silicon(r);
  j["chip_area_mm2"] = number_or_null(s.area_modelled, s.chip_area.total());
  j["chip_cost_usd"] = number_or_null(s.cost_modelled, s.chip_cost.total_usd());
  j["tokens_per_s_per_mm2"] = number_or_null(s.area_modelled, s.tokens_per_s_per_mm2);
  j["tokens_per_s_per_kusd"] = number_or_null(s.cost_modelled, s.tokens_per_s_per_kusd);
}

void put_energy(nlohmann::json& j, const ExperimentResult& r) {
  const RunEnergy en = run_energy(r);
  const bool tokens = en.modelled && en.per_output_token_j > 0;
  j["energy_j"] = number_or_null(en.modelled, en.total_j());
  j["energy_per_token_j"] = number_or_null(tokens, en.per_output_token_j);
  j["tokens_per_j"] = number_or_null(tokens, tokens ? 1.0 / en.per_output_token_j : 0.0);
  j["energy_per_request_j"] = number_or_null(en.modelled, en.per_request_j);
  j["avg_power_w"] = number_or_null(en.modelled, en.avg_power_w);
  j["peak_power_w"] = number_or_null(en.modelled, en.peak_power_w);
  // The third roof: the power limit's FLOP/s and whether it held the matrix clock down.
  const EnergySpec& k = r.hw.energy;
  j["power_roof_flops"] = number_or_null(k.tdp_w > 0, r.hw.power_roof_flops(DType::bf16));
  j["power_bound"] = k.power_limited_clock_hz > 0;
  j["power_limited_clock_mhz"] = number_or_null(k.power_limited_clock_hz > 0, k.power_limited_clock_hz / 1e6);
  if (!en.modelled) {
    j["energy"] = nullptr;
    return;
  }
  auto parts = [](const EnergyParts& p) {
    return nlohmann::json{{"matrix_j", p.matrix}, {"vector_j", p.vector},           {"hbm_j", p.hbm},
                          {"onchip_j", p.onchip}, {"near_memory_j", p.near_memory}, {"links_j", p.links},
                          {"idle_j", p.idle},     {"total_j", p.total()}};
  };
  j["energy"] = {{"prefill", parts(en.prefill)}, {"decode", parts(en.decode)}};
}

}  // namespace

nlohmann::json number_or_null(bool present, double value) { return present ? nlohmann::json(value) : nlohmann::json(nullptr); }

nlohmann::json to_json(const ExperimentResult& r) {
  const Experiment& e = r.setup;
  const bool decode = r.decode_steps > 0;
  nlohmann::json j;
  j["settings"] = experiment_settings_json(e);
  put_setup(j, r);
  j["attention"] = attention_name(e.attention);
  j["ideal"] = e.ideal;
  j["memory_bytes"] = {{"weights", r.memory.weights}, {"kv_cache", r.memory.kv_cache},
                       {"activations", r.memory.activations}, {"total", r.memory.total()},
                       {"capacity", r.hw.hbm.capacity_bytes}};
  j["ttft_s"] = r.ttft_s;
  j["tpot_s"] = number_or_null(decode, r.tpot_s);
  j["throughput_tok_s"] = r.throughput_tok_s();
  j["decode_tok_s"] = number_or_null(decode, static_cast<double>(e.batch) / r.tpot_s);
  j["total_s"] = r.total_s;
  j["bound_ttft_s"] = r.bound_ttft_s;
  j["bound_tpot_s"] = number_or_null(decode, r.bound_tpot_s);
  j["bound_total_s"] = r.bound_total_s;
  j["decode_speed_of_light_s"] = number_or_null(decode, r.decode_speed_of_light_s);
  j["prefill_intensity"] = r.prefill_flops / r.prefill_bytes;
  j["decode_intensity"] = number_or_null(decode, r.decode_flops / r.decode_bytes);
  put_energy(j, r);
  put_silicon(j, r);
  j["tp"] = e.tp;
  j["pp"] = e.pp;
  j["ep"] = e.ep;
  j["topology"] = r.topology;
  put_scale_out(j, r);
  j["notes"] = r.notes;
  j["prefill_comm_s"] = r.prefill_comm_s;
  j["prefill_exposed_comm_s"] = r.prefill_exposed_comm_s;
  j["decode_comm_s"] = r.decode_comm_s;
  j["decode_exposed_comm_s"] = r.decode_exposed_comm_s;
  j["links"] = link_records(r.links, r.total_s);
  j["decode_steps"] = r.decode_steps;
  j["decode_steps_simulated"] = r.simulated_steps.size() - 1;
  j["launch"] = launch_name(e.launch);
  j["allreduce"] = e.allreduce;
  j["routing"] = moe_routing_name(e.routing);
  j["moe_kernel"] = moe_kernel_name(e.moe_kernel);
  j["moe_tp"] = e.moe_tp > 0 ? e.moe_tp : e.tp;
  j["weight_only_moe_eager_host_s"] = e.weight_only_moe_eager_host_s;  // the stack's eager MoE call (0: none)
  j["events"] = r.events;
  j["estimated_work"] = r.estimated_work;
  j["server_jobs"] = r.server_jobs;
  j["wall_s"] = r.wall_s;
  j["ops"] = nlohmann::json::array();
  for (const auto& o : summarize_ops(r)) {
    j["ops"].push_back({{"name", o.name}, {"phase", o.phase}, {"class", o.op_class}, {"count", o.count},
                        {"flops", o.flops}, {"bytes", o.bytes}, {"intensity", o.intensity()},
                        {"sim_time_s", o.sim_s}, {"bound_time_s", o.bound_s}, {"roof", o.roof},
                        {"sim_bytes", o.sim_bytes}, {"padded_flops", o.padded_flops}, {"shape", o.shape},
                        {"energy_j", number_or_null(r.hw.energy.present, o.energy_j)}});
  }
  j["layers"] = nlohmann::json::array();
  for (const LayerSummary& l : summarize_layers(r)) {
    j["layers"].push_back({{"layer", l.layer}, {"prefill_s", l.prefill_s}, {"prefill_bound_s", l.prefill_bound_s},
                           {"decode_s", l.decode_s}, {"decode_bound_s", l.decode_bound_s}});
  }
  return versioned(std::move(j));
}

nlohmann::json analysis_json(const ExperimentResult& r) {
  const Experiment& e = r.setup;
  const bool decode = r.decode_steps > 0;
  const Roofline roof = roofline_for(r.hw, e.precision.activations);
  nlohmann::json j;
  put_setup(j, r);
  j["tp"] = e.tp;
  j["pp"] = e.pp;
  j["ep"] = e.ep;
  j["topology"] = r.topology;
  put_scale_out(j, r);
  j["notes"] = r.notes;
  j["ideal"] = e.ideal;
  j["peak_flops"] = roof.peak_flops;
  j["bandwidth"] = roof.bandwidth;
  j["ridge"] = roof.ridge();
  // The near-memory units' own roof, where the chip has them and the run lets them work (null: none).
  const bool near = r.hw.pim.present && e.near_memory != NearMemory::off;
  j["near_memory_roof"] = near ? nlohmann::json{{"peak_flops", r.hw.pim_peak_flops()}, {"bandwidth", r.hw.pim_bandwidth()},
                                                {"ridge", r.hw.pim_peak_flops() / r.hw.pim_bandwidth()}}
                               : nlohmann::json(nullptr);
  j["hardware_summary"] = hardware_json(r.hw);
  j["memory_bytes"] = {{"weights", r.memory.weights}, {"kv_cache", r.memory.kv_cache},
                       {"activations", r.memory.activations}, {"total", r.memory.total()},
                       {"capacity", r.hw.hbm.capacity_bytes}};
  j["fits"] = r.memory.total() <= r.hw.hbm.capacity_bytes;
  j["prefill"] = {{"flops", r.prefill_flops}, {"bytes", r.prefill_bytes}, {"intensity", r.prefill_flops / r.prefill_bytes},
                  {"bound_s", r.bound_ttft_s}};
  j["decode"] = decode ? nlohmann::json{{"flops", r.decode_flops}, {"bytes", r.decode_bytes},
                                         {"intensity", r.decode_flops / r.decode_bytes}, {"bound_s", r.bound_tpot_s},
                                         {"speed_of_light_s", r.decode_speed_of_light_s}}
                       : nlohmann::json(nullptr);
  j["bound_ttft_s"] = r.bound_ttft_s;
  j["bound_tpot_s"] = number_or_null(decode, r.bound_tpot_s);
  j["bound_total_s"] = r.bound_total_s;
  j["bound_throughput_tok_s"] = static_cast<double>(e.batch * e.generate) / r.bound_total_s;
  j["bound_decode_tok_s"] = number_or_null(decode, static_cast<double>(e.batch) / r.bound_tpot_s);
  j["decode_speed_of_light_s"] = number_or_null(decode, r.decode_speed_of_light_s);
  j["prefill_intensity"] = r.prefill_flops / r.prefill_bytes;
  j["decode_intensity"] = number_or_null(decode, r.decode_flops / r.decode_bytes);
  j["ops"] = nlohmann::json::array();
  for (const OpSummary& o : summarize_ops(r)) {
    j["ops"].push_back({{"name", o.name}, {"phase", o.phase}, {"class", o.op_class}, {"count", o.count}, {"flops", o.flops},
                        {"bytes", o.bytes}, {"intensity", o.intensity()}, {"bound_time_s", o.bound_s}, {"roof", o.roof}});
  }
  return versioned(std::move(j));
}

const std::vector<std::string> kOpInstanceColumns = {
    "phase", "step", "weight", "layer", "name", "class", "flops", "bytes", "intensity", "start_s", "end_s",
    "sim_time_s", "bound_time_s", "roof", "sim_bytes_read", "sim_bytes_written"};

nlohmann::json op_instance_records(const ExperimentResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const OpInstance& o : r.ops) {
    rows.push_back({{"phase", o.step == 0 ? "prefill" : "decode"}, {"step", o.step}, {"weight", o.weight},
                    {"layer", o.op->layer}, {"name", o.op->name}, {"class", o.op->op_class}, {"flops", o.bound.flops},
                    {"bytes", o.bound.bytes}, {"intensity", o.bound.intensity}, {"start_s", to_seconds(o.result.start_ps)},
                    {"end_s", to_seconds(o.result.end_ps)}, {"sim_time_s", o.result.seconds()},
                    {"bound_time_s", o.bound.bound_time_s}, {"roof", roof_name(o.bound.roof)},
                    {"sim_bytes_read", o.result.bytes_read}, {"sim_bytes_written", o.result.bytes_written}});
  }
  return rows;
}

nlohmann::json op_record(const SimulatedOp& o) {
  return {{"name", o.spec.name},
          {"flops", o.cost.flops},
          {"bytes", o.cost.bytes()},
          {"intensity", o.bound.intensity},
          {"sim_time_s", o.result.seconds()},
          {"bound_time_s", o.bound.bound_time_s},
          {"achieved_flops", o.achieved_flops()},
          {"achieved_bytes_per_s", static_cast<double>(o.result.bytes_read + o.result.bytes_written) / o.result.seconds()},
          {"roof_flops", o.bound.attainable_flops},
          {"percent_of_roof", o.percent_of_roof()},
          {"roof", roof_name(o.bound.roof)},
          {"sim_flops", o.result.flops},
          {"sim_bytes_read", o.result.bytes_read},
          {"sim_bytes_written", o.result.bytes_written},
          {"steps", o.result.steps},
          {"plan", o.result.plan},
          {"events", o.result.events}};
}

namespace {
void add_speed(nlohmann::json& j, const SimulationSpeed& s) {
  j["events"] = s.events;
  j["server_jobs"] = s.server_jobs;
  j["wall_s"] = s.wall_s;
}
}  // namespace

nlohmann::json single_op_json(const OpsRunResult& r) {
  nlohmann::json j = op_record(r.ops.at(0));
  j["hardware"] = r.hw.name;
  j["ideal"] = r.ideal;
  add_speed(j, r.speed);
  return versioned(std::move(j));
}

CallTotals call_totals(const OpsRunResult& r) {
  CallTotals t;
  t.sim_s = to_seconds(r.ops.back().result.end_ps - r.ops.front().result.start_ps);
  for (const SimulatedOp& o : r.ops) t.bounds_s += o.bound.bound_time_s;
  return t;
}

nlohmann::json call_json(const OpsRunResult& r) { return call_json(r, call_totals(r)); }

nlohmann::json call_json(const OpsRunResult& r, const CallTotals& totals) {
  nlohmann::json j;
  j["hardware"] = r.hw.name;
  j["ideal"] = r.ideal;
  j["ops"] = nlohmann::json::array();
  for (const SimulatedOp& o : r.ops) j["ops"].push_back(op_record(o));
  j["sim_time_s"] = totals.sim_s;
  j["bounds_sum_s"] = totals.bounds_s;
  add_speed(j, r.speed);
  return versioned(std::move(j));
}

nlohmann::json to_json(const RooflineSweepResult& r) {
  nlohmann::json j;
  j["hardware"] = r.run.hw.name;
  j["ideal"] = r.run.ideal;
  j["dtype"] = std::string(dtype_name(r.dtype));
  j["points"] = nlohmann::json::array();
  for (const auto& o : r.run.ops) j["points"].push_back(op_record(o));
  j["emergent_ridge"] = r.knee.ridge();
  j["analytic_ridge"] = r.analytic.ridge();
  j["emergent_bandwidth"] = r.knee.bandwidth;
  j["emergent_peak_flops"] = r.knee.peak_flops;
  add_speed(j, r.run.speed);
  return versioned(std::move(j));
}

nlohmann::json to_json(const CollectiveExperimentResult& r) {
  const CollectiveSpec& spec = r.sim.spec;
  return versioned({{"kind", "collective"}, {"settings", collective_settings_json(r.setup)}, {"hardware", r.hw.name},
                    {"topology", r.sim.topology.name()}, {"chips", r.sim.topology.chips()},
                    {"op", collective_kind_name(spec.kind)}, {"algorithm", collective_algo_name(spec.algo)},
                    {"bytes", spec.bytes}, {"group", r.members}, {"concurrent", r.concurrent},
                    {"sim_time_s", r.sim.sim_time_s}, {"bound_time_s", r.sim.bound_time_s}, {"algbw", r.sim.algbw},
                    {"busbw", r.sim.busbw}, {"events", r.sim.events}, {"wall_s", r.sim.wall_s},
                    {"peak_memory_bytes", r.peak_memory_bytes}, {"links", link_records(r.sim.links, r.sim.sim_time_s)}});
}

nlohmann::json case_result_json(const PublicCase& c, const ExperimentResult& r) {
  const double sim = case_metric(c, r);
  return versioned({{"id", c.id}, {"metric", c.metric}, {"sim", sim}, {"reference", c.reference}, {"unit", c.unit},
                    {"error", sim / c.reference - 1}, {"source", c.source}, {"wall_s", r.wall_s}});
}

std::string records_csv(const nlohmann::json& records, std::vector<std::string> columns) {
  if (columns.empty() && !records.empty()) {
    for (const auto& [key, value] : records.front().items()) {
      if (!value.is_structured()) columns.push_back(key);
    }
  }
  std::ostringstream os;
  os.precision(9);
  for (std::size_t c = 0; c < columns.size(); ++c) os << (c ? "," : "") << columns[c];
  os << "\n";
  for (const auto& row : records) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (c) os << ",";
      auto it = row.find(columns[c]);
      if (it != row.end()) write_csv_cell(os, *it);
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace roofsim
