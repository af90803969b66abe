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
#include "sim/energy_report.hpp"
#include "sim/silicon_report.hpp"
#include "experiment/graph_drawing.hpp"
#include "experiment/inference.hpp"
#include "experiment/results.hpp"
#include "sim/output.hpp"
#include "sim/progress_line.hpp"
#include "experiment/trace.hpp"
#include "validation/analytic.hpp"

namespace roofsim {

namespace {

struct RunOptions {
  std::string experiment_file, from;
  ExperimentFlags x;
  int trace_steps = 2;
  std::uint64_t trace_max_events = 2000000;
  std::string json, csv, trace, graph;
  int graph_layers = 1;
  int top = 12;
};

std::string percent(double bound, double sim) { return format_fixed(100.0 * bound / sim, 1) + "%"; }

void print_report(std::ostream& os, const ExperimentResult& r, const std::vector<OpSummary>& ops, int top) {
  const Experiment& e = r.setup;
  const std::int64_t chips = e.tp * e.pp * e.ep;
  const std::string parallel = parallelism_name(e.tp, e.ep, e.pp);
  os << "roofsim run: " << r.model.name << " on " << (chips > 1 ? std::to_string(chips) + " x " : "") << r.hw.description
     << (chips > 1 ? " (" + r.topology + ", " + parallel + ")" : "") << (e.ideal ? " (ideal)" : "")
     << ", simulated\n\n"
     << "setup    batch " << e.batch << ", prompt " << e.prompt << ", generate " << e.generate << "; weights "
     << dtype_name(e.precision.weights)
     << (e.precision.experts ? " (experts " + std::string(dtype_name(e.precision.experts->weights)) + ")" : std::string())
     << ", activations " << dtype_name(e.precision.activations) << ", KV "
     << dtype_name(e.precision.kv) << "; attention " << attention_name(e.attention)
     << "; launch " << (e.launch == Launch::graph ? "as a graph" : e.launch == Launch::per_op ? "per op" : "per op in prefill, as a graph in decode")
     << (e.tp > 1 ? "; all-reduce " + e.allreduce : std::string()) << " (" << e.source << ")\n"
     << "memory   " << (chips > 1 ? "per chip " : "") << format_si(r.memory.total(), "B", 2) << " of " << format_si(r.hw.hbm.capacity_bytes, "B", 2)
     << " HBM: weights " << format_si(r.memory.weights, "B", 2) << ", KV cache "
     << format_si(r.memory.kv_cache, "B", 2) << ", activations " << format_si(r.memory.activations, "B", 2) << "\n";
  for (const std::string& note : r.notes) os << "note     " << note << "\n";
  os << "\n";
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
  print_energy(os, r);
  print_silicon(os, r);
  if (e.nodes > 0 || e.replicas > 1) {
    // Replicas exchange nothing in inference: the one simulated stands for each.
    os << "\nscale-out " << e.replicas << (e.replicas == 1 ? " replica" : " replicas") << " x " << chips << (chips == 1 ? " chip" : " chips")
       << " = " << r.total_chips() << " chips" << (e.nodes > 0 ? " on " + std::to_string(e.nodes) + (e.nodes == 1 ? " node" : " nodes") : std::string())
       << "; each replica serves its own batch and exchanges nothing, so one replica is simulated and stands for each\n"
       << "throughput per replica " << format_fixed(r.replica_throughput_tok_s(), 1) << " tokens/s"
       << (e.replicas > 1 ? ", all " + std::to_string(e.replicas) + " replicas " + format_fixed(r.total_throughput_tok_s(), 1) + " tokens/s" : std::string())
       << "\n";
  }
  if (r.decode_steps + 1 > static_cast<int>(r.simulated_steps.size())) {
    os << "\ndecode steps simulated: " << r.simulated_steps.size() - 1 << " of " << r.decode_steps
       << ", the others interpolated linearly in context length (--decode-stride 1 simulates all)\n";
  }
  if (r.decode_steps > 0) {
    const bool near = r.hw.pim.present && e.near_memory != NearMemory::off;
    os << "\ndecode speed of light (weights + KV cache read / bandwidth"
       << (near ? ", the near-memory units' GEMVs at their internal " + format_si(r.hw.pim_bandwidth(), "B/s", 2) : std::string())
       << "): " << format_seconds(r.decode_speed_of_light_s)
       << " per step; decode intensity " << format_fixed(r.decode_flops / r.decode_bytes, 1) << " FLOP/B, prefill "
       << format_fixed(r.prefill_flops / r.prefill_bytes, 1) << " FLOP/B (ridge "
       << format_fixed(roofline_for(r.hw, e.precision.activations).ridge(), 1) << ")\n";
    // Estimates of the form "all parameters x bytes / bandwidth" count the embedding table, which
    // a step does not read (it gathers one row per sequence): say what that difference is.
    if (chips == 1 && !r.model.tied_embeddings && r.hw.hbm.bandwidth > 0) {
      const double table = static_cast<double>(r.model.vocab) * static_cast<double>(r.model.hidden) * dtype_bytes(e.precision.weights);
      const double counted_s = r.decode_speed_of_light_s + table / r.hw.memory_bandwidth();
      os << "  the embedding table (" << format_si(table, "B", 2) << ") is not read: a step gathers one row per sequence; counting it, as "
         << "parameters x bytes / bandwidth estimates do, gives " << format_fixed(static_cast<double>(e.batch) / counted_s, 1)
         << " tokens/s at batch " << e.batch << "\n";
    }
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

// The trace of the traced steps, or of as many of them as --trace-max-events allows (saying so).
void write_trace(const RunOptions& o, const ExperimentResult& r) {
  const TraceLayout t(r);
  const int steps = t.steps_within(o.trace_max_events);
  if (steps < t.steps()) {
    std::cerr << "roofsim run: the trace of " << t.steps() << " steps would have " << t.events(t.steps())
              << " events, more than --trace-max-events " << o.trace_max_events << "; " << o.trace << " has "
              << (steps == 1 ? std::string("prefill only")
                            : "prefill and " + std::to_string(steps - 1) + (steps == 2 ? " decode step" : " decode steps"))
              << " (" << t.events(steps) << " events)\n";
  }
  write_text(o.trace, t.json(steps));
}

void run(const RunOptions& o, const CLI::App& cmd) {
  for (const auto& [path, flag] : {std::pair{o.json, "--json"}, {o.csv, "--csv"}, {o.trace, "--trace"}, {o.graph, "--graph"}}) {
    check_output_path(path, flag);
  }
  if (!o.graph.empty()) check_graph_path(o.graph, "--graph");
  Experiment e;
  if (!o.experiment_file.empty()) e = load_experiment_file(o.experiment_file);
  if (!o.from.empty()) set_settings_from_result(e, o.from);
  // Flags given on the command line override the file.
  apply_experiment_flags(o.x, cmd, e);
  if (!o.trace.empty()) e.trace_steps = o.trace_steps;

  std::ostream& os = human_out(o.json);
  // A setting that would do nothing here is refused (whatif may compare chips with and
  // without near-memory units, so the library lets it pass).
  if (e.near_memory == NearMemory::all && !(e.hardware ? *e.hardware : load_hardware(e.hw)).pim.present) {
    // Located at the experiment file's line when the file asked for it (as run_experiment does).
    const auto in_file = e.set_in_file.find("near_memory");
    throw InputError((in_file != e.set_in_file.end() ? in_file->second : std::string("${near_memory}")) + " all: " + e.hw +
                     " has no near-memory units (no [pim] table)");
  }
  ProgressLine progress("roofsim run", "simulated steps");
  RunControl control = progress.control();
  control.keep_every_op = !o.csv.empty();  // --csv writes every step's op records
  ExperimentResult r = run_experiment(e, control);
  progress.finish();
  print_report(os, r, summarize_ops(r), o.top);
  if (!o.json.empty()) write_json(o.json, to_json(r));
  if (!o.csv.empty()) write_text(o.csv, records_csv(op_instance_records(r), kOpInstanceColumns));
  if (!o.trace.empty()) write_trace(o, r);
  if (!o.graph.empty()) write_run_graph(r, o.graph_layers, o.graph, "--graph");
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Simulate inference: prefill of the prompts, then decode token by token with a growing KV cache.\n"
             "With no arguments: Llama-3-8B, bf16, H100 SXM5, batch 1, 512-token prompt, 128 generated tokens.");
  cmd->add_option("EXPERIMENT", o->experiment_file, "Experiment .toml ([experiment] table); flags override it")
      ->check(CLI::ExistingFile);
  cmd->add_option("--from", o->from, "Run again what a result records: the settings object of a roofsim run --json result "
                                     "(or the Python module's run() dict saved as JSON); flags override it")
      ->excludes(cmd->get_option("EXPERIMENT"));
  add_experiment_flags(cmd, o->x);
  cmd->add_option("--top", o->top, "How many ops to list in the table (default 12)")->check(positive_number());
  add_json_option(cmd, o->json);
  cmd->add_option("--csv", o->csv, "Write one row per op instance (every layer, every step) to FILE ('-' = standard output)");
  cmd->add_option("--trace", o->trace, "Write a Chrome trace-event JSON timeline to FILE (open it in Perfetto): a "
                                       "process per simulated chip with a track of ops, one per matrix unit, vector unit "
                                       "and HBM stack; in multi-chip runs a process of links");
  cmd->add_option("--trace-steps", o->trace_steps, "Steps the trace covers: prefill and the first N-1 decode steps simulated (default 2)")
      ->check(positive_number());
  cmd->add_option("--trace-max-events", o->trace_max_events,
                  "Most events a trace may have (default 2000000, about 175 MB of JSON): a trace of more keeps the "
                  "first steps that fit (saying so); one whose prefill alone has more is refused")
      ->check(positive_number());
  cmd->add_option("--graph", o->graph,
                  "Draw the operator graph to FILE: prefill and the first decode step side by side, each op with its shape, "
                  "FLOPs, bytes, intensity, simulated time and bound, filled by the roof that binds it; .dot (Graphviz text), "
                  ".svg, .png or .pdf (drawn by Graphviz's dot)");
  cmd->add_option("--graph-layers", o->graph_layers, "Decoder layers --graph draws op by op; the later ones are one box (default 1)")
      ->check(CLI::Range(1, 1000));
  cmd->callback([o, cmd] { run(*o, *cmd); });
}

}  // namespace roofsim
