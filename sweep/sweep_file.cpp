#include "sweep/sweep_file.hpp"

#include <cmath>
#include <filesystem>
#include <random>
#include <set>

#include "core/config_reader.hpp"
#include "core/error.hpp"
#include "core/presets.hpp"
#include "experiment/experiment_settings.hpp"
#include "experiment/hardware_edit.hpp"
#include "serving/serving_settings.hpp"

namespace roofsim {

namespace {

constexpr std::size_t kMaxValuesPerKey = 100'000;

// In a "serve" sweep, the keys the serving run takes (prompt and output among them; batch and
// gen are refused there), the rest being the machine's.

// Checks what a sweep file's keys and values mean, against every hardware the sweep runs on.
class SettingChecker {
 public:
  SettingChecker(const std::filesystem::path& dir, bool serve) : dir_(dir), serve_(serve) {}

  // A model or hardware path relative to the sweep file is relative to its directory, and so is
  // a requests file (requests_from, or its old name trace_file).
  nlohmann::json resolve(const std::string& key, nlohmann::json v) const {
    const bool requests_file = key == "requests_from" || key == "trace_file";
    if ((key == "hw" || key == "model" || requests_file) && v.is_string()) {
      const std::string s = v.get<std::string>();
      if ((requests_file || looks_like_config_path(s)) && std::filesystem::path(s).is_relative()) {
        return (dir_ / s).lexically_normal().string();
      }
    }
    return v;
  }

  void check(const ConfigTable& t, const std::string& key, const nlohmann::json& v) {
    if (serve_ && for_serving(key)) {
      try {
        ServingSettings scratch;
        scratch.set(key, v);
      } catch (const InputError& e) {
        t.fail(key, e.what());
      }
      if (!for_serving_machine(key)) return;
    }
    if (is_experiment_setting(key)) {
      try {
        Experiment scratch;
        set_experiment_setting(scratch, key, v);
        if (key == "hw") resolve_preset("hardware", v.get<std::string>());
        if (key == "model") resolve_preset("models", v.get<std::string>());
      } catch (const InputError& e) {
        t.fail(key, e.what());
      }
      if (key == "hw") hardware_.insert(v.get<std::string>());
      return;
    }
    if (!v.is_number()) t.fail(key, "'" + key + "' is not an experiment setting, so it must be a hardware key with a number");
    hardware_values_.push_back({&t, key, v.get<double>()});
  }

  // Hardware keys are checked once every hardware is known: each value on each hardware, as
  // the loader would read it.
  void check_hardware(const std::string& default_hw) {
    if (hardware_.empty()) hardware_.insert(default_hw);
    for (const std::string& hw : hardware_) {
      const HardwareDocument doc = HardwareDocument::load(hw);
      for (const auto& [t, key, value] : hardware_values_) {
        try {
          HardwareDocument edited = doc;
          apply_edits(edited, {HardwareEdit{key, value, false}}, key);
          edited.spec();
        } catch (const InputError& e) {
          t->fail(key, std::string(e.what()) + (hardware_.size() > 1 ? " (on " + hw + ")" : ""));
        }
      }
    }
  }

