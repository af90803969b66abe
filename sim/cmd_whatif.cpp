// `roofsim whatif`: one experiment on a base chip and on variants of it, side by side. Each
// variant is a hardware file derived from the base (--scale, --set) or given (--variant), and
// runs as its own `roofsim run` process (SystemC simulates once per process), -j at a time.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/parse.hpp"
#include "core/config_reader.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/hardware.hpp"
#include "core/presets.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"
#include "sim/plot.hpp"
#include "sim/processes.hpp"

extern char** environ;

namespace roofsim {

namespace {

struct WhatifOptions {
  std::string experiment, hw = "h100_sxm5", json;
  ExperimentFlags x;
  std::vector<std::string> scale, set, variants;
  std::string sweep, shard, plot;
  std::vector<std::string> merge;
  bool ideal = false;
  int jobs = 2;
};

struct Variant {
  std::string name;      // what changed, for people
  std::string hw_file;   // the hardware file it runs on
  std::string json_file;
  nlohmann::json result;
  HardwareSpec hw;
};

// Friendly names for the knobs people turn most.
std::vector<std::string> key_paths(const std::string& key) {
  if (key == "compute") return {"matrix.macs_per_clock", "vector.flops_per_clock"};
  if (key == "hbm.bandwidth" || key == "bandwidth") return {"hbm.bandwidth_gb_per_s"};
  if (key == "links.bandwidth") return {"links.bandwidth_gb_per_s"};
  if (key == "hbm.capacity") return {"hbm.capacity_bytes"};
  return {key};
}

// Applies "key=value,key=value" to the document; `scale` multiplies instead of setting.
std::string apply(toml::table& doc, const std::string& spec, bool scale, const std::string& flag) {
  std::stringstream ss(spec);
  std::string item, label;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw InputError(flag + " '" + item + "': expected KEY=" + (scale ? "FACTOR" : "VALUE"));
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    const auto parsed = parse_number(value);
    if (!parsed) throw InputError(flag + " '" + item + "': '" + value + "' is not a number");
    const double number = *parsed;
    if (scale && !(number > 0)) throw InputError(flag + " '" + item + "': the factor must be positive");
    for (const std::string& path : key_paths(key)) {
      toml::node* node = doc.at_path(path).node();
      if (!node || !(node->is_integer() || node->is_floating_point())) {
        throw InputError(flag + " '" + item + "': the hardware file has no number at '" + path + "'");
      }
      const double old = node->is_integer() ? static_cast<double>(node->as_integer()->get()) : node->as_floating_point()->get();
      const double now = scale ? old * number : number;
      if (node->is_integer() && now == static_cast<double>(static_cast<std::int64_t>(now))) {
        *node->as_integer() = static_cast<std::int64_t>(now);
      } else {
        // Replace an integer with a float when the new value is fractional.
        auto parent_path = path.substr(0, path.rfind('.'));
        auto leaf = path.substr(path.rfind('.') + 1);
        toml::table* parent = parent_path == path ? &doc : doc.at_path(parent_path).as_table();
        parent->insert_or_assign(leaf, now);
      }
      if (toml::table* prov = doc["provenance"].as_table()) {
        prov->insert_or_assign(path, std::string("what-if: ") + (scale ? "scaled by " : "set to ") + value);
      }
    }
    label += (label.empty() ? "" : ", ") + key + (scale ? " x" : " = ") + value;
  }
  return label;
}

double number_or_zero(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

// `roofsim run ...` with the experiment options the user gave, except `skip` (swept).
std::vector<std::string> run_arguments(const WhatifOptions& o, const CLI::App& cmd, const std::string& skip) {
  std::vector<std::string> args = {self_path(), "run"};
  if (!o.experiment.empty()) args.push_back(o.experiment);
  for (const std::string& a : experiment_flag_arguments(o.x, cmd, skip)) args.push_back(a);
  if (o.ideal) args.push_back("--ideal");
  return args;
}

void run(const WhatifOptions& o, const CLI::App& cmd) {
  if (o.scale.empty() && o.set.empty() && o.variants.empty()) {
    throw InputError("give at least one variant: --scale KEY=FACTOR, --set KEY=VALUE or --variant FILE");
  }
  const std::string base_path = resolve_preset("hardware", o.hw);
  const std::string dir = "/tmp/roofsim_whatif_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::vector<Variant> variants(1);
  variants[0].name = "base (" + o.hw + ")";
  variants[0].hw_file = base_path;
  variants[0].json_file = dir + "/base.json";
  int n = 0;
  auto derived = [&](const std::string& spec, bool scale, const std::string& flag) {
    toml::table doc = ConfigTable::parse_file(base_path);
    Variant v;
    v.name = apply(doc, spec, scale, flag);
    v.hw_file = dir + "/variant" + std::to_string(++n) + ".toml";
    v.json_file = dir + "/variant" + std::to_string(n) + ".json";
    std::ofstream(v.hw_file) << doc << "\n";
    load_hardware_file(v.hw_file);  // a variant that breaks the file's rules is refused here
    variants.push_back(v);
  };
  for (const auto& s : o.scale) derived(s, true, "--scale");
  for (const auto& s : o.set) derived(s, false, "--set");
  for (const auto& f : o.variants) {
    load_hardware(f);
    Variant v;
    v.name = f;
    v.hw_file = resolve_preset("hardware", f);
    v.json_file = dir + "/variant" + std::to_string(++n) + ".json";
    variants.push_back(v);
  }

  // The same experiment for every variant, as `roofsim run` processes.
  const std::vector<std::string> common = run_arguments(o, cmd, "");
  std::vector<std::vector<std::string>> commands;
  for (const Variant& v : variants) {
    std::vector<std::string> c = common;
    for (const std::string& a : {std::string("--hw"), v.hw_file, std::string("--json"), v.json_file}) c.push_back(a);
    commands.push_back(c);
  }
  std::vector<std::string> logs;
  for (std::size_t i = 0; i < variants.size(); ++i) logs.push_back(dir + "/run" + std::to_string(i) + ".log");
  run_all(commands, logs, o.jobs, dir, [&](std::size_t i) { return "variant '" + variants[i].name + "'"; });
  for (Variant& v : variants) {
    std::ifstream f(v.json_file);
    v.result = nlohmann::json::parse(f);
    v.hw = load_hardware_file(v.hw_file);
  }
  std::filesystem::remove_all(dir);

  const nlohmann::json& base = variants[0].result;
  std::ostream& os = human_out(o.json);
  os << "roofsim whatif: " << base["model"].get<std::string>() << ", batch " << base["batch"] << ", prompt "
     << base["prompt"] << ", generate " << base["generate"] << "\n\n";
  TextTable t({"variant", "TTFT", "prefill speed-up", "TPOT", "decode speed-up", "tokens/s"});
  nlohmann::json out = {{"base", base}, {"variants", nlohmann::json::array()}};
  for (const Variant& v : variants) {
    const double ttft = number_or_zero(v.result, "ttft_s"), tpot = number_or_zero(v.result, "tpot_s");
    const double prefill_speedup = number_or_zero(base, "ttft_s") / ttft;
    const double decode_speedup = tpot > 0 ? number_or_zero(base, "tpot_s") / tpot : 0.0;
    t.add_row({v.name, format_seconds(ttft), format_fixed(prefill_speedup, 2) + "x", tpot > 0 ? format_seconds(tpot) : "-",
               tpot > 0 ? format_fixed(decode_speedup, 2) + "x" : "-", format_fixed(number_or_zero(v.result, "throughput_tok_s"), 1)});
    if (&v != &variants[0]) {
      out["variants"].push_back({{"name", v.name}, {"prefill_speedup", prefill_speedup}, {"decode_speedup", decode_speedup},
                                 {"result", v.result}});
    }
  }
  t.print(os);
  // Each variant's rooflines: where its roofs are, and where near-memory units stop winning.
  os << "\nrooflines (bf16; decode intensity of the base run "
     << format_fixed(number_or_zero(base, "decode_intensity"), 1) << " FLOP/B):\n";
  TextTable rt({"variant", "peak", "HBM bandwidth", "ridge", "near-memory peak", "inside the stacks", "its ridge",
                "its roof meets the chip's slope at"});
  for (const Variant& v : variants) {
    const HardwareSpec& h = v.hw;
    const double peak = h.matrix_peak_flops(DType::bf16);
    std::vector<std::string> row = {v.name, format_si(peak, "FLOP/s"), format_si(h.hbm.bandwidth, "B/s", 2),
                                    format_fixed(peak / h.hbm.bandwidth, 1) + " FLOP/B"};
    if (h.pim.present) {
      row.push_back(format_si(h.pim_peak_flops(), "FLOP/s"));
      row.push_back(format_si(h.pim_bandwidth(), "B/s", 2));
      row.push_back(format_fixed(h.pim_peak_flops() / h.pim_bandwidth(), 1) + " FLOP/B");
      row.push_back(format_fixed(h.pim_peak_flops() / h.hbm.bandwidth, 1) + " FLOP/B");
    } else {
      row.insert(row.end(), {"-", "-", "-", "-"});
    }
    rt.add_row(row);
  }
  rt.print(os);
  // Where the time goes, per op and phase, and how each variant changes it.
  os << "\nspeed-up per op (base time; each variant's speed-up):\n";
  std::vector<std::string> header = {"phase", "op", "base"};
  for (std::size_t i = 1; i < variants.size(); ++i) header.push_back(variants[i].name);
  TextTable ot(header);
  for (const auto& op : base["ops"]) {
    if (op["sim_time_s"].get<double>() < 0.01 * number_or_zero(base, "total_s")) continue;
    std::vector<std::string> row = {op["phase"], op["name"], format_seconds(op["sim_time_s"].get<double>())};
    for (std::size_t i = 1; i < variants.size(); ++i) {
      double t_variant = 0;
      for (const auto& vop : variants[i].result["ops"]) {
        if (vop["phase"] == op["phase"] && vop["name"] == op["name"]) t_variant = vop["sim_time_s"].get<double>();
      }
      row.push_back(t_variant > 0 ? format_fixed(op["sim_time_s"].get<double>() / t_variant, 2) + "x" : "-");
    }
    ot.add_row(row);
  }
  ot.print(os);
  if (!o.plot.empty()) {
    // Each variant's roofline, and its ops (summed over layers and steps) where they ran.
    DType act = DType::bf16;
    parse_dtype(base["activations_dtype"].get<std::string>(), act);
    std::vector<RooflineSeries> series;
    for (const Variant& v : variants) {
      RooflineSeries rs{v.name, v.hw.matrix_peak_flops(act), v.hw.hbm.bandwidth, {}};
      for (const auto& op : v.result["ops"]) {
        const double t = op["sim_time_s"].get<double>();
        if (op["bytes"].get<double>() > 0 && t > 0) rs.ops.push_back({op["intensity"].get<double>(), op["flops"].get<double>() / t});
      }
      series.push_back(rs);
    }
    write_variant_rooflines_plot(o.plot, "roofsim whatif: " + base["model"].get<std::string>() + ", batch " +
                                             std::to_string(base["batch"].get<int>()), series);
    os << "plot written to " << o.plot << "\n";
  }
  if (!o.json.empty()) write_json(o.json, out);
}

// "batch=1,8,64" or "batch=1:512:x2" (geometric) -> key and values.
std::pair<std::string, std::vector<double>> parse_sweep(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError("--sweep '" + text + "': expected KEY=V1,V2,... or KEY=START:STOP:xFACTOR");
  const std::string key = text.substr(0, eq), spec = text.substr(eq + 1);
  auto number = [&](const std::string& v) {
    const auto d = parse_number(v);
    if (!d || !(*d > 0)) throw InputError("--sweep '" + text + "': '" + v + "' is not a positive number");
    return *d;
  };
  std::vector<double> values;
  if (spec.find(':') != std::string::npos) {
    std::stringstream ss(spec);
    std::string a, b, f;
    std::getline(ss, a, ':');
    std::getline(ss, b, ':');
    std::getline(ss, f, ':');
    if (f.empty() || f[0] != 'x') throw InputError("--sweep '" + text + "': a range is START:STOP:xFACTOR");
    const double start = number(a), stop = number(b), factor = number(f.substr(1));
    if (factor <= 1) throw InputError("--sweep '" + text + "': the factor must exceed 1");
    for (double v = start; v <= stop * (1 + 1e-9) && values.size() < 1000; v *= factor) values.push_back(v);
  } else {
    std::stringstream ss(spec);
    std::string v;
    while (std::getline(ss, v, ',')) values.push_back(number(v));
  }
  if (values.empty()) throw InputError("--sweep '" + text + "': no values");
  return {key, values};
}

// Share of decode time spent in ops bound by compute (the rest: memory or links).
double decode_compute_share(const nlohmann::json& result) {
  double compute = 0, total = 0;
  for (const auto& op : result["ops"]) {
    if (op["phase"] != "decode") continue;
    total += op["sim_time_s"].get<double>();
    if (op["roof"].get<std::string>().find("compute") != std::string::npos) compute += op["sim_time_s"].get<double>();
  }
  return total > 0 ? compute / total : 0.0;
}

nlohmann::json sweep_point(double value, const nlohmann::json& r) {
  return {{"value", value},
          {"ttft_s", r["ttft_s"]},
          {"tpot_s", r["tpot_s"]},
          {"throughput_tok_s", r["throughput_tok_s"]},
          {"decode_tok_s", r["decode_tok_s"]},
          {"decode_intensity", r["decode_intensity"]},
          {"prefill_intensity", r["prefill_intensity"]},
          {"decode_compute_share", decode_compute_share(r)},
          {"bound_tpot_s", r["bound_tpot_s"]}};
}

void run_sweep(const WhatifOptions& o, const CLI::App& cmd) {
  nlohmann::json out;
  if (!o.merge.empty()) {
    // Shards from separate runs (a cluster's jobs): their points, in value order.
    std::vector<nlohmann::json> points;
    for (const auto& f : o.merge) {
      std::ifstream in(f);
      if (!in) throw InputError(f + ": cannot open file");
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(in);
      } catch (const nlohmann::json::parse_error& e) {
        throw InputError(f + ": not a whatif sweep JSON (" + e.what() + ")");
      }
      if (!j.contains("sweep") || !j.contains("points")) throw InputError(f + ": not a whatif sweep JSON");
      if (out.contains("sweep") && out["sweep"] != j["sweep"]) throw InputError(f + ": a shard of another sweep");
      out["sweep"] = j["sweep"];
      for (const auto& p : j["points"]) points.push_back(p);
    }
    std::stable_sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a["value"] < b["value"]; });
    out["points"] = points;
  } else {
    const auto [key, values] = parse_sweep(o.sweep);
    int shard = 0, shards = 1;
    if (!o.shard.empty()) {
      if (std::sscanf(o.shard.c_str(), "%d/%d", &shard, &shards) != 2 || shards < 1 || shard < 0 || shard >= shards) {
        throw InputError("--shard '" + o.shard + "': expected I/N with 0 <= I < N");
      }
    }
    const std::map<std::string, std::string> run_flags = {{"batch", "--batch"}, {"prompt", "--prompt"}, {"gen", "--gen"}};
    const auto flag = run_flags.find(key);
    const std::string dir = "/tmp/roofsim_sweep_" + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    const std::string base_path = resolve_preset("hardware", o.hw);
    std::vector<std::vector<std::string>> commands;
    std::vector<std::string> logs, jsons;
    std::vector<double> mine;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (static_cast<int>(i % static_cast<std::size_t>(shards)) != shard) continue;
      std::vector<std::string> c = run_arguments(o, cmd, flag != run_flags.end() ? flag->second : "");
      std::string hw_file = base_path;
      if (flag != run_flags.end()) {
        c.push_back(flag->second);
        c.push_back(std::to_string(static_cast<std::int64_t>(std::llround(values[i]))));
      } else {
        // A hardware key: a derived file per point.
        toml::table doc = ConfigTable::parse_file(base_path);
        std::ostringstream v;
        v.precision(12);
        v << values[i];
        apply(doc, key + "=" + v.str(), false, "--sweep");
        hw_file = dir + "/point" + std::to_string(i) + ".toml";
        std::ofstream(hw_file) << doc << "\n";
      }
      jsons.push_back(dir + "/point" + std::to_string(i) + ".json");
      logs.push_back(dir + "/point" + std::to_string(i) + ".log");
      for (const std::string& a : {std::string("--hw"), hw_file, std::string("--json"), jsons.back()}) c.push_back(a);
      commands.push_back(c);
      mine.push_back(values[i]);
    }
    run_all(commands, logs, o.jobs, dir, [&](std::size_t i) { return "sweep point " + key + " = " + std::to_string(mine[i]); });
    out["sweep"] = key;
    out["shard"] = std::to_string(shard) + "/" + std::to_string(shards);
    out["points"] = nlohmann::json::array();
    for (std::size_t i = 0; i < jsons.size(); ++i) {
      std::ifstream f(jsons[i]);
      out["points"].push_back(sweep_point(mine[i], nlohmann::json::parse(f)));
    }
    std::filesystem::remove_all(dir);
  }
  std::ostream& os = human_out(o.json);
  os << "roofsim whatif sweep of " << out["sweep"].get<std::string>() << "\n\n";
  TextTable t({out["sweep"].get<std::string>(), "TTFT", "TPOT", "tokens/s", "decode intensity", "decode time compute-bound"});
  std::vector<double> xs, tokens, shares;
  for (const auto& p : out["points"]) {
    const bool has_tpot = p["tpot_s"].is_number();
    t.add_row({format_fixed(p["value"].get<double>(), p["value"].get<double>() < 10 ? 2 : 0), format_seconds(p["ttft_s"].get<double>()),
               has_tpot ? format_seconds(p["tpot_s"].get<double>()) : "-", format_fixed(p["throughput_tok_s"].get<double>(), 1),
               p["decode_intensity"].is_number() ? format_fixed(p["decode_intensity"].get<double>(), 1) + " FLOP/B" : "-",
               format_fixed(100 * p["decode_compute_share"].get<double>(), 0) + "%"});
    xs.push_back(p["value"].get<double>());
    tokens.push_back(p["throughput_tok_s"].get<double>());
    shares.push_back(100 * p["decode_compute_share"].get<double>());
  }
  t.print(os);
  if (!o.plot.empty()) {
    write_sweep_plot(o.plot, "roofsim whatif: " + out["sweep"].get<std::string>(), out["sweep"].get<std::string>(), xs,
                     "throughput (tokens/s)", tokens, "decode time in compute-bound ops (%)", shares);
    os << "plot written to " << o.plot << "\n";
  }
  if (!o.json.empty()) write_json(o.json, out);
}

}  // namespace

