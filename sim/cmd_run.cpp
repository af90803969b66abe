// `roofsim run`: an inference experiment, simulated op by op, beside its analytic bounds.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "core/error.hpp"
#include "core/format.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "sim/experiment.hpp"
#include "sim/output.hpp"
#include "sim/trace.hpp"
#include "validation/analytic.hpp"

namespace roofsim {

namespace {

struct RunOptions {
  std::string experiment_file;
  std::string hw, attention;
  ExperimentFlags x;
  std::int64_t decode_stride = 0, tp = 1, pp = 1, microbatches = 0, ep = 1;
  std::string topology;
  int trace_steps = 2;
  bool ideal = false;
  std::string launch;
  std::string json, csv, trace;
  int top = 12;
};

// Ops summed over layers and steps, by phase and name ("layer7.qkv" counts as "qkv").
struct OpSummary {
  std::string phase, name, op_class;
  double count = 0;  // instances, interpolated decode steps included
  double flops = 0, bytes = 0, sim_s = 0, bound_s = 0;
  double sim_bytes = 0, padded_flops = 0;  // what the simulation moved and spent
  std::string roof;
  double intensity() const { return bytes > 0 ? flops / bytes : 0.0; }
};

// "mb3.layer7.qkv" -> "qkv": micro-batch and layer prefixes dropped.
std::string base_name(std::string name) {
  for (const char* prefix : {"mb", "layer"}) {
    auto dot = name.find('.');
    if (name.rfind(prefix, 0) == 0 && dot != std::string::npos) name = name.substr(dot + 1);
  }
  return name;
}

std::vector<OpSummary> summarize(const ExperimentResult& r) {
  std::map<std::pair<std::string, std::string>, OpSummary> by_key;
  std::vector<std::pair<std::string, std::string>> order;
  for (const OpInstance& o : r.ops) {
    const std::string phase = o.step == 0 ? "prefill" : "decode";
    auto key = std::make_pair(phase, base_name(o.op->name));
    auto [it, fresh] = by_key.try_emplace(key);
    if (fresh) order.push_back(key);
    OpSummary& s = it->second;
    s.phase = phase;
    s.name = key.second;
    s.op_class = o.op->op_class;
    s.count += o.weight;
    s.flops += o.weight * o.bound.flops;
    s.bytes += o.weight * o.bound.bytes;
    s.sim_s += o.weight * o.result.seconds();
    s.bound_s += o.weight * o.bound.bound_time_s;
    s.sim_bytes += o.weight * static_cast<double>(o.result.bytes_read + o.result.bytes_written);
    s.padded_flops += o.weight * o.result.padded_flops;
    s.roof = o.op->is_collective ? "link" : (o.result.near_memory ? "near-memory " : "") + roof_name(o.bound.roof);
  }
  std::vector<OpSummary> out;
  for (const auto& k : order) out.push_back(by_key[k]);
  return out;
}

std::string percent(double bound, double sim) { return format_fixed(100.0 * bound / sim, 1) + "%"; }

void print_report(std::ostream& os, const ExperimentResult& r, const std::vector<OpSummary>& ops, int top) {
  const Experiment& e = r.setup;
  const std::int64_t chips = e.tp * e.pp * e.ep;
  std::string parallel;
  for (const auto& [n, what] : {std::pair{e.tp, "tensor parallel "}, {e.ep, "expert parallel "}, {e.pp, "pipeline "}}) {
    if (n > 1) parallel += (parallel.empty() ? "" : " x ") + std::string(what) + std::to_string(n);
  }
  os << "roofsim run: " << r.model.name << " on " << (chips > 1 ? std::to_string(chips) + " x " : "") << r.hw.description
     << (chips > 1 ? " (" + r.topology + ", " + parallel + ")" : "") << (e.ideal ? " (ideal)" : "")
     << ", simulated\n\n"
     << "setup    batch " << e.batch << ", prompt " << e.prompt << ", generate " << e.generate << "; weights "
     << dtype_name(e.precision.weights) << ", activations " << dtype_name(e.precision.activations) << ", KV "
     << dtype_name(e.precision.kv) << "; attention " << attention_name(e.attention)
     << "; launch " << (e.launch_per_op ? "per op" : "as a graph") << " (" << e.source << ")\n"
     << "memory   " << (chips > 1 ? "per chip " : "") << format_si(r.memory.total(), "B", 2) << " of " << format_si(r.hw.hbm.capacity_bytes, "B", 2)
     << " HBM: weights " << format_si(r.memory.weights, "B", 2) << ", KV cache "
     << format_si(r.memory.kv_cache, "B", 2) << ", activations " << format_si(r.memory.activations, "B", 2) << "\n\n";
  TextTable t({"metric", "simulated", "analytic bound", "% of bound"});
  t.add_row({"time to first token", format_seconds(r.ttft_s), format_seconds(r.bound_ttft_s), percent(r.bound_ttft_s, r.ttft_s)});
  if (r.decode_steps > 0) {
    t.add_row({"time per output token", format_seconds(r.tpot_s), format_seconds(r.bound_tpot_s), percent(r.bound_tpot_s, r.tpot_s)});
    t.add_row({"decode tokens/s", format_fixed(static_cast<double>(e.batch) / r.tpot_s, 1),
               format_fixed(static_cast<double>(e.batch) / r.bound_tpot_s, 1), percent(r.bound_tpot_s, r.tpot_s)});
  }
  t.add_row({"throughput tokens/s", format_fixed(r.throughput_tok_s(), 1),
             format_fixed(static_cast<double>(e.batch * e.generate) / r.bound_total_s, 1), percent(r.bound_total_s, r.total_s)});
  t.add_row({"total", format_seconds(r.total_s), format_seconds(r.bound_total_s), percent(r.bound_total_s, r.total_s)});
  t.print(os);
  if (r.decode_steps + 1 > static_cast<int>(r.simulated_steps.size())) {
    os << "\ndecode steps simulated: " << r.simulated_steps.size() - 1 << " of " << r.decode_steps
       << ", the others interpolated linearly in context length (--decode-stride 1 simulates all)\n";
  }
  if (r.decode_steps > 0) {
    os << "\ndecode speed of light (weights + KV cache read / bandwidth): " << format_seconds(r.decode_speed_of_light_s)
       << " per step; decode intensity " << format_fixed(r.decode_flops / r.decode_bytes, 1) << " FLOP/B, prefill "
       << format_fixed(r.prefill_flops / r.prefill_bytes, 1) << " FLOP/B (ridge "
       << format_fixed(roofline_for(r.hw, e.precision.activations).ridge(), 1) << ")\n";
  }
  if (chips > 1) {
    os << "\ncommunication: prefill " << format_seconds(r.prefill_comm_s) << " in collectives and sends, "
       << format_seconds(r.prefill_exposed_comm_s) << " of it exposed (no compute overlapping)";
    if (r.decode_steps > 0) {
      os << "; decode " << format_seconds(r.decode_comm_s) << " per step, " << format_seconds(r.decode_exposed_comm_s)
         << " exposed";
    }
    os << "\n";
    std::vector<Fabric::LinkUse> links = r.links;
    std::stable_sort(links.begin(), links.end(), [](const auto& a, const auto& b) { return a.busy > b.busy; });
    os << "busiest links: ";
    for (std::size_t i = 0; i < links.size() && i < 4; ++i) {
      os << (i ? ", " : "") << links[i].name << " " << format_fixed(100.0 * to_seconds(links[i].busy) / r.total_s, 1) << "%";
    }
    os << " of the run\n";
  }
  std::vector<OpSummary> sorted = ops;
  std::stable_sort(sorted.begin(), sorted.end(), [](const OpSummary& a, const OpSummary& b) { return a.sim_s > b.sim_s; });
  if (sorted.size() > static_cast<std::size_t>(top)) sorted.resize(static_cast<std::size_t>(top));
  os << "\ntop ops by simulated time (summed over layers and steps):\n";
  TextTable ot({"phase", "op", "count", "time", "share", "intensity", "binds", "% of roof"});
  for (const auto& o : sorted) {
    ot.add_row({o.phase, o.name, format_fixed(o.count, 0), format_seconds(o.sim_s),
                format_fixed(100.0 * o.sim_s / r.total_s, 1) + "%", format_fixed(o.intensity(), 1), o.roof,
                percent(o.bound_s, o.sim_s)});
  }
  ot.print(os);
  os << "\nevents " << r.events << " (" << r.server_jobs << " server jobs), wall time " << format_seconds(r.wall_s)
     << ", " << format_si(static_cast<double>(r.events) / std::max(r.wall_s, 1e-9), "events/s") << "\n";
}

nlohmann::json result_json(const ExperimentResult& r, const std::vector<OpSummary>& ops) {
  const Experiment& e = r.setup;
  nlohmann::json j;
  j["hardware"] = r.hw.name;
  j["model"] = r.model.name;
  j["batch"] = e.batch;
  j["prompt"] = e.prompt;
  j["generate"] = e.generate;
  j["weights_dtype"] = std::string(dtype_name(e.precision.weights));
  j["activations_dtype"] = std::string(dtype_name(e.precision.activations));
  j["kv_dtype"] = std::string(dtype_name(e.precision.kv));
  j["attention"] = attention_name(e.attention);
  j["ideal"] = e.ideal;
  j["memory_bytes"] = {{"weights", r.memory.weights}, {"kv_cache", r.memory.kv_cache},
                       {"activations", r.memory.activations}, {"total", r.memory.total()},
                       {"capacity", r.hw.hbm.capacity_bytes}};
  j["ttft_s"] = r.ttft_s;
  j["tpot_s"] = r.decode_steps > 0 ? nlohmann::json(r.tpot_s) : nlohmann::json(nullptr);
  j["throughput_tok_s"] = r.throughput_tok_s();
  j["decode_tok_s"] = r.decode_steps > 0 ? nlohmann::json(static_cast<double>(e.batch) / r.tpot_s) : nlohmann::json(nullptr);
  j["total_s"] = r.total_s;
  j["bound_ttft_s"] = r.bound_ttft_s;
  j["bound_tpot_s"] = r.decode_steps > 0 ? nlohmann::json(r.bound_tpot_s) : nlohmann::json(nullptr);
  j["bound_total_s"] = r.bound_total_s;
  j["decode_speed_of_light_s"] = r.decode_steps > 0 ? nlohmann::json(r.decode_speed_of_light_s) : nlohmann::json(nullptr);
  j["prefill_intensity"] = r.prefill_flops / r.prefill_bytes;
  j["decode_intensity"] = r.decode_steps > 0 ? nlohmann::json(r.decode_flops / r.decode_bytes) : nlohmann::json(nullptr);
  j["tp"] = e.tp;
  j["pp"] = e.pp;
  j["ep"] = e.ep;
  j["topology"] = r.topology;
  j["prefill_comm_s"] = r.prefill_comm_s;
  j["prefill_exposed_comm_s"] = r.prefill_exposed_comm_s;
  j["decode_comm_s"] = r.decode_comm_s;
  j["decode_exposed_comm_s"] = r.decode_exposed_comm_s;
  j["links"] = nlohmann::json::array();
  for (const auto& l : r.links) {
    j["links"].push_back({{"link", l.name}, {"bytes", l.bytes}, {"utilisation", to_seconds(l.busy) / r.total_s}});
  }
  j["decode_steps"] = r.decode_steps;
  j["decode_steps_simulated"] = r.simulated_steps.size() - 1;
  j["launch"] = e.launch_per_op ? "per_op" : "graph";
  j["events"] = r.events;
  j["server_jobs"] = r.server_jobs;
  j["wall_s"] = r.wall_s;
  j["ops"] = nlohmann::json::array();
  for (const auto& o : ops) {
    j["ops"].push_back({{"name", o.name}, {"phase", o.phase}, {"class", o.op_class}, {"count", o.count},
                        {"flops", o.flops}, {"bytes", o.bytes}, {"intensity", o.intensity()},
                        {"sim_time_s", o.sim_s}, {"bound_time_s", o.bound_s}, {"roof", o.roof},
                        {"sim_bytes", o.sim_bytes}, {"padded_flops", o.padded_flops}});
  }
  return j;
}

std::string csv_text(const ExperimentResult& r) {
  std::ostringstream os;
  os.precision(9);
  os << "phase,step,weight,layer,name,class,flops,bytes,intensity,start_s,end_s,sim_time_s,bound_time_s,roof,"
        "sim_bytes_read,sim_bytes_written\n";
  for (const OpInstance& o : r.ops) {
    os << (o.step == 0 ? "prefill" : "decode") << "," << o.step << "," << o.weight << "," << o.op->layer << "," << o.op->name << ","
       << o.op->op_class << "," << o.bound.flops << "," << o.bound.bytes << "," << o.bound.intensity << ","
       << to_seconds(o.result.start_ps) << "," << to_seconds(o.result.end_ps) << "," << o.result.seconds() << ","
       << o.bound.bound_time_s << "," << roof_name(o.bound.roof) << "," << o.result.bytes_read << ","
       << o.result.bytes_written << "\n";
  }
  return os.str();
}

void run(const RunOptions& o, const CLI::App& cmd) {
  Experiment e;
  if (!o.experiment_file.empty()) e = load_experiment_file(o.experiment_file);
  // Flags given on the command line override the file.
  if (cmd.count("--hw")) e.hw = o.hw;
  if (cmd.count("--model")) e.model = o.x.model;
  if (cmd.count("--batch")) e.batch = o.x.batch;
  if (cmd.count("--prompt")) e.prompt = o.x.prompt;
  if (cmd.count("--gen")) e.generate = o.x.gen;
  if (cmd.count("--weights-dtype")) e.precision.weights = dtype_from_flag("--weights-dtype", o.x.weights);
  if (cmd.count("--activations-dtype")) e.precision.activations = dtype_from_flag("--activations-dtype", o.x.activations);
  if (cmd.count("--kv-dtype")) e.precision.kv = dtype_from_flag("--kv-dtype", o.x.kv);
  if (cmd.count("--attention")) e.attention = parse_attention(o.attention, "--attention");
  if (cmd.count("--ideal")) e.ideal = o.ideal;
  if (cmd.count("--launch")) e.launch_per_op = o.launch == "per_op";
  if (cmd.count("--decode-stride")) e.decode_stride = o.decode_stride;
  if (!o.trace.empty()) e.trace_steps = o.trace_steps;
  if (cmd.count("--tp")) e.tp = o.tp;
  if (cmd.count("--topology")) e.topology = o.topology;
  if (cmd.count("--pp")) e.pp = o.pp;
  if (cmd.count("--microbatches")) e.microbatches = o.microbatches;
  if (cmd.count("--ep")) e.ep = o.ep;
  if (cmd.count("--near-memory")) {
    e.near_memory = o.x.near_memory == "off" ? NearMemory::off : o.x.near_memory == "all" ? NearMemory::all : NearMemory::small_rows;
  }

  std::ostream& os = human_out(o.json);
  ExperimentResult r = run_experiment(e, &std::cerr);
  std::vector<OpSummary> ops = summarize(r);
  print_report(os, r, ops, o.top);
  if (!o.json.empty()) write_json(o.json, result_json(r, ops));
  if (!o.csv.empty()) write_text(o.csv, csv_text(r));
  if (!o.trace.empty()) write_trace(o.trace, r);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Simulate inference: prefill of the prompts, then decode token by token with a growing KV cache.\n"
             "With no arguments: Llama-3-8B, bf16, H100 SXM5, batch 1, 512-token prompt, 128 generated tokens.");
  cmd->add_option("EXPERIMENT", o->experiment_file, "Experiment .toml ([experiment] table); flags override it")
      ->check(CLI::ExistingFile);
  cmd->add_option("--hw", o->hw, "Hardware preset or .toml (default h100_sxm5)");
  add_experiment_flags(cmd, o->x);
  cmd->add_option("--attention", o->attention, "fused (flash attention on the matrix units: scores stay on chip), unfused (QK^T, softmax, AV; scores go through HBM) "
                  "or vector (decode attention on the vector units, per query head, as TensorRT-LLM 0.9's masked "
                  "multi-head attention kernel; prefill fused)")
      ->check(CLI::IsMember({"fused", "unfused", "vector"}));
  cmd->add_flag("--ideal", o->ideal, "Efficiency 1, zero latencies and overheads, datasheet clock");
  cmd->add_option("--launch", o->launch, "graph: each step is launched at once (CUDA graphs; default); per_op: the host "
                                         "launches op by op, costing the hardware's host launch interval when ops are short")
      ->check(CLI::IsMember({"graph", "per_op"}));
  cmd->add_option("--decode-stride", o->decode_stride, "Simulate every N-th decode step and interpolate the others "
                                                        "(default: at most 128 simulated steps)")->check(CLI::PositiveNumber);
  cmd->add_option("--tp", o->tp, "Tensor parallelism: split the model over N chips, all-reduce after the attention "
                                 "output projection and the MLP (default 1; on a ring or torus a group spanning whole "
                                 "leading dimensions, e.g. 4, 16 or 64 on 4x4x4, all-reduces on its own links, any "
                                 "other as a ring routed between its chips)")->check(CLI::PositiveNumber);
  cmd->add_option("--pp", o->pp, "Pipeline parallelism: the layers over N stages of --ep x --tp chips each, activations "
                                 "sent from stage to stage (default 1)")->check(CLI::PositiveNumber);
  cmd->add_option("--ep", o->ep, "Expert parallelism for MoE models: experts spread over N ranks of --tp chips, "
                                 "attention data parallel across them, tokens sent to their experts and back by "
                                 "all-to-all (on a ring or torus, each share routed dimension by dimension)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--microbatches", o->microbatches, "Micro-batches the batch is cut into for the pipeline (default: "
                                                     "--pp, or the most the batch divides into)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--topology", o->topology, "How the --tp x --ep x --pp chips are wired (stage-major, then EP rank, "
                                             "then TP rank): switch:N, a ring N, or a torus AxBxC (default: switch:N "
                                             "for NVLink, a near-cubic torus for ICI)");
  cmd->add_option("--top", o->top, "How many ops to list in the table (default 12)")->check(CLI::PositiveNumber);
  add_json_option(cmd, o->json);
  cmd->add_option("--csv", o->csv, "Write one row per op instance (every layer, every step) to FILE ('-' = standard output)");
  cmd->add_option("--trace", o->trace, "Write a Chrome trace-event JSON timeline to FILE (open it in Perfetto): one "
                                       "track per matrix unit, vector unit and HBM stack, and one of ops");
  cmd->add_option("--trace-steps", o->trace_steps, "Steps the trace covers: prefill and the first N-1 decode steps (default 2)")
      ->check(CLI::PositiveNumber);
  cmd->callback([o, cmd] { run(*o, *cmd); });
}

}  // namespace roofsim
