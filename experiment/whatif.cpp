#include "experiment/whatif.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "experiment/energy.hpp"
#include "experiment/silicon.hpp"
#include "experiment/experiment_settings.hpp"
#include "experiment/results.hpp"
#include "experiment/worker_pool.hpp"

namespace roofsim {

WhatifResult run_whatif(const Experiment& base, const std::vector<WhatifVariant>& variants, const RunControl& control) {
  if (variants.empty()) throw std::logic_error("run_whatif without a base");
  WhatifResult out;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    if (control.stop_requested()) throw Cancelled();
    Experiment e = base;
    e.hardware = variants[i].hw;
    e.hw = variants[i].hw.name;
    // A variant's refusal names the variant: the base ran with the same settings.
    auto simulated = [&] {
      if (i == 0) return run_experiment(e, RunControl{});
      try {
        for (const char* fixed : {"hw", "model"}) {
          if (variants[i].settings.contains(fixed)) {
            throw InputError(std::string(fixed) + ": a variant runs the base's " + fixed + " (give another chip as a hardware variant)");
          }
        }
        set_experiment_settings(e, variants[i].settings);
        return run_experiment(e, RunControl{});
      } catch (const InputError& err) {
        throw InputError("variant '" + variants[i].name + "': " + err.raw());
      }
    };
    WhatifRun run{variants[i].name, simulated(), 1, 1};
    const ExperimentResult& b = i == 0 ? run.result : out.runs[0].result;
    run.prefill_speedup = b.ttft_s / run.result.ttft_s;
    run.decode_speedup = run.result.decode_steps > 0 ? b.tpot_s / run.result.tpot_s : 0.0;
    out.runs.push_back(std::move(run));
    control.report(i + 1, variants.size(), variants[i].name);
  }
  return out;
}

nlohmann::json to_json(const WhatifResult& r) {
  nlohmann::json out = {{"base", to_json(r.runs.at(0).result)}, {"variants", nlohmann::json::array()}};
  for (std::size_t i = 1; i < r.runs.size(); ++i) {
    const WhatifRun& v = r.runs[i];
    out["variants"].push_back({{"name", v.name}, {"prefill_speedup", v.prefill_speedup},
                               {"decode_speedup", v.decode_speedup}, {"result", to_json(v.result)}});
  }
  return versioned(std::move(out));
}

namespace {

// Counts (batch, tokens, chips) beyond this are no experiment anyone runs, and would overflow
// the arithmetic of sizes.
constexpr double kMaxExperimentValue = 1e9;

// The experiment fields a sweep may vary: the counts of the settings table, by their names.
std::int64_t Experiment::* experiment_field(const std::string& key) {
  const RunSetting* s = find_run_setting(key);
  return s != nullptr ? s->count : nullptr;
}

}  // namespace

SweepPoint point_from_json(const nlohmann::json& p, std::size_t axes) {
  SweepPoint s;
  auto num = [&](const char* k) { return p.contains(k) && p[k].is_number() ? p[k].get<double>() : 0.0; };
  s.index = p.at("index").get<std::size_t>();
  for (std::size_t a = 0; a < axes; ++a) s.values.push_back(p.at("values").at(a).get<double>());
  if (p.contains("error")) s.error = p["error"].get<std::string>();
  s.ttft_s = num("ttft_s");
  s.has_decode = p.contains("tpot_s") && p["tpot_s"].is_number();
  s.tpot_s = num("tpot_s");
  s.throughput_tok_s = num("throughput_tok_s");
  s.decode_tok_s = num("decode_tok_s");
  s.energy_per_token_j = num("energy_per_token_j");
  s.avg_power_w = num("avg_power_w");
  s.tokens_per_s_per_mm2 = num("tokens_per_s_per_mm2");
  s.tokens_per_s_per_kusd = num("tokens_per_s_per_kusd");
  s.decode_intensity = num("decode_intensity");
  s.prefill_intensity = num("prefill_intensity");
  s.decode_compute_share = num("decode_compute_share");
  s.bound_tpot_s = num("bound_tpot_s");
  s.wall_s = num("wall_s");
  return s;
}