void add_whatif_command(CLI::App& app) {
  auto o = std::make_shared<WhatifOptions>();
  CLI::App* cmd = app.add_subcommand(
      "whatif", "Run one experiment on a base chip and on variants of it, and show what changes.\n"
                "Example: roofsim whatif --scale hbm.bandwidth=2 --scale compute=2");
  cmd->add_option("EXPERIMENT", o->experiment, "Experiment .toml (as for run)")->check(CLI::ExistingFile);
  add_hw_option(cmd, o->hw);
  cmd->add_option("--scale", o->scale, "A variant with KEY scaled by FACTOR (KEY=FACTOR[,KEY=FACTOR]); keys are the "
                                       "hardware file's paths, or compute, hbm.bandwidth, links.bandwidth, hbm.capacity");
  cmd->add_option("--set", o->set, "A variant with KEY set to VALUE (KEY=VALUE[,KEY=VALUE])");
  cmd->add_option("--variant", o->variants, "A variant given as a hardware preset or .toml");
  add_experiment_flags(cmd, o->x);
  cmd->add_flag("--ideal", o->ideal, "Ideal base and variants");
  cmd->add_option("--sweep", o->sweep, "Instead of variants: one parameter over values, KEY=V1,V2,... or KEY=START:STOP:xFACTOR; "
                                       "KEY is batch, prompt, gen or a hardware key (e.g. hbm.bandwidth_gb_per_s=1000:8000:x2)");
  cmd->add_option("--shard", o->shard, "With --sweep: run only points I, I+N, ... (I/N), to merge later with --merge");
  cmd->add_option("--merge", o->merge, "Merge the JSON of sweep shards (files) into one table, JSON and plot");
  cmd->add_option("--plot", o->plot, "Chart (.png/.svg): each variant's roofline with its ops; with --sweep or --merge, "
                                     "throughput and where the bottleneck sits");
  cmd->add_option("-j,--jobs", o->jobs, "Variants simulated at once (default 2)")->check(CLI::Range(1, 64));
  add_json_option(cmd, o->json);
  cmd->callback([o, cmd] {
    if (!o->sweep.empty() || !o->merge.empty()) {
      if (!o->scale.empty() || !o->set.empty() || !o->variants.empty()) {
        throw InputError("--sweep and --merge do not combine with --scale, --set or --variant");
      }
      run_sweep(*o, *cmd);
    } else {
      run(*o, *cmd);
    }
  });
}

}  // namespace roofsim