 private:
  struct HardwareValue {
    const ConfigTable* t;
    std::string key;
    double value;
  };
  std::filesystem::path dir_;
  bool serve_;
  std::set<std::string> hardware_;
  std::vector<HardwareValue> hardware_values_;
};

// A grid dimension: a list, or a range {from, to, times} (geometric) or {from, to, step}.
std::vector<nlohmann::json> grid_values(ConfigTable& g, const std::string& key) {
  const toml::node& n = g.node(key);
  std::vector<nlohmann::json> out;
  if (const toml::array* a = n.as_array()) {
    for (const toml::node& v : *a) out.push_back(toml_scalar(g, key, v));
  } else if (n.is_table()) {
    ConfigTable r = g.table(key);
    const double from = r.finite_number("from"), to = r.finite_number("to");
    const bool whole = r.node("from").is_integer() && r.node("to").is_integer();
    if (to < from) g.fail(key, "'to' is below 'from'");
    const bool geometric = r.has("times");
    if (geometric == r.has("step")) g.fail(key, "a range takes 'times' (geometric) or 'step' (arithmetic), one of them");
    const double by = geometric ? r.positive_number("times") : r.positive_number("step");
    if (geometric && (by <= 1 || from <= 0)) g.fail(key, "a geometric range needs 'from' > 0 and 'times' > 1");
    for (std::size_t i = 0;; ++i) {
      const double v = geometric ? from * std::pow(by, static_cast<double>(i)) : from + by * static_cast<double>(i);
      if (v > to * (1 + 1e-12)) break;
      if (out.size() == kMaxValuesPerKey) g.fail(key, "more than 100,000 values");
      out.push_back(whole && (geometric ? by == std::floor(by) : r.node("step").is_integer()) ? nlohmann::json(std::llround(v))
                                                                                              : nlohmann::json(v));
    }
    r.reject_unknown_keys();
  } else {
    out.push_back(toml_scalar(g, key, n));
  }
  if (out.empty()) g.fail(key, "no values");
  return out;
}

SweepFile::Range sample_range(ConfigTable& s, const std::string& key) {
  SweepFile::Range range;
  range.key = key;
  const toml::node& n = s.node(key);
  if (const toml::array* a = n.as_array()) {
    for (const toml::node& v : *a) range.choices.push_back(toml_scalar(s, key, v));
    if (range.choices.empty()) s.fail(key, "no values");
    return range;
  }
  if (!n.is_table()) s.fail(key, "expected a list of values or a range {min = A, max = B}");
  ConfigTable r = s.table(key);
  range.min = r.finite_number("min");
  range.max = r.finite_number("max");
  if (range.max < range.min) s.fail(key, "'max' is below 'min'");
  if (r.has("scale")) range.log = r.one_of("scale", {"linear", "log"}) == "log";
  if (range.log && range.min <= 0) s.fail(key, "a log scale needs 'min' > 0");
  range.integer = r.boolean_or("integer", r.node("min").is_integer() && r.node("max").is_integer());
  r.reject_unknown_keys();
  return range;
}

// Uniform in [0, 1) from 53 bits of the generator: the same on every platform (the standard
// distributions are not).
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

nlohmann::json draw(const SweepFile::Range& r, double u) {
  if (!r.choices.empty()) {
    const auto i = std::min(r.choices.size() - 1, static_cast<std::size_t>(u * static_cast<double>(r.choices.size())));
    return r.choices[i];
  }
  double v = r.log ? std::exp(std::log(r.min) + u * (std::log(r.max) - std::log(r.min))) : r.min + u * (r.max - r.min);
  if (r.integer) return std::clamp(std::llround(v), std::llround(std::ceil(r.min)), std::llround(std::floor(r.max)));
  return v;
}

// The sample's points: independent draws, or a Latin hypercube (each key's range cut into
// `samples` equal strata, one draw in each, strata paired at random across keys).
std::vector<nlohmann::json> sample_points(const SweepFile& f) {
  std::vector<nlohmann::json> out(f.samples, nlohmann::json::object());
  std::mt19937_64 rng(f.seed);
  for (const SweepFile::Range& r : f.ranges) {
    std::vector<std::size_t> strata(f.samples);
    for (std::size_t i = 0; i < f.samples; ++i) strata[i] = i;
    if (f.method == "latin-hypercube") {
      for (std::size_t i = f.samples; i > 1; --i) std::swap(strata[i - 1], strata[static_cast<std::size_t>(rng() % i)]);
    }
    for (std::size_t i = 0; i < f.samples; ++i) {
      const double u = f.method == "latin-hypercube" ? (static_cast<double>(strata[i]) + unit(rng)) / static_cast<double>(f.samples)
                                                     : unit(rng);
      out[i][r.key] = draw(r, u);
    }
  }
  return out;
}

}  // namespace

SweepFile load_sweep_file(const std::string& path) {
  toml::table doc = ConfigTable::parse_file(path);
  ConfigTable top(doc, path, "");
  SweepFile f;
  f.path = path;
  if (top.has("command")) f.command = top.one_of("command", {"run", "serve"});
  SettingChecker checker(std::filesystem::path(path).parent_path(), f.command == "serve");
  std::set<std::string> seen;
  auto claim = [&](const ConfigTable& t, const std::string& key) {
    if (!seen.insert(key).second) t.fail(key, "'" + key + "' is given twice (in [base], [grid] or [sample.ranges]: once only)");
  };

  std::optional<ConfigTable> base = top.optional_table("base");
  if (base) {
    for (const std::string& key : base->keys_in_file_order()) {
      claim(*base, key);
      f.base_keys.push_back(key);
      f.base[key] = checker.resolve(key, toml_scalar(*base, key, base->node(key)));
      checker.check(*base, key, f.base[key]);
    }
  }
  std::optional<ConfigTable> grid = top.optional_table("grid");
  if (grid) {
    for (const std::string& key : grid->keys_in_file_order()) {
      claim(*grid, key);
      SweepFile::Dimension d{key, grid_values(*grid, key)};
      for (nlohmann::json& v : d.values) {
        v = checker.resolve(key, v);
        checker.check(*grid, key, v);
      }
      f.grid.push_back(std::move(d));
    }
  }
  std::optional<ConfigTable> sample = top.optional_table("sample");
  std::optional<ConfigTable> ranges;
  if (sample) {
    f.method = sample->one_of("method", {"random", "latin-hypercube"});
    const std::int64_t n = sample->positive_integer("points");
    if (n > 10'000'000) sample->fail("points", "at most 10 million");
    f.samples = static_cast<std::size_t>(n);
    if (sample->has("seed")) {
      const toml::node& s = sample->node("seed");
      if (!s.is_integer() || s.as_integer()->get() < 0) sample->fail("seed", "expected a whole number >= 0");
      f.seed = static_cast<std::uint64_t>(s.as_integer()->get());
    }
    ranges = sample->table("ranges");
    for (const std::string& key : ranges->keys_in_file_order()) {
      claim(*ranges, key);
      SweepFile::Range r = sample_range(*ranges, key);
      for (nlohmann::json& v : r.choices) {
        v = checker.resolve(key, v);
        checker.check(*ranges, key, v);
      }
      if (r.choices.empty()) {
        checker.check(*ranges, key, r.integer ? nlohmann::json(std::llround(r.min)) : nlohmann::json(r.min));
        checker.check(*ranges, key, r.integer ? nlohmann::json(std::llround(r.max)) : nlohmann::json(r.max));
      }
      f.ranges.push_back(std::move(r));
    }
    if (f.ranges.empty()) sample->fail("ranges", "no ranges to sample");
    sample->reject_unknown_keys();
  }
  std::optional<ConfigTable> constraints = top.optional_table("constraints");
  if (constraints) {
    const toml::node& req = constraints->node("require");
    const toml::array* a = req.as_array();
    if (!a) constraints->fail("require", "expected a list of strings such as [\"tp * pp <= 8\"]");
    for (const toml::node& c : *a) {
      if (!c.is_string()) constraints->fail("require", "expected a list of strings such as [\"tp * pp <= 8\"]");
      try {
        f.constraints.emplace_back(c.as_string()->get());
        for (const std::string& name : f.constraints.back().names()) {
          if (!seen.count(name) && !experiment_number(Experiment{}, name)) {
            throw InputError("constraint '" + c.as_string()->get() + "': '" + name +
                             "' is neither a numeric experiment setting nor a key of this sweep");
          }
        }
      } catch (const InputError& e) {
        constraints->fail("require", e.what());
      }
    }
    constraints->reject_unknown_keys();
  }
  top.reject_unknown_keys();
  checker.check_hardware(Experiment{}.hw);
  return f;
}

ExpandedSweep expand_sweep(const SweepFile& f, std::size_t max_points) {
  std::size_t grid_points = 1;
  for (const SweepFile::Dimension& d : f.grid) {
    grid_points *= d.values.size();
    if (grid_points > max_points) throw InputError(f.path + ": the grid has more than " + std::to_string(max_points) + " points");
  }
  const std::size_t samples = f.method.empty() ? 1 : f.samples;
  if (grid_points * samples > max_points) {
    throw InputError(f.path + ": the sweep has " + std::to_string(grid_points) + " x " + std::to_string(samples) +
                     " points, more than " + std::to_string(max_points));
  }
  const std::vector<nlohmann::json> drawn = f.method.empty() ? std::vector<nlohmann::json>{nlohmann::json::object()} : sample_points(f);
  ExpandedSweep out;
  for (std::size_t g = 0; g < grid_points; ++g) {
    nlohmann::json point = f.base;
    std::size_t rest = g;
    for (std::size_t d = f.grid.size(); d-- > 0;) {
      point[f.grid[d].key] = f.grid[d].values[rest % f.grid[d].values.size()];
      rest /= f.grid[d].values.size();
    }
    for (const nlohmann::json& s : drawn) {
      nlohmann::json settings = point;
      settings.update(s);
      Experiment defaults;
      auto value_of = [&](const std::string& name) -> std::optional<double> {
        if (settings.contains(name) && settings[name].is_number()) return settings[name].get<double>();
        if (settings.contains(name)) return std::nullopt;
        return experiment_number(defaults, name);
      };
      bool keep = true;
      for (const Constraint& c : f.constraints) keep = keep && c.holds(value_of);
      if (!keep) {
        ++out.skipped;
        continue;
      }
      out.points.push_back({out.points.size(), std::move(settings)});
    }
  }
  return out;
}

Experiment point_experiment(const SweepFile& f, const nlohmann::json& settings) {
  Experiment e;
  e.source = f.path;
  std::vector<HardwareEdit> edits;
  nlohmann::json machine = nlohmann::json::object();
  for (const auto& [key, value] : settings.items()) {
    if (is_experiment_setting(key)) {
      machine[key] = value;
    } else {
      edits.push_back({key, value.get<double>(), false});
    }
  }
  // The chip first, then its edits, then the rest in the table's order (a stack's kernel
  // parameters go onto the edited chip).
  if (machine.contains("hw")) set_experiment_setting(e, "hw", machine["hw"]);
  if (!edits.empty()) {
    HardwareDocument doc = HardwareDocument::load(e.hw);
    apply_edits(doc, edits, f.path);
    e.hardware = doc.spec();
  }
  set_experiment_settings(e, machine, [](const std::string& key) { return key == "hw"; });
  return e;
}

ServingSetup point_serving_setup(const SweepFile& f, const nlohmann::json& settings) {
  ServingSettings serving;
  std::set<std::string> machine_given;
  const nlohmann::json machine = set_serving_part(serving, settings, machine_given);
  return serving.finish(point_experiment(f, machine), f.path, machine_given);
}

}  // namespace roofsim
