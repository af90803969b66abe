// `roofsim validate`: a suite of simulations (single ops across the intensity range, decode and
// prefill, collectives, published cases, the user's own cases) compared with the analytic
// model and with measurements; a Markdown report with roofline charts and JSON; exit status 1
// when an invariant of the design breaks. The suite runs in the library (validation_suite).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <unistd.h>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/hardware.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"
#include "experiment/kernel_tables.hpp"
#include "experiment/results.hpp"
#include "experiment/validation_suite.hpp"
#include "experiment/plot.hpp"
#include "sim/progress_line.hpp"

namespace roofsim {

namespace {

struct ValidateOptions {
  bool quick = false;
  std::string cases, report = "validation-report.md", json;
  std::string kernels, hw = "h100_sxm5", limits, rows_csv;
  std::string hw_note;  // how the hardware was chosen when --hw was not given
};

// The GPU a folder of kernel tables was measured on, from its name as the tables are kept
// (validation/kernels/h100; aiconfigurator's systems: h100_sxm, h200_sxm, b200_sxm, ...), as a
// hardware preset; "" when the name says none.
std::string hardware_of_kernel_dir(const std::string& dir) {
  std::string name = std::filesystem::path(dir).lexically_normal().filename().string();
  if (name.empty()) name = std::filesystem::path(dir).lexically_normal().parent_path().filename().string();
  for (const auto& [prefix, preset] : {std::pair{"h100", "h100_sxm5"}, {"h200", "h200_sxm"}, {"b200", "b200"},
                                       {"gb200", "gb200_nvl72"}, {"a100", "a100_sxm4_80gb"}}) {
    const std::string p = prefix;
    if (name == p || name.rfind(p + "_", 0) == 0) return preset;
  }
  return "";
}

std::string markdown_report(const ValidationSuiteResult& r, const std::filesystem::path& report) {
  std::ostringstream md;
  md << "# roofsim validation report\n\n" << r.simulations << " simulations" << (r.quick ? " (quick suite)" : "") << ".\n\n";
  md << "## Invariants\n\n| invariant | holds | where it breaks |\n|---|---|---|\n";
  for (const auto& v : r.invariants) md << "| " << v.name << " | " << (v.holds ? "yes" : "**no**") << " | " << v.detail << " |\n";
  md << "\n## Single ops across the intensity range\n\n";
  for (const ValidationSweep& s : r.sweeps) {
    md << "### " << s.id << "\n\nemergent ridge " << format_fixed(s.result.knee.ridge(), 1) << " FLOP/B, analytic "
       << format_fixed(s.result.analytic.ridge(), 1) << " FLOP/B\n\n";
    if (s.ideal) md << "![roofline " << s.hw << "](" << report.stem().string() << "-" << s.hw << ".png)\n\n";
    md << "| op | intensity | simulated | bound | ratio | binding roof |\n|---|---|---|---|---|---|\n";
    for (const SimulatedOp& p : s.result.run.ops) {
      md << "| " << p.spec.name << " | " << format_fixed(p.bound.intensity, 1) << " | " << format_seconds(p.result.seconds())
         << " | " << format_seconds(p.bound.bound_time_s) << " | " << format_fixed(p.result.seconds() / p.bound.bound_time_s, 3)
         << " | " << roof_name(p.bound.roof) << " |\n";
    }
    md << "\n";
  }
  md << "## Inference\n\nThe gap between a run and its bound, op by op, from the simulation's own counts. Ops bound "
        "by compute: the sustained clock below the datasheet clock, array work spent on padding. Ops bound by memory: "
        "the achievable bandwidth fraction, bytes moved beyond each operand once. Every op: its launch, and the access "
        "latency of its first load and last write. Pipeline fill and tails: what remains in compute-bound and "
        "memory-bound ops (slightly negative where an op's latency overlapped another op). Collectives. Time outside "
        "any op (dependency stalls; negative when independent ops "
        "overlapped).\n\n"
        "| run | TTFT | bound | TPOT | bound | total / bound | clock | padding | bandwidth eff. | extra traffic | launch | "
        "latency | fill and tails (compute) | fill and tails (memory) | communication | outside ops |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const ValidationRun& v : r.runs) {
    const ExperimentResult& e = v.result;
    const RunGap& g = v.gap;
    const bool decode = e.decode_steps > 0;
    md << "| " << v.id << " | " << format_seconds(e.ttft_s) << " | " << format_seconds(e.bound_ttft_s) << " | "
       << (decode ? format_seconds(e.tpot_s) : "-") << " | " << (decode ? format_seconds(e.bound_tpot_s) : "-") << " | "
       << format_fixed(e.total_s / e.bound_total_s, 3) << " | " << format_seconds(g.compute_sustained_clock_s) << " | "
       << format_seconds(g.compute_tile_padding_s) << " | " << format_seconds(g.memory_bandwidth_efficiency_s) << " | "
       << format_seconds(g.memory_extra_traffic_s) << " | " << format_seconds(g.launch_s) << " | "
       << format_seconds(g.access_latency_s) << " | " << format_seconds(g.compute_pipeline_fill_and_tails_s) << " | "
       << format_seconds(g.memory_pipeline_fill_and_tails_s) << " | " << format_seconds(g.exposed_communication_s) << " | "
       << format_seconds(g.outside_ops_s) << " |\n";
  }
  md << "\n## Collectives\n\n| collective | simulated | closed form | ratio | bus bandwidth |\n|---|---|---|---|---|\n";
  for (const ValidationCollective& c : r.collectives) {
    const CollectiveResult& s = c.result.sim;
    md << "| " << c.id << " | " << format_seconds(s.sim_time_s) << " | " << format_seconds(s.bound_time_s) << " | "
       << format_fixed(s.sim_time_s / s.bound_time_s, 3) << " | " << format_si(s.busbw, "B/s", 1) << " |\n";
  }
  md << "\n## Measured cases\n\n| case | simulated | measured | error |\n|---|---|---|---|\n";
  for (const CaseOutcome& c : r.cases) {
    md << "| " << c.id << " | " << format_fixed(c.sim, 2) << " | " << format_fixed(c.reference, 2) << " " << c.unit << " | "
       << format_percent(c.error) << " |\n";
  }
  md << "\n| category | mean absolute error |\n|---|---|\n";
  for (const auto& [cat, v] : r.mape) md << "| " << cat << " | " << format_percent(v) << " |\n";
  return md.str();
}

std::string kernel_markdown(const KernelValidationResult& r, const std::string& chart) {
  std::ostringstream md;
  md << "# roofsim against measured kernels\n\n" << r.simulated_rows() << " rows of " << r.dir << " simulated on "
     << r.hw << ". Error = simulated / measured - 1 (positive: roofsim is slower than the kernel).\n\n"
     << "![simulated vs measured](" << chart << ")\n\n"
     << "| family | rows | MAPE | median signed error | measured >= 2x simulated |\n|---|---|---|---|---|\n";
  for (const KernelFamilyResult& f : r.families) {
    if (f.rows.empty()) {
      md << "| " << f.family << " | " << f.not_simulated << " | not simulated: " << f.not_simulated_reason << " | | |\n";
    } else {
      md << "| " << f.family << " | " << f.rows.size() << " | " << format_percent(f.overall.mape) << " | "
         << format_signed_percent(f.overall.median_signed) << " | " << f.overall.measured_twice_simulated << " |\n";
    }
  }
  if (!r.skipped.empty()) {
    md << "\nSkipped files:\n\n";
    for (const SkippedTable& s : r.skipped) md << "- `" << s.file << "`: " << s.reason << "\n";
  }
  for (const KernelFamilyResult& f : r.families) {
    if (f.rows.empty()) continue;
    md << "\n## " << f.family << " (" << f.file << ")\n\n| size | rows | MAPE | median signed error | measured >= 2x simulated |\n"
       << "|---|---|---|---|---|\n";
    for (const KernelErrorStats& b : f.buckets) {
      md << "| " << b.name << " | " << b.rows << " | " << format_percent(b.mape) << " | " << format_signed_percent(b.median_signed) << " | "
         << b.measured_twice_simulated << " |\n";
    }
    for (const KernelErrorStats& c : f.by_tuning_cache) {
      md << "| " << c.name << " tuning cache | " << c.rows << " | " << format_percent(c.mape) << " | " << format_signed_percent(c.median_signed)
         << " | " << c.measured_twice_simulated << " |\n";
    }
    // MoE rows say which tuning cache their benchmark could load instead (docs/calibration.md).
    const bool cache = !f.rows.empty() && !f.rows.front().tuning_cache.empty();
    md << "\nWorst rows (reads: where the benchmark's call found its operands, the L2 or HBM"
       << (cache ? "; tuning cache: own, or foreign when a case with another top-k, TP or EP may have written the cache file its "
                   "benchmark loaded"
                 : "")
       << "):\n\n"
       << "| row | shape | " << (cache ? "tuning cache" : "reads") << " | measured | simulated | error |\n|---|---|---|---|---|---|\n";
    for (const KernelRowResult* w : worst_rows(f, 10)) {
      md << "| " << w->source << " | " << w->label << " | " << (cache ? w->tuning_cache : w->reads) << " | "
         << format_seconds(w->measured_s) << " | " << format_seconds(w->simulated_s) << " | " << format_signed_percent(w->error()) << " |\n";
    }
  }
  return md.str();
}

// `validate --kernels DIR`: every row of the measured tables, simulated and summarised.
void run_kernel_validation(const ValidateOptions& o, bool report_given) {
  for (const auto& [path, flag] : {std::pair{o.json, "--json"}, {o.rows_csv, "--rows-csv"}}) check_output_path(path, flag);
  const std::string report_path = report_given ? o.report : "kernel-validation-report.md";
  const std::filesystem::path report(report_path);
  const std::filesystem::path chart_dir = report.parent_path().empty() ? "." : report.parent_path();
  std::error_code ec;
  std::filesystem::create_directories(chart_dir, ec);
  if (ec) throw InputError(report_path + ": cannot create folder " + chart_dir.string() + " (" + ec.message() + ")");
  const KernelTableChips chips = kernel_table_chips(o.hw);
  if (!o.hw_note.empty()) std::cerr << "roofsim: validate --kernels: " << o.hw_note << "\n";
  ProgressLine line("validate --kernels", "rows");
  const KernelValidationResult r = validate_kernel_tables(o.kernels, chips, line.control());
  line.finish();

  std::vector<MeasuredSeries> series;
  for (const KernelFamilyResult& f : r.families) {
    if (f.rows.empty()) continue;
    MeasuredSeries s{f.family, {}};
    for (const KernelRowResult& row : f.rows) s.points.emplace_back(row.measured_s, row.simulated_s);
    series.push_back(s);
  }
  const std::string chart = report.stem().string() + ".png";
  if (!series.empty()) {
    write_measured_vs_simulated_plot((chart_dir / chart).string(), "roofsim " + r.hw + " vs measured kernels", series);
  }
  write_text(report_path, kernel_markdown(r, chart));
  if (!o.rows_csv.empty()) write_text(o.rows_csv, records_csv(kernel_row_records(r)));

  std::ostream& os = human_out(o.json);
  os << r.simulated_rows() << " measured kernel rows simulated on " << r.hw << " (error = simulated / measured - 1)\n\n";
  TextTable t({"family", "size", "rows", "MAPE", "median error", "meas >= 2x sim"});
  for (const KernelFamilyResult& f : r.families) {
    if (f.rows.empty()) {
      t.add_row({f.family, "", std::to_string(f.not_simulated), "-", "not simulated", ""});
      continue;
    }
    t.add_row({f.family, "all", std::to_string(f.rows.size()), format_percent(f.overall.mape), format_signed_percent(f.overall.median_signed),
               std::to_string(f.overall.measured_twice_simulated)});
    for (const KernelErrorStats& b : f.buckets) {
      t.add_row({"", b.name, std::to_string(b.rows), format_percent(b.mape), format_signed_percent(b.median_signed), std::to_string(b.measured_twice_simulated)});
    }
  }
  t.print(os);
  for (const KernelFamilyResult& f : r.families) {
    if (f.rows.empty()) os << f.family << ": " << f.not_simulated_reason << "\n";
    else if (f.not_simulated > 0) os << f.family << ": " << f.not_simulated << " more rows not simulated: " << f.not_simulated_reason << "\n";
  }
  for (const SkippedTable& s : r.skipped) os << "skipped " << s.file << ": " << s.reason << "\n";
  // Which stack's kernel parameters each table ran with (configs/stacks [hardware]).
  std::map<std::string, std::string> files_by_stack;
  for (const auto& [file, stack] : r.table_stacks) files_by_stack[stack] += (files_by_stack[stack].empty() ? "" : ", ") + file;
  for (const auto& [stack, files] : files_by_stack) os << files << ": with the " << stack << " stack's kernel parameters (configs/stacks/" << stack << ".toml [hardware])\n";
  std::size_t from_l2 = 0;
  for (const KernelFamilyResult& f : r.families) {
    for (const KernelRowResult& row : f.rows) from_l2 += row.reads == "l2";
  }
  if (from_l2 > 0) {
    os << from_l2 << " rows read their operands from the L2, where their benchmark kept them (weight copies, input and output within "
       << "onchip.l2.resident_share of it; --rows-csv column reads)\n";
  }
  // MoE rows by whether their benchmark could find tuned tactics (docs/calibration.md).
  TextTable caches({"family", "tuning cache", "rows", "MAPE", "median error", "meas >= 2x sim"});
  bool any_cache = false;
  for (const KernelFamilyResult& f : r.families) {
    for (const KernelErrorStats& c : f.by_tuning_cache) {
      any_cache = true;
      caches.add_row({f.family, c.name, std::to_string(c.rows), format_percent(c.mape), format_signed_percent(c.median_signed),
                      std::to_string(c.measured_twice_simulated)});
    }
  }
  if (any_cache) {
    os << "\nMoE rows by tuning cache (--rows-csv column tuning_cache). aiconfigurator's collector loads the first cache file\n"
       << "named {dtype}_{hidden}_{inter/TP}_{experts/EP}* and then skips tuning; the autotuner keys entries on top-k, TP\n"
       << "and EP. foreign: a case with another top-k, TP or EP has such a name, so the file loaded may hold no tactic for\n"
       << "the row and the runner takes its first one. fp8_block's runner ignores the cache.\n";
    caches.print(os);
  }
  os << "\nreport (worst rows per family, chart) written to " << report_path << "\n";
  if (!o.json.empty()) write_json(o.json, versioned(to_json(r)));
  if (!o.limits.empty()) {
    const std::vector<std::string> over = kernel_limit_violations(r, o.limits);
    for (const std::string& v : over) std::cerr << "roofsim: validate --kernels: " << v << "\n";
    if (!over.empty()) throw CLI::RuntimeError(1);
    os << "every family within its limit in " << o.limits << "\n";
  }
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Run the validation suite: simulated vs analytic for ops, inference and collectives on every "
                  "preset, published measurements, and your own cases; Markdown report + JSON; exit 1 if an "
                  "invariant breaks");
  cmd->add_flag("--quick", o->quick, "H100 and TPU v4 only, fewer points, the fast public cases without the held-out ones (for CI)");
  cmd->add_option("--cases", o->cases, "Your own cases: a CSV like validation/public_case_runs.csv with two more "
                                       "columns, reference and unit (metric: throughput, ttft or decode_tok_s)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--report", o->report, "Markdown report to write (charts go beside it)")->capture_default_str();
  CLI::Option* kernels =
      cmd->add_option("--kernels", o->kernels, "Instead of the suite: simulate every row of measured kernel tables in DIR "
                                               "(the format of validation/kernels/h100: gemm.csv, gemm_vllm.csv, "
                                               "gemm_weight_only.csv, nccl.csv, custom_allreduce_*.csv, context_attention.csv, "
                                               "generation_attention.csv, moe.csv) and report MAPE, median signed error and "
                                               "worst rows per family and size; any other CSV there is named as skipped");
  cmd->add_option("--hw", o->hw, "Hardware the --kernels rows are simulated on (a preset name or a .toml; default: the "
                                 "GPU DIR is named after - h100, h200, b200, gb200, a100, alone or as h200_sxm - else h100_sxm5)")
      ->needs(kernels);
  cmd->add_option("--limits", o->limits, "With --kernels: a CSV of family,max_mape_percent; exit 1 when a family exceeds "
                                         "its limit or is no longer simulated")
      ->check(CLI::ExistingFile)
      ->needs(kernels);
  cmd->add_option("--rows-csv", o->rows_csv, "With --kernels: write every simulated row (measured, simulated, error) as CSV")
      ->needs(kernels);
  kernels->excludes(cmd->get_option("--quick"))->excludes(cmd->get_option("--cases"));
  add_json_option(cmd, o->json);
  cmd->callback([o, cmd] {
    if (!o->kernels.empty()) {
      if (cmd->count("--hw") == 0) {
        const std::string named = hardware_of_kernel_dir(o->kernels);
        if (!named.empty()) o->hw = named;
        o->hw_note = named.empty() ? "hardware h100_sxm5 (the default: " + o->kernels + " names no GPU; give --hw for its own)"
                                   : "hardware " + named + " (named by " + o->kernels + "; --hw sets another)";
      }
      run_kernel_validation(*o, cmd->count("--report") > 0);
      return;
    }
    const std::filesystem::path report(o->report);
    const std::filesystem::path chart_dir = report.parent_path().empty() ? "." : report.parent_path();
    std::error_code ec;
    std::filesystem::create_directories(chart_dir, ec);
    if (ec) throw InputError(o->report + ": cannot create folder " + chart_dir.string() + " (" + ec.message() + ")");
    ProgressLine line("validate", "simulations");
    const ValidationSuiteResult r = run_validation_suite(o->quick, o->cases, line.control());
    line.finish();
    for (const ValidationSweep& s : r.sweeps) {
      if (!s.ideal) continue;
      std::vector<RooflinePoint> pts;
      for (const SimulatedOp& p : s.result.run.ops) pts.push_back({p.bound.intensity, p.achieved_flops()});
      const std::string chart = (chart_dir / (report.stem().string() + "-" + s.hw + ".png")).string();
      write_roofline_plot(chart, s.result.run.hw.description + " (ideal), bf16", s.result.analytic, pts, s.result.knee);
    }
    write_text(o->report, markdown_report(r, report));

    std::ostream& os = human_out(o->json);
    TextTable t({"invariant", "holds"});
    for (const auto& v : r.invariants) t.add_row({v.name, v.holds ? "yes" : "NO: " + v.detail});
    t.print(os);
    os << "\nmeasured cases, mean absolute error:";
    for (const auto& [cat, v] : r.mape) os << " " << cat << " " << format_percent(v);
    os << "\nreport written to " << o->report << "\n";
    if (!o->json.empty()) write_json(o->json, to_json(r));
    if (!r.all_hold()) throw CLI::RuntimeError(1);
  });
}

}  // namespace roofsim