bool is_experiment_key(const std::string& key) { return experiment_field(key) != nullptr; }

SweepAxis parse_sweep_axis(const std::string& text, const std::string& flag) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError(flag + " '" + text + "': expected KEY=V1,V2,... or KEY=START:STOP:xFACTOR");
  SweepAxis axis{text.substr(0, eq), {}};
  const std::string spec = text.substr(eq + 1);
  auto number = [&](const std::string& v) {
    const auto d = parse_number(v);
    if (!d || !(*d > 0) || !std::isfinite(*d)) throw InputError(flag + " '" + text + "': '" + v + "' is not a positive number");
    return *d;
  };
  if (spec.find(':') != std::string::npos) {
    std::stringstream ss(spec);
    std::string a, b, f;
    std::getline(ss, a, ':');
    std::getline(ss, b, ':');
    std::getline(ss, f, ':');
    if (f.empty() || f[0] != 'x') throw InputError(flag + " '" + text + "': a range is START:STOP:xFACTOR");
    const double start = number(a), stop = number(b), factor = number(f.substr(1));
    if (factor <= 1) throw InputError(flag + " '" + text + "': the factor must exceed 1");
    for (double v = start; v <= stop * (1 + 1e-9); v *= factor) {
      if (axis.values.size() == 1000) throw InputError(flag + " '" + text + "': more than 1000 values (a larger factor, or a list)");
      axis.values.push_back(v);
    }
  } else {
    std::stringstream ss(spec);
    std::string v;
    while (std::getline(ss, v, ',')) axis.values.push_back(number(v));
  }
  if (axis.values.empty()) throw InputError(flag + " '" + text + "': no values");
  if (is_experiment_key(axis.key) && spec.find(':') != std::string::npos) {
    // A geometric range of counts: whole numbers, each once (a listed 1.5 is refused by
    // check_sweep instead).
    for (double& v : axis.values) {
      if (v > kMaxExperimentValue) throw InputError(flag + " '" + text + "': " + axis.key + " at most 1e9");
      v = static_cast<double>(std::llround(v));
    }
    axis.values.erase(std::unique(axis.values.begin(), axis.values.end()), axis.values.end());
  }
  return axis;
}

double decode_compute_share(const ExperimentResult& r) {
  double compute = 0, total = 0;
  for (const OpSummary& op : summarize_ops(r)) {
    if (op.phase != "decode") continue;
    total += op.sim_s;
    if (op.roof.find("compute") != std::string::npos) compute += op.sim_s;
  }
  return total > 0 ? compute / total : 0.0;
}

std::size_t check_sweep(const HardwareDocument& hw, const std::vector<SweepAxis>& axes, int shard, int shards) {
  if (axes.empty()) throw InputError("a sweep needs at least one axis");
  if (shards < 1 || shard < 0 || shard >= shards) throw InputError("shard " + std::to_string(shard) + " of " + std::to_string(shards));
  std::size_t grid = 1;
  for (const SweepAxis& a : axes) {
    if (a.values.empty()) throw InputError("sweep: no values for '" + a.key + "'");
    grid *= a.values.size();
    if (grid > 10'000'000) throw InputError("the sweep grid has over 10 million points");
    for (double v : a.values) {
      if (!std::isfinite(v)) throw InputError("sweep: '" + a.key + "' has a value that is not a finite number");
      if (is_experiment_key(a.key) && (v < 1 || v > kMaxExperimentValue || v != std::floor(v))) {
        throw InputError("sweep: '" + a.key + "' takes whole numbers from 1 to 1e9, not " + nlohmann::json(v).dump());
      }
    }
    // Hardware keys are checked before any point runs: each value, as the loader would.
    if (!is_experiment_key(a.key)) {
      for (const std::string& path : hardware_key_paths(a.key)) hw.get(path);
      for (double v : a.values) {
        HardwareDocument edited = hw;
        apply_edits(edited, {HardwareEdit{a.key, v, false}}, "--sweep");
        edited.spec();
      }
    }
  }
  return grid;
}

