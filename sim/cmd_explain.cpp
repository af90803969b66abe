// `roofsim explain`: what the time above the roofline bound is made of, per phase and per op,
// measured by simulating the run again with one non-ideal cost of the chip taken away after
// another (experiment/gap_explain.hpp).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>

#include "core/error.hpp"
#include "core/format.hpp"
#include "experiment/gap_explain.hpp"
#include "sim/energy_report.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "sim/gap_table.hpp"
#include "sim/output.hpp"
#include "sim/progress_line.hpp"

namespace roofsim {

namespace {

struct ExplainOptions {
  std::string experiment_file;
  ExperimentFlags x;
  std::string json, csv;
  int top = 12;
};

void print_explanation(std::ostream& os, const GapExplanation& g, int top) {
  const ExperimentResult& r = g.result;
  const Experiment& e = r.setup;
  os << "roofsim explain: " << r.model.name << " on " << r.hw.description << ", batch " << e.batch << ", prompt "
     << e.prompt << ", generate " << e.generate << "\n\n"
     << "What the time above the roofline bound is made of. The run was simulated " << non_ideal_costs().size() + 1
     << " times: on the chip, then with one\ncost taken away after another in the order of the columns. A part is the "
        "time its removal saved, as a share\nof the gap (simulated - bound); what the ideal chip still spends above the "
        "bound is '" << kTilesAndOverlap << "'.\n\n";
  TextTable t(gap_header({"phase"}));
  t.add_row(gap_cells({"time to first token"}, g.prefill));
  if (r.decode_steps > 0) t.add_row(gap_cells({"time per output token"}, g.decode));
  t.print(os);
  // What the run cost in energy: the static share grows with every part of the gap above.
  print_energy(os, r);

  std::vector<OpGap> ops = g.ops;
  std::stable_sort(ops.begin(), ops.end(), [](const OpGap& a, const OpGap& b) { return a.time.gap() > b.time.gap(); });
  if (ops.size() > static_cast<std::size_t>(top)) ops.resize(static_cast<std::size_t>(top));
  os << "\nops with the largest gaps (summed over layers and steps):\n";
  TextTable ot(gap_header({"phase", "op", "binds"}));
  for (const OpGap& o : ops) ot.add_row(gap_cells({o.op.phase, o.op.name, o.op.roof}, o.time));
  ot.print(os);

  print_gap_causes(os);
}

void explain(const ExplainOptions& o, const CLI::App& cmd) {
  for (const auto& [path, flag] : {std::pair{o.json, "--json"}, {o.csv, "--csv"}}) check_output_path(path, flag);
  Experiment e;
  if (!o.experiment_file.empty()) e = load_experiment_file(o.experiment_file);
  apply_experiment_flags(o.x, cmd, e);
  std::ostream& os = human_out({{o.json, "--json"}, {o.csv, "--csv"}});
  ProgressLine progress("roofsim explain", "runs");
  GapExplanation g = explain_gaps(e, progress.control());
  progress.finish();
  print_explanation(os, g, o.top);
  if (!o.json.empty()) write_json(o.json, to_json(g));
  if (!o.csv.empty()) write_text(o.csv, records_csv(gap_records(g)));
}

}  // namespace

void add_explain_command(CLI::App& app) {
  auto o = std::make_shared<ExplainOptions>();
  CLI::App* cmd = app.add_subcommand(
      "explain",
      "Why a run is slower than its roofline bound: the run's flags, simulated on the chip and again with one cost\n"
      "taken away after another (launch, clock, dtype efficiency, HBM efficiency, latency, links) down to the ideal\n"
      "chip; each cost's share of the gap per phase and per op.");
  cmd->add_option("EXPERIMENT", o->experiment_file, "Experiment .toml ([experiment] table); flags override it")
      ->check(CLI::ExistingFile);
  add_experiment_flags(cmd, o->x);
  cmd->add_option("--top", o->top, "How many ops to list (default 12)")->check(positive_number());
  add_json_option(cmd, o->json);
  cmd->add_option("--csv", o->csv, "Write one row per op (phase, op, sim, bound, gap and each part in seconds) to FILE "
                                   "('-' = standard output)");
  cmd->callback([o, cmd] { explain(*o, *cmd); });
}

}  // namespace roofsim
