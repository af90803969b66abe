#include "sweep/design_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>
#include <thread>

#include "core/digest.hpp"
#include "core/error.hpp"
#include "core/presets.hpp"
#include "experiment/results.hpp"
#include "serving/report.hpp"
#include "experiment/whatif.hpp"
#include "experiment/worker_pool.hpp"

namespace roofsim {

namespace {

// Enough to tell an edited file from the one a point was computed with.
std::string file_digest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "missing";
  std::uint64_t h = kFnvOffset;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) h = fnv1a64(std::string_view(buffer, static_cast<std::size_t>(in.gcount())), h);
  return digest_hex(h);
}

// The settings that differ between points, for progress lines.
std::string label(const nlohmann::json& settings, const nlohmann::json& base) {
  std::string out;
  for (const auto& [key, value] : settings.items()) {
    if (base.contains(key) && base[key] == value) continue;
    out += (out.empty() ? "" : ", ") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

// Results the record leaves out: structured ones (ops, links, memory, notes), the wall time,
// and what the settings already say.
bool recorded(const std::string& key, const nlohmann::json& value) {
  static const std::set<std::string> kLeftOut = {"wall_s", "schema_version", "ideal", "launch", "attention"};
  return !value.is_structured() && !kLeftOut.count(key);
}

}  // namespace

std::string default_sweep_store(const std::string& file) {
  const bool toml = file.size() > 5 && file.compare(file.size() - 5, 5, ".toml") == 0;
  return (toml ? file.substr(0, file.size() - 5) : file) + ".db";
}

std::string PointIdentities::of(const nlohmann::json& settings) {
  nlohmann::json id = {{"settings", settings}};
  // A file's contents are part of a point (a requests file by its new name or its old, trace_file,
  // under which earlier stores recorded it).
  for (const char* key : {"hw", "model", "trace_file", "requests_from"}) {
    if (!settings.contains(key)) continue;
    const std::string v = settings[key].get<std::string>();
    const bool requests_file = std::string(key) == "trace_file" || std::string(key) == "requests_from";
    if (!requests_file && !looks_like_config_path(v)) continue;  // presets are part of the roofsim version
    auto it = digests_.find(v);
    if (it == digests_.end()) it = digests_.emplace(v, file_digest(v)).first;
    id[std::string(key) + "_file"] = it->second;
  }
  return id.dump();
}

nlohmann::json point_record(const ExperimentResult& r) {
  nlohmann::json out = nlohmann::json::object();
  const nlohmann::json full = to_json(r);
  for (const auto& [key, value] : full.items()) {
    if (recorded(key, value)) out[key] = value;
  }
  out["memory_per_chip_bytes"] = r.memory.total();
  out["hbm_capacity_bytes"] = r.hw.hbm.capacity_bytes;
  out["decode_compute_share"] = decode_compute_share(r);
  return out;
}

nlohmann::json serving_record(const ServingResult& r) {
  // The summary's numbers (percentile objects as summary.ttft_s.p50 and so on) and the run's.
  nlohmann::json out = nlohmann::json::object();
  const nlohmann::json full = serving_json(r);
  const nlohmann::json flat = full.flatten();  // "/summary/ttft_s/p50" -> value
  for (const auto& [pointer, value] : flat.items()) {
    std::string key = pointer.substr(1);
    for (char& c : key) {
      if (c == '/') c = '.';
    }
    const bool wanted = key.rfind("summary.", 0) == 0 || key == "iterations" || key == "simulated_s" || key == "chips" ||
                        key == "shapes_simulated" || key.rfind("kv_cache.", 0) == 0;
    if (wanted && !value.is_structured()) out[key.rfind("summary.", 0) == 0 ? key.substr(8) : key] = value;
  }
  return out;
}

DesignSweepReport run_design_sweep(const SweepFile& f, const ExpandedSweep& points, SweepStore& store,
                                   const DesignSweepOptions& o, const RunControl& control) {
  if (o.shards < 1 || o.shard < 0 || o.shard >= o.shards) {
    throw InputError("--shard " + std::to_string(o.shard) + "/" + std::to_string(o.shards) + ": expected I/N with 0 <= I < N");
  }
  DesignSweepReport report;
  report.points = points.points.size();
  report.skipped = points.skipped;
  const std::string version = roofsim_build_version();
  const std::set<std::string> stored = store.identities(version);
  PointIdentities identities;
  std::vector<std::size_t> todo;  // indices into points.points
  std::vector<std::string> todo_identity;
  for (std::size_t i = static_cast<std::size_t>(o.shard); i < points.points.size(); i += static_cast<std::size_t>(o.shards)) {
    ++report.mine;
    std::string id = identities.of(points.points[i].settings);
    if (stored.count(id)) {
      ++report.reused;
      continue;
    }
    todo.push_back(i);
    todo_identity.push_back(std::move(id));
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto simulate = [&](std::size_t task) -> nlohmann::json {
    const SweepPointSettings& p = points.points[todo[task]];
    const auto start = std::chrono::steady_clock::now();
    nlohmann::json out;
    try {
      out = {{"status", "ok"}, {"result", f.command == "serve" ? serving_record(run_serving(point_serving_setup(f, p.settings)))
                                                                 : point_record(run_experiment(point_experiment(f, p.settings), RunControl{}))}};
    } catch (const InputError& e) {
      out = {{"status", "error"}, {"error", e.what()}};
    }
    out["wall_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  };
  auto finished = [&](std::size_t task, const nlohmann::json& reply) {
    const SweepPointSettings& p = points.points[todo[task]];
    StoredPoint s;
    s.identity = todo_identity[task];
    s.version = version;
    s.index = p.index;
    s.settings = p.settings;
    s.status = reply.at("status").get<std::string>();
    if (s.status == "ok") s.result = reply.at("result");
    else s.error = reply.at("error").get<std::string>();
    s.wall_s = reply.at("wall_s").get<double>();
    store.put(s);
    ++report.ran;
    if (s.status != "ok") ++report.refused;
    control.report(report.ran, todo.size(), label(p.settings, f.base));
  };
  // Sweeps writing one store at once share its points: each claims a point before it starts
  // it. Points another sweep is running are waited for (and taken over if it dies), so that
  // when this sweep returns every one of its points is stored.
  enum class Fate : char { open, ran_here, elsewhere, stored_elsewhere };
  std::vector<Fate> fate(todo.size(), Fate::open);
  bool waiting = false;
  auto take = [&](std::size_t task) {
    if (fate[task] == Fate::ran_here || fate[task] == Fate::stored_elsewhere) return false;
    const SweepStore::Claim c = store.claim(todo_identity[task], version);
    if (c == SweepStore::Claim::mine) {
      if (fate[task] == Fate::elsewhere) --report.shared;  // its sweep died: run here after all
      fate[task] = Fate::ran_here;
      return true;
    }
    if (fate[task] == Fate::open) ++report.shared;
    fate[task] = c == SweepStore::Claim::stored ? Fate::stored_elsewhere : Fate::elsewhere;
    waiting = waiting || c == SweepStore::Claim::running_elsewhere;
    return false;
  };
  for (;;) {
    waiting = false;
    run_in_workers(todo.size(), o.jobs, simulate, finished, control, take);
    if (!waiting) break;
    if (control.stop_requested()) throw Cancelled();
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

SweepTable sweep_table(const SweepFile& f, const ExpandedSweep& points, const SweepStore& store) {
  SweepTable table;
  const std::map<std::string, StoredPoint> stored = store.points(roofsim_build_version());
  PointIdentities identities;
  std::vector<std::string> settings_columns, result_columns;
  std::set<std::string> seen = {"index", "status", "error", "wall_s"};
  auto add = [&](std::vector<std::string>& columns, const std::string& key) {
    if (seen.insert(key).second) columns.push_back(key);
  };
  // Settings first, in the file's order: base, grid, sampled ranges.
  for (const std::string& key : f.base_keys) add(settings_columns, key);
  for (const SweepFile::Dimension& d : f.grid) add(settings_columns, d.key);
  for (const SweepFile::Range& r : f.ranges) add(settings_columns, r.key);
  for (const SweepPointSettings& p : points.points) {
    auto it = stored.find(identities.of(p.settings));
    if (it == stored.end()) {
      ++table.missing;
      continue;
    }
    const StoredPoint& s = it->second;
    nlohmann::json row = {{"index", p.index}};
    for (const auto& [key, value] : p.settings.items()) row[key] = value;
    row["status"] = s.status;
    row["error"] = s.error;
    for (const auto& [key, value] : s.result.items()) {
      if (!seen.count(key) || std::find(result_columns.begin(), result_columns.end(), key) != result_columns.end()) {
        add(result_columns, key);
        row[key] = value;
      }
    }
    row["wall_s"] = s.wall_s;
    table.rows.push_back(std::move(row));
  }
  // The results people look for first, then the rest by name.
  static const std::vector<std::string> kFirst = {
      "ttft_s", "tpot_s", "throughput_tok_s", "decode_tok_s", "bound_ttft_s", "bound_tpot_s", "prefill_intensity",
      "decode_intensity", "decode_compute_share", "memory_per_chip_bytes", "hbm_capacity_bytes",
      // serving points
      "ttft_s.p50", "ttft_s.p99", "tpot_s.p50", "tpot_s.p99", "output_tok_s", "output_tok_s_per_chip", "tok_s_per_user",
      "goodput_requests_per_s", "slo_attainment", "mean_batch", "roofline_share"};
  std::stable_sort(result_columns.begin(), result_columns.end(), [&](const std::string& a, const std::string& b) {
    const auto rank = [&](const std::string& c) { return std::find(kFirst.begin(), kFirst.end(), c) - kFirst.begin(); };
    return rank(a) < rank(b);
  });
  table.columns = {"index"};
  table.columns.insert(table.columns.end(), settings_columns.begin(), settings_columns.end());
  table.columns.insert(table.columns.end(), {"status", "error"});
  table.columns.insert(table.columns.end(), result_columns.begin(), result_columns.end());
  return table;
}

}  // namespace roofsim