SweepPoint run_sweep_point(const Experiment& base, const HardwareDocument& hw, const std::vector<SweepAxis>& axes, std::size_t index) {
  SweepPoint p;
  p.index = index;
  // The point's value on each axis: the first axis varies slowest.
  std::size_t rest = p.index;
  p.values.assign(axes.size(), 0.0);
  for (std::size_t a = axes.size(); a-- > 0;) {
    p.values[a] = axes[a].values[rest % axes[a].values.size()];
    rest /= axes[a].values.size();
  }
  Experiment e = base;
  HardwareDocument doc = hw;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (is_experiment_key(axes[a].key)) {
      e.*experiment_field(axes[a].key) = static_cast<std::int64_t>(p.values[a]);  // whole: check_sweep
    } else {
      apply_edits(doc, {{axes[a].key, p.values[a], false}}, "sweep");
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  try {
    e.hardware = doc.spec();
    e.hw = doc.name();
    const ExperimentResult r = run_experiment(e, RunControl{});
    p.ttft_s = r.ttft_s;
    p.has_decode = r.decode_steps > 0;
    p.tpot_s = r.tpot_s;
    p.throughput_tok_s = r.throughput_tok_s();
    p.decode_tok_s = p.has_decode ? static_cast<double>(e.batch) / r.tpot_s : 0.0;
    p.prefill_intensity = r.prefill_flops / r.prefill_bytes;
    p.decode_intensity = p.has_decode ? r.decode_flops / r.decode_bytes : 0.0;
    p.bound_tpot_s = r.bound_tpot_s;
    p.decode_compute_share = decode_compute_share(r);
    const RunEnergy en = run_energy(r);
    p.energy_per_token_j = en.per_output_token_j;
    p.avg_power_w = en.avg_power_w;
    const RunSilicon silicon = run_silicon(r);
    p.tokens_per_s_per_mm2 = silicon.tokens_per_s_per_mm2;
    p.tokens_per_s_per_kusd = silicon.tokens_per_s_per_kusd;
  } catch (const InputError& err) {
    p.error = err.what();
  }
  p.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

namespace {

// "batch=8, hbm.bandwidth_gb_per_s=6700": a point for progress lines.
std::string point_label(const std::vector<SweepAxis>& axes, const SweepPoint& p) {
  std::string label;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    std::ostringstream v;
    v << axes[a].key << "=" << p.values[a];
    label += (label.empty() ? "" : ", ") + v.str();
  }
  return label;
}

}  // namespace

SweepResult run_sweep(const Experiment& base, const HardwareDocument& hw, const std::vector<SweepAxis>& axes,
                      int shard, int shards, const RunControl& control, const std::function<void(const SweepPoint&)>& on_point) {
  SweepResult out;
  out.grid_points = check_sweep(hw, axes, shard, shards);
  out.shard = shard;
  out.shards = shards;
  for (const SweepAxis& a : axes) out.keys.push_back(a.key);
  std::vector<std::size_t> mine;
  for (std::size_t i = static_cast<std::size_t>(shard); i < out.grid_points; i += static_cast<std::size_t>(shards)) mine.push_back(i);
  for (std::size_t n = 0; n < mine.size(); ++n) {
    if (control.stop_requested()) throw Cancelled();
    SweepPoint p = run_sweep_point(base, hw, axes, mine[n]);
    if (on_point) on_point(p);
    out.points.push_back(std::move(p));
    control.report(n + 1, mine.size(), point_label(axes, out.points.back()));
  }
  return out;
}

SweepResult run_sweep_parallel(const Experiment& base, const HardwareDocument& hw, const std::vector<SweepAxis>& axes,
                               int shard, int shards, int jobs, const RunControl& control) {
  if (jobs <= 1) return run_sweep(base, hw, axes, shard, shards, control);
  SweepResult out;
  out.grid_points = check_sweep(hw, axes, shard, shards);  // bad axes fail here, before any fork
  out.shard = shard;
  out.shards = shards;
  for (const SweepAxis& a : axes) out.keys.push_back(a.key);
  std::vector<std::size_t> mine;
  for (std::size_t i = static_cast<std::size_t>(shard); i < out.grid_points; i += static_cast<std::size_t>(shards)) mine.push_back(i);
  run_in_workers(
      mine.size(), jobs, [&](std::size_t t) { return point_json(run_sweep_point(base, hw, axes, mine[t]), out.keys); },
      [&](std::size_t, const nlohmann::json& j) {
        out.points.push_back(point_from_json(j, axes.size()));
        control.report(out.points.size(), mine.size(), point_label(axes, out.points.back()));
      },
      control);
  std::sort(out.points.begin(), out.points.end(), [](const SweepPoint& a, const SweepPoint& b) { return a.index < b.index; });
  return out;
}

nlohmann::json to_json(const SweepResult& r) {
  std::string keys;
  for (const auto& k : r.keys) keys += (keys.empty() ? "" : ",") + k;
  nlohmann::json out = {{"sweep", keys}, {"axes", r.keys}, {"grid_points", r.grid_points},
                        {"shard", std::to_string(r.shard) + "/" + std::to_string(r.shards)}, {"points", nlohmann::json::array()}};
  for (const SweepPoint& p : r.points) out["points"].push_back(point_json(p, r.keys));
  return versioned(std::move(out));
}

nlohmann::json point_json(const SweepPoint& p, const std::vector<std::string>& keys) {
  nlohmann::json j = {{"index", p.index}, {"value", p.values.at(0)}, {"values", p.values}};
  for (std::size_t a = 0; a < keys.size(); ++a) j[keys[a]] = p.values[a];
  if (!p.error.empty()) {
    j["error"] = p.error;
    return j;
  }
  j["ttft_s"] = p.ttft_s;
  j["tpot_s"] = p.has_decode ? nlohmann::json(p.tpot_s) : nlohmann::json(nullptr);
  j["throughput_tok_s"] = p.throughput_tok_s;
  j["decode_tok_s"] = p.has_decode ? nlohmann::json(p.decode_tok_s) : nlohmann::json(nullptr);
  j["decode_intensity"] = p.has_decode ? nlohmann::json(p.decode_intensity) : nlohmann::json(nullptr);
  j["prefill_intensity"] = p.prefill_intensity;
  j["decode_compute_share"] = p.decode_compute_share;
  j["bound_tpot_s"] = p.has_decode ? nlohmann::json(p.bound_tpot_s) : nlohmann::json(nullptr);
  j["energy_per_token_j"] = p.energy_per_token_j > 0 ? nlohmann::json(p.energy_per_token_j) : nlohmann::json(nullptr);
  j["avg_power_w"] = p.avg_power_w > 0 ? nlohmann::json(p.avg_power_w) : nlohmann::json(nullptr);
  j["tokens_per_s_per_mm2"] = p.tokens_per_s_per_mm2 > 0 ? nlohmann::json(p.tokens_per_s_per_mm2) : nlohmann::json(nullptr);
  j["tokens_per_s_per_kusd"] = p.tokens_per_s_per_kusd > 0 ? nlohmann::json(p.tokens_per_s_per_kusd) : nlohmann::json(nullptr);
  return j;
}

SweepResult merge_sweep_shards(const std::vector<nlohmann::json>& shards) {
  SweepResult out;
  bool first = true;
  for (const nlohmann::json& j : shards) {
    std::vector<std::string> keys = j.at("axes").get<std::vector<std::string>>();
    if (first) {
      out.keys = keys;
      out.grid_points = j.at("grid_points").get<std::size_t>();
      first = false;
    } else if (keys != out.keys || j.at("grid_points").get<std::size_t>() != out.grid_points) {
      throw InputError("a shard of another sweep");
    }
    for (const auto& p : j.at("points")) {
      out.points.push_back(point_from_json(p, out.keys.size()));
      if (out.points.back().index >= out.grid_points) {
        throw InputError("a shard's point " + std::to_string(out.points.back().index) + " lies outside its grid of " +
                         std::to_string(out.grid_points) + " points");
      }
    }
  }
  std::stable_sort(out.points.begin(), out.points.end(), [](const SweepPoint& a, const SweepPoint& b) { return a.index < b.index; });
  return out;
}

}  // namespace roofsim
