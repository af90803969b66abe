// `roofsim whatif`: one experiment on a base chip and on variants of it, side by side; or a
// sweep over a grid of settings. Every run happens in this process (experiment/whatif).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <fstream>
#include <memory>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/format.hpp"
#include "core/presets.hpp"
#include "experiment/energy.hpp"
#include "experiment/silicon.hpp"
#include "experiment/results.hpp"
#include "experiment/experiment_settings.hpp"
#include "experiment/whatif.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"
#include "experiment/plot.hpp"
#include "sim/progress_line.hpp"

namespace roofsim {

namespace {

struct WhatifOptions {
  std::string experiment, json, csv;
  ExperimentFlags x;
  std::vector<std::string> scale, set, variants, with, sweep;
  std::string shard, plot;
  std::vector<std::string> merge;
  int jobs = 1;
};

// The experiment the options describe: the file, then the flags over it.
Experiment base_experiment(const WhatifOptions& o, const CLI::App& cmd) {
  Experiment e;
  if (!o.experiment.empty()) e = load_experiment_file(o.experiment);
  if (cmd.count("--stack")) throw InputError("--stack: whatif compares hardware variants of one stack; run each stack with `roofsim run --stack`");
  apply_experiment_flags(o.x, cmd, e);
  return e;
}

void print_whatif(std::ostream& os, const WhatifResult& w) {
  const ExperimentResult& base = w.runs[0].result;
  os << "roofsim whatif: " << base.model.name << ", batch " << base.setup.batch << ", prompt " << base.setup.prompt
     << ", generate " << base.setup.generate << "\n\n";
  // Energy from each variant's events, where its chip has an [energy] table.
  TextTable t({"variant", "TTFT", "prefill speed-up", "TPOT", "decode speed-up", "tokens/s", "J/token", "tokens/J", "avg W/chip"});
  for (const WhatifRun& v : w.runs) {
    const bool decode = v.result.decode_steps > 0;
    const RunEnergy en = run_energy(v.result);
    const bool energy = en.modelled && en.per_output_token_j > 0;
    t.add_row({v.name, format_seconds(v.result.ttft_s), format_fixed(v.prefill_speedup, 2) + "x",
               decode ? format_seconds(v.result.tpot_s) : "-", decode ? format_fixed(v.decode_speedup, 2) + "x" : "-",
               format_fixed(v.result.throughput_tok_s(), 1), energy ? format_fixed(en.per_output_token_j, 3) : "-",
               energy ? format_fixed(1.0 / en.per_output_token_j, 2) : "-", en.modelled ? format_fixed(en.avg_power_w, 0) : "-"});
  }
  t.print(os);
  // Each variant's silicon and cost, where its chip has [area] (and [cost]) tables: what the
  // speed-up costs in mm2 and dollars.
  if (base.hw.area.present) {
    os << "\nsilicon and cost per chip ([area], [cost]):\n";
    TextTable st({"variant", "die", "chip cost", "tokens/s per 100 mm2", "tokens/s per 1,000 USD"});
    for (const WhatifRun& v : w.runs) {
      const RunSilicon s = run_silicon(v.result);
      if (!s.area_modelled) {
        st.add_row({v.name, "-", "-", "-", "-"});
        continue;
      }
      st.add_row({v.name, format_fixed(s.chip_area.total(), 0) + " mm2",
                  s.cost_modelled ? "USD " + format_fixed(s.chip_cost.total_usd(), 0) : "-",
                  format_fixed(100.0 * s.tokens_per_s_per_mm2, 1), s.cost_modelled ? format_fixed(s.tokens_per_s_per_kusd, 1) : "-"});
    }
    st.print(os);
  }
  // Each variant's rooflines: where its roofs are, and where near-memory units stop winning.
  os << "\nrooflines (bf16; decode intensity of the base run "
     << format_fixed(base.decode_steps > 0 ? base.decode_flops / base.decode_bytes : 0.0, 1) << " FLOP/B):\n";
  TextTable rt({"variant", "peak", "HBM bandwidth", "ridge", "power roof", "near-memory peak", "inside the stacks", "its ridge",
                "its roof meets the chip's slope at"});
  for (const WhatifRun& v : w.runs) {
    const HardwareSpec& h = v.result.hw;
    const double peak = h.matrix_peak_flops(DType::bf16);
    std::vector<std::string> row = {v.name, format_si(peak, "FLOP/s"), format_si(h.memory_bandwidth(), "B/s", 2),
                                    format_fixed(peak / h.memory_bandwidth(), 1) + " FLOP/B"};
    // The power limit's FLOP/s; where it holds the clock down, the clock it holds it to.
    const double power = h.power_roof_flops(DType::bf16);
    row.push_back(power <= 0 ? "-"
                  : format_si(power, "FLOP/s") + (h.energy.power_limited_clock_hz > 0
                                                      ? " (clock held at " + format_fixed(h.energy.power_limited_clock_hz / 1e6, 0) + " MHz)"
                                                      : ""));
    if (h.pim.present) {
      row.push_back(format_si(h.pim_peak_flops(), "FLOP/s"));
      row.push_back(format_si(h.pim_bandwidth(), "B/s", 2));
      row.push_back(format_fixed(h.pim_peak_flops() / h.pim_bandwidth(), 1) + " FLOP/B");
      row.push_back(format_fixed(h.pim_peak_flops() / h.memory_bandwidth(), 1) + " FLOP/B");
    } else {
      row.insert(row.end(), {"-", "-", "-", "-"});
    }
    rt.add_row(row);
  }
  rt.print(os);
  // Where the time goes, per op and phase, and how each variant changes it.
  os << "\nspeed-up per op (base time; each variant's speed-up):\n";
  std::vector<std::string> header = {"phase", "op", "base"};
  for (std::size_t i = 1; i < w.runs.size(); ++i) header.push_back(w.runs[i].name);
  TextTable ot(header);
  std::vector<std::vector<OpSummary>> ops;
  for (const WhatifRun& v : w.runs) ops.push_back(summarize_ops(v.result));
  // An op a variant does not run (fused away) shows "-"; one only variants run (a fused op), its
  // time there as "new".
  auto time_in = [&](std::size_t run, const OpSummary& op) {
    for (const OpSummary& vop : ops[run]) {
      if (vop.phase == op.phase && vop.name == op.name) return vop.sim_s;
    }
    return 0.0;
  };
  // Small ops show where a variant does not run them (what fusion folds away); new ones always.
  auto missing_somewhere = [&](const OpSummary& op) {
    for (std::size_t i = 1; i < w.runs.size(); ++i) {
      if (time_in(i, op) == 0) return true;
    }
    return false;
  };
  for (const OpSummary& op : ops[0]) {
    if (op.sim_s < 0.01 * base.total_s && !missing_somewhere(op)) continue;
    std::vector<std::string> row = {op.phase, op.name, format_seconds(op.sim_s)};
    for (std::size_t i = 1; i < w.runs.size(); ++i) {
      const double t_variant = time_in(i, op);
      row.push_back(t_variant > 0 ? format_fixed(op.sim_s / t_variant, 2) + "x" : "-");
    }
    ot.add_row(row);
  }
  std::vector<std::pair<std::string, std::string>> added;  // (phase, op) of the variants' own ops, once each
  for (std::size_t i = 1; i < w.runs.size(); ++i) {
    for (const OpSummary& op : ops[i]) {
      if (time_in(0, op) > 0) continue;
      if (std::find(added.begin(), added.end(), std::pair{op.phase, op.name}) != added.end()) continue;
      added.emplace_back(op.phase, op.name);
      std::vector<std::string> row = {op.phase, op.name, "-"};
      for (std::size_t j = 1; j < w.runs.size(); ++j) {
        const double t = time_in(j, op);
        row.push_back(t > 0 ? "new " + format_seconds(t) : "-");
      }
      ot.add_row(row);
    }
  }
  ot.print(os);
}

void plot_whatif(const std::string& path, const WhatifResult& w) {
  // Each variant's roofline, and its ops (summed over layers and steps) where they ran.
  const ExperimentResult& base = w.runs[0].result;
  std::vector<RooflineSeries> series;
  for (const WhatifRun& v : w.runs) {
    RooflineSeries rs{v.name, v.result.hw.matrix_peak_flops(base.setup.precision.activations), v.result.hw.memory_bandwidth(), {}};
    rs.power_flops = v.result.hw.power_roof_flops(base.setup.precision.activations);
    if (v.result.hw.pim.present && v.result.setup.near_memory != NearMemory::off) {
      rs.near_peak_flops = v.result.hw.pim_peak_flops();
      rs.near_bandwidth = v.result.hw.pim_bandwidth();
    }
    for (const OpSummary& op : summarize_ops(v.result)) {
      if (op.bytes > 0 && op.sim_s > 0) rs.ops.push_back({op.intensity(), op.flops / op.sim_s});
    }
    series.push_back(rs);
  }
  write_variant_rooflines_plot(path, "roofsim whatif: " + base.model.name + ", batch " + std::to_string(base.setup.batch), series);
}

// --with "fuse=elementwise,kv_dtype=fp8": run settings by name (`roofsim settings run`), each
// value checked as its setting takes it.
nlohmann::json run_settings_from_text(const std::string& text) {
  nlohmann::json out = nlohmann::json::object();
  for (const std::string& part : split_commas(text)) {
    const std::size_t eq = part.find('=');
    const std::string key = part.substr(0, eq);
    const RunSetting* s = eq == std::string::npos ? nullptr : find_run_setting(key);
    if (s == nullptr) {
      throw InputError("--with " + text + ": '" + part + "' is not SETTING=VALUE with a setting of `roofsim settings run`");
    }
    const std::string value = part.substr(eq + 1);
    if (const std::string why = setting_text_error(s->spec, value); !why.empty()) throw InputError("--with " + key + ": " + why);
    out[s->spec.name] = setting_value_from_text(s->spec, value);
  }
  return out;
}

void run_variants(const WhatifOptions& o, const CLI::App& cmd) {
  for (const auto& [path, flag] : {std::pair{o.json, "--json"}, {o.csv, "--csv"}, {o.plot, "--plot"}}) check_output_path(path, flag);
  if (o.scale.empty() && o.set.empty() && o.variants.empty() && o.with.empty()) {
    throw InputError("give at least one variant: --scale KEY=FACTOR, --set KEY=VALUE, --variant FILE or --with SETTING=VALUE");
  }
  const Experiment base = base_experiment(o, cmd);
  const HardwareDocument base_doc = HardwareDocument::load(base.hw);
  std::vector<WhatifVariant> variants = {{"base (" + base.hw + ")", base_doc.spec()}};
  auto derived = [&](const std::string& text, bool scale, const std::string& flag) {
    HardwareDocument doc = base_doc;
    const std::string name = apply_edits(doc, parse_hardware_edits(text, scale, flag), flag);
    HardwareSpec hw;
    try {
      hw = doc.spec();  // a variant that breaks the file's rules is refused here
    } catch (const InputError& err) {
      throw InputError(flag + " " + text + ": " + err.raw());
    }
    hw.name += " (" + name + ")";
    variants.push_back({name, hw});
  };
  for (const auto& text : o.with) variants.push_back({text, base_doc.spec(), run_settings_from_text(text)});
  for (const auto& s : o.scale) derived(s, true, "--scale");
  for (const auto& s : o.set) derived(s, false, "--set");
  for (const auto& f : o.variants) {
    try {
      variants.push_back({f, load_hardware(f)});
    } catch (const InputError& err) {
      // load_hardware names the file as ${hw}; here it came from --variant.
      const std::string raw = renamed_setting(err, "hw", "variant").raw();
      throw InputError(raw.find("${variant}") == std::string::npos ? "${variant} " + f + ": " + raw : raw);
    }
  }

  ProgressLine line("whatif", "variants");
  const WhatifResult w = run_whatif(base, variants, line.control());
  line.finish();
  std::ostream& os = human_out(o.json);
  print_whatif(os, w);
  if (!o.plot.empty()) {
    plot_whatif(o.plot, w);
    os << "plot written to " << o.plot << "\n";
  }
  const nlohmann::json j = to_json(w);
  if (!o.json.empty()) write_json(o.json, j);
  if (!o.csv.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    for (const WhatifRun& v : w.runs) {
      nlohmann::json row = to_json(v.result);
      row["variant"] = v.name;
      row["prefill_speedup"] = v.prefill_speedup;
      row["decode_speedup"] = v.decode_speedup;
      rows.push_back(row);
    }
    write_text(o.csv, records_csv(rows));
  }
}

void print_sweep(std::ostream& os, const SweepResult& r) {
  std::string keys;
  for (const auto& k : r.keys) keys += (keys.empty() ? "" : ",") + k;
  os << "roofsim whatif sweep of " << keys << "\n\n";
  std::vector<std::string> header = r.keys;
  for (const char* h : {"TTFT", "TPOT", "tokens/s", "decode intensity", "decode time compute-bound"}) header.push_back(h);
  TextTable t(header);
  for (const SweepPoint& p : r.points) {
    std::vector<std::string> row;
    for (double v : p.values) row.push_back(format_fixed(v, v == std::floor(v) || v >= 10 ? 0 : 2));
    if (!p.error.empty()) {
      row.push_back("skipped: " + p.error);
      t.add_row(row);
      continue;
    }
    row.insert(row.end(), {format_seconds(p.ttft_s), p.has_decode ? format_seconds(p.tpot_s) : "-",
                           format_fixed(p.throughput_tok_s, 1),
                           p.has_decode ? format_fixed(p.decode_intensity, 1) + " FLOP/B" : "-",
                           format_fixed(100 * p.decode_compute_share, 0) + "%"});
    t.add_row(row);
  }
  t.print(os);
}

// The chart's lines: the first key along x, a line per combination of the other keys' values
// (in the grid's order), the points that failed left out.
std::vector<SweepSeries> sweep_series(const SweepResult& r) {
  std::vector<SweepSeries> series;
  std::map<std::vector<double>, std::size_t> index;
  for (const SweepPoint& p : r.points) {
    if (!p.error.empty()) continue;
    const std::vector<double> others(p.values.begin() + 1, p.values.end());
    auto [it, added] = index.emplace(others, series.size());
    if (added) {
      SweepSeries s;
      for (std::size_t k = 1; k < r.keys.size(); ++k) {
        s.label += (k > 1 ? ", " : "") + r.keys[k] + " = " + format_general(p.values[k]);
      }
      series.push_back(s);
    }
    SweepSeries& s = series[it->second];
    s.x.push_back(p.values[0]);
    s.y1.push_back(p.throughput_tok_s);
    s.y2.push_back(100 * p.decode_compute_share);
  }
  return series;
}

void run_sweep_command(const WhatifOptions& o, const CLI::App& cmd) {
  for (const auto& [path, flag] : {std::pair{o.json, "--json"}, {o.csv, "--csv"}, {o.plot, "--plot"}}) check_output_path(path, flag);
  SweepResult r;
  if (!o.merge.empty()) {
    // Shards from separate runs (a cluster's jobs): their points, in grid order.
    std::vector<nlohmann::json> shards;
    for (const auto& f : o.merge) {
      std::ifstream in(f);
      if (!in) throw InputError("--merge " + f + ": cannot open file");
      try {
        shards.push_back(nlohmann::json::parse(in));
        if (!shards.back().contains("axes") || !shards.back().contains("points")) throw InputError("--merge " + f + ": not a whatif sweep JSON");
      } catch (const nlohmann::json::exception& e) {
        throw InputError("--merge " + f + ": not a whatif sweep JSON (" + e.what() + ")");
      }
    }
    try {
      r = merge_sweep_shards(shards);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(std::string("--merge: not a whatif sweep JSON (") + e.what() + ")");
    } catch (const InputError& e) {
      std::string files;
      for (const auto& f : o.merge) files += (files.empty() ? "" : ", ") + f;
      throw InputError("--merge " + files + ": " + e.raw());
    }
  } else {
    std::vector<SweepAxis> axes;
    for (const std::string& s : o.sweep) axes.push_back(parse_sweep_axis(s, "--sweep"));
    const auto [shard, shards] = o.shard.empty() ? std::pair{0, 1} : parse_shard(o.shard, "--shard");
    const Experiment base = base_experiment(o, cmd);
    ProgressLine line("sweep", "points");
    r = run_sweep_parallel(base, HardwareDocument::load(base.hw), axes, shard, shards, o.jobs, line.control());
    line.finish();
  }
  std::ostream& os = human_out(o.json);
  print_sweep(os, r);
  if (!o.plot.empty()) {
    write_sweep_plot(o.plot, "roofsim whatif: " + r.keys[0], r.keys[0], "throughput (tokens/s)", "decode time in compute-bound ops (%)",
                     sweep_series(r));
    os << "plot written to " << o.plot << "\n";
  }
  const nlohmann::json j = to_json(r);
  if (!o.json.empty()) write_json(o.json, j);
  if (!o.csv.empty()) write_text(o.csv, records_csv(j["points"]));
}

}  // namespace

void add_whatif_command(CLI::App& app) {
  auto o = std::make_shared<WhatifOptions>();
  CLI::App* cmd = app.add_subcommand(
      "whatif", "Run one experiment on a base chip and on variants of it (other chips, or other run settings), and show "
                "what changes; or sweep a grid.\n"
                "Every run flag works here (parallelism and topology included).\n"
                "Examples: roofsim whatif --scale hbm.bandwidth=2 --scale compute=2\n"
                "          roofsim whatif --batch 8 --with fuse=elementwise --with kv_dtype=fp8\n"
                "          roofsim whatif --model llama-3-70b --tp 8 --scale hbm.bandwidth=2\n"
                "          roofsim whatif --sweep batch=1:256:x4 --sweep hbm.bandwidth_gb_per_s=3350,6700");
  cmd->add_option("EXPERIMENT", o->experiment, "Experiment .toml (as for run)")->check(CLI::ExistingFile);
  cmd->add_option("--scale", o->scale, "A variant with KEY scaled by FACTOR (KEY=FACTOR[,KEY=FACTOR]); keys are the "
                                       "hardware file's paths, or compute, hbm.bandwidth, links.bandwidth, hbm.capacity; "
                                       "hbm.efficiency carries the tile and write efficiencies it bounds along (unless edited too)");
  cmd->add_option("--set", o->set, "A variant with KEY set to VALUE (KEY=VALUE[,KEY=VALUE]); as --scale, hbm.efficiency carries "
                                   "the efficiencies it bounds in proportion");
  cmd->add_option("--variant", o->variants, "A variant given as a hardware preset or .toml");
  cmd->add_option("--with", o->with,
                  "A variant with run settings changed, on the base hardware (SETTING=VALUE[,SETTING=VALUE]; any setting of "
                  "`roofsim settings run` but hw and model): a what-if of the software, e.g. --with fuse=elementwise, "
                  "--with kv_dtype=fp8, --with attention=unfused");
  add_experiment_flags(cmd, o->x);
  cmd->add_option("--sweep", o->sweep, "Instead of variants: a parameter over values, KEY=V1,V2,... or KEY=START:STOP:xFACTOR; "
                                       "KEY is " + or_list(experiment_count_names()) + " or a hardware key "
                                       "(e.g. hbm.bandwidth_gb_per_s=1000:8000:x2). Repeat for a grid of every combination; "
                                       "points that cannot run (do not fit, bad parallelism) are listed as skipped");
  cmd->add_option("--shard", o->shard, "With --sweep: run only points I, I+N, ... of the grid (I/N), to merge later with --merge");
  cmd->add_option("--merge", o->merge, "Merge the JSON of sweep shards (files) into one table, JSON and plot");
  cmd->add_option("--plot", o->plot, "Chart (.png/.svg): each variant's roofline with its ops; with --sweep or --merge, "
                                     "throughput and where the bottleneck sits over the first swept parameter");
  cmd->add_option("-j,--jobs", o->jobs, "With --sweep: simulate N points at once in worker processes (default 1: "
                                        "one after another in this process; the results are the same)")
      ->check(whole_number_between(1, 256));
  add_json_option(cmd, o->json);
  cmd->add_option("--csv", o->csv, "Write one row per variant or sweep point to FILE ('-' = standard output)");
  cmd->callback([o, cmd] {
    if (!o->sweep.empty() || !o->merge.empty()) {
      if (!o->scale.empty() || !o->set.empty() || !o->variants.empty() || !o->with.empty()) {
        throw InputError("--sweep and --merge do not combine with --scale, --set, --variant or --with");
      }
      run_sweep_command(*o, *cmd);
    } else {
      run_variants(*o, *cmd);
    }
  });
}

}  // namespace roofsim
