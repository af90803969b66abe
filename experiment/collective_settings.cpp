#include "experiment/collective_settings.hpp"

#include <cmath>
#include <map>

#include "core/checked.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/limits.hpp"
#include "core/presets.hpp"

namespace roofsim {

namespace {

using json = nlohmann::json;
using Setter = std::function<void(CollectiveExperiment&, const json&)>;

CollectiveSetting setting(const char* name, SettingKind kind, std::string fallback, std::string help, Setter set) {
  CollectiveSetting s;
  s.spec.name = name;
  s.spec.kind = kind;
  s.spec.default_text = std::move(fallback);
  s.spec.help = std::move(help);
  s.set = std::move(set);
  return s;
}

std::vector<std::string> kind_names() { return {"allreduce", "allgather", "reducescatter", "alltoall", "sendrecv"}; }

std::string algorithm_help() {
  std::string out =
      "The algorithm (default: nccl on a switch, torus_split on a torus, ring over a group that is no sub-torus; "
      "all-to-all: nccl on a switch, routed on a ring or torus):";
  for (const std::string& name : collective_algorithms().names()) {
    out += "\n  " + name + ": " + collective_algorithms().get(name, "algo").summary();
  }
  return out;
}

std::vector<CollectiveSetting> make_collective_settings() {
  const CollectiveExperiment d;
  std::vector<CollectiveSetting> t;
  t.push_back(setting("hw", SettingKind::text, "h100_sxm5",
                      "Hardware: a preset name (see 'roofsim hw list') or a path to a hardware .toml",
                      [](CollectiveExperiment& x, const json& v) { x.hw = load_hardware(v.get<std::string>()); }));
  t.push_back(setting("op", SettingKind::choice, collective_kind_name(d.kind), "The collective",
                      [](CollectiveExperiment& x, const json& v) { parse_collective_kind(v.get<std::string>(), x.kind); }));
  t.back().spec.choices = kind_names;
  t.push_back(setting("bytes", SettingKind::text, format_bytes(static_cast<double>(d.bytes)), "Bytes per chip: 1GiB, 58MB, 1048576, ...",
                      [](CollectiveExperiment& x, const json& v) { x.bytes = parse_byte_size(v.get<std::string>(), "${bytes}"); }));
  t.back().spec.unit = "bytes";
  t.back().spec.form = "a size from 1 B to 256 TiB: 1GiB, 58MB or 1048576";
  t.back().spec.accepts = accepts_what_parses([](const std::string& text) { parse_byte_size(text, "bytes"); });
  t.back().spec.whole_as_text = true;
  t.push_back(setting("topology", SettingKind::text, "switch:8 for NVLink, 4x4x4 for ICI",
                      "N (a ring), AxBxC (a 3D torus with wrap-around), switch:N, or nodes:NxL (N nodes of L chips on their "
                      "switches, joined by the hardware's [network]; groups across nodes run hierarchical)",
                      [](CollectiveExperiment& x, const json& v) { x.topology = v.get<std::string>(); }));
  t.push_back(setting("algo", SettingKind::choice, "the topology's", algorithm_help(), [](CollectiveExperiment& x, const json& v) {
    CollectiveAlgo a;
    parse_collective_algo(v.get<std::string>(), a);
    x.algo = a;
  }));
  t.back().spec.choices = [] { return collective_algorithms().names(); };
  t.push_back(setting("dtype", SettingKind::choice, std::string(dtype_name(d.dtype)), "The elements' format (NVLS reduces fp32, bf16, fp16 only)",
                      [](CollectiveExperiment& x, const json& v) { parse_dtype(v.get<std::string>(), x.dtype); }));
  t.back().spec.choices = [] {
    std::vector<std::string> out;
    for (DType dt : all_dtypes()) out.emplace_back(dtype_name(dt));
    return out;
  };
  t.push_back(setting("group", SettingKind::whole, "all chips",
                      "Run the collective on every group of N consecutive chips at once (on a ring or torus, a group that "
                      "spans whole leading dimensions, e.g. 4, 16 or 64 on 4x4x4, uses its own links; any other runs a ring "
                      "routed between its members)",
                      [](CollectiveExperiment& x, const json& v) { x.group = static_cast<int>(v.get<std::int64_t>()); }));
  t.back().spec.lo = 2;
  t.back().spec.hi = kMaxChips;
  t.back().spec.unit = "chips";
  t.push_back(setting("to", SettingKind::whole, "chip 1",
                      "The receiving chip of ${op} sendrecv; on a ring or torus the data is routed dimension by dimension "
                      "the short way round",
                      [](CollectiveExperiment& x, const json& v) { x.to = static_cast<int>(v.get<std::int64_t>()); }));
  t.back().spec.lo = 1;
  t.back().spec.hi = kMaxChips;
  t.push_back(setting("concurrent", SettingKind::whole, std::to_string(d.concurrent), "Run N copies at once on the same links (contention)",
                      [](CollectiveExperiment& x, const json& v) { x.concurrent = static_cast<int>(v.get<std::int64_t>()); }));
  t.back().spec.lo = 1;
  t.back().spec.hi = 64;
  t.push_back(setting("max_events", SettingKind::number, format_si(d.max_events, "", 0),
                      "Refuse a collective whose estimated simulation events exceed N (0: no limit)",
                      [](CollectiveExperiment& x, const json& v) { x.max_events = v.get<double>(); }));
  t.back().spec.lo = 0;
  t.back().spec.unit = "events";
  t.push_back(setting("ideal", SettingKind::flag, "false", "Link efficiency 1 and zero latency",
                      [](CollectiveExperiment& x, const json& v) { x.ideal = v.get<bool>(); }));
  return t;
}

}  // namespace

std::uint64_t parse_byte_size(const std::string& text, const std::string& label) {
  static const std::pair<const char*, double> units[] = {
      {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
      {"KB", 1e3},     {"MB", 1e6},        {"GB", 1e9},           {"TB", 1e12},
      {"B", 1.0}};
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  double scale = 1;
  const std::string unit = used ? text.substr(used) : "";
  bool known = unit.empty();
  for (const auto& [name, s] : units) {
    if (unit == name) {
      scale = s;
      known = true;
    }
  }
  if (used == 0 || !known || !(v > 0) || !std::isfinite(v)) {
    throw InputError(label + " '" + text + "': expected a positive size such as 1GiB, 58MB or 1048576");
  }
  // Whole bytes, checked after the unit: 0.4 B is no size, and 1e300 TB no buffer.
  const double bytes = v * scale;
  if (bytes < 1 || bytes > kMaxSize || bytes != std::floor(bytes)) {
    throw InputError(label + " '" + text + "': a whole number of bytes from 1 to 2^48 (256 TiB)");
  }
  return static_cast<std::uint64_t>(bytes);
}

const std::vector<CollectiveSetting>& collective_settings() {
  static const std::vector<CollectiveSetting> table = make_collective_settings();
  return table;
}

nlohmann::json collective_settings_json(const CollectiveExperiment& x) {
  using json = nlohmann::json;
  std::string hw = x.hw.name;
  if (!x.hw.source_file.empty()) {
    try {
      if (resolve_preset("hardware", x.hw.name) != x.hw.source_file) hw = x.hw.source_file;
    } catch (const InputError&) {
      hw = x.hw.source_file;  // a file of its own, not a preset
    }
  }
  const std::map<std::string, json> values = {
      {"hw", hw},
      {"op", collective_kind_name(x.kind)},
      {"bytes", x.bytes},
      {"topology", x.topology.empty() ? json(nullptr) : json(x.topology)},
      {"algo", x.algo ? json(collective_algo_name(*x.algo)) : json(nullptr)},
      {"dtype", dtype_name(x.dtype)},
      {"group", x.group > 0 ? json(x.group) : json(nullptr)},
      {"to", x.to >= 0 ? json(x.to) : json(nullptr)},
      {"concurrent", x.concurrent},
      {"max_events", x.max_events},
      {"ideal", x.ideal},
  };
  json out = json::object();
  for (const CollectiveSetting& s : collective_settings()) out[s.spec.name] = values.at(s.spec.name);
  return out;
}

const CollectiveSetting* find_collective_setting(const std::string& key) { return find_setting(collective_settings(), key); }

void set_collective_settings(CollectiveExperiment& x, const nlohmann::json& settings, bool hw_given) {
  for (const auto& [key, value] : settings.items()) {
    if (find_collective_setting(key) == nullptr) throw InputError("unknown collective setting '" + key + "'");
  }
  for (const CollectiveSetting& s : collective_settings()) {
    if (!settings.contains(s.spec.name) || settings.at(s.spec.name).is_null()) {
      if (s.spec.name == "hw" && !hw_given) s.set(x, s.spec.default_text);
      continue;
    }
    s.set(x, checked_setting_value(s.spec, settings.at(s.spec.name), "${" + s.spec.name + "}"));
  }
}

}  // namespace roofsim
