#pragma once
// Design-space sweep files (TOML): the settings every point shares, a grid of values and/or a
// seeded random or Latin-hypercube sample of ranges, and constraints that skip points. A
// point's settings are experiment settings (experiment/experiment_settings.hpp) and hardware
// keys; the same file always expands to the same points in the same order. Format: docs/sweeps.md.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/inference.hpp"
#include "serving/serving.hpp"
#include "sweep/sweep_constraint.hpp"

namespace roofsim {

struct SweepFile {
  std::string path;
  // What each point runs: "run" (a batch: prefill, then decode; `roofsim run`) or "serve"
  // (requests over time; `roofsim serve`, whose settings the points may then vary too).
  std::string command = "run";
  // Every point's settings before its own: key -> value (JSON number, string or bool).
  nlohmann::json base = nlohmann::json::object();
  std::vector<std::string> base_keys;  // in file order, for columns
  // [grid]: every combination, the first key (in file order) varying slowest.
  struct Dimension {
    std::string key;
    std::vector<nlohmann::json> values;
  };
  std::vector<Dimension> grid;
  // [sample]: `points` draws of the ranges, crossed with the grid.
  struct Range {
    std::string key;
    double min = 0, max = 0;
    bool log = false, integer = false;
    std::vector<nlohmann::json> choices;  // a list instead of a range: one of them, equally likely
  };
  std::string method;  // "" (no sample), "random" or "latin-hypercube"
  std::size_t samples = 0;
  std::uint64_t seed = 1;
  std::vector<Range> ranges;
  std::vector<Constraint> constraints;  // [constraints] require: every one must hold
};

// Reads and checks a sweep file: every key an experiment setting or a hardware key of the
// base hardware, every value of the right type. Throws ConfigError naming the file, line and key.
SweepFile load_sweep_file(const std::string& path);

struct SweepPointSettings {
  std::size_t index = 0;     // position among the file's points (after constraints)
  nlohmann::json settings;   // key -> value, keys sorted: the point's identity
};

struct ExpandedSweep {
  std::vector<SweepPointSettings> points;
  std::size_t skipped = 0;  // points a constraint removed
};
// The file's points in order. Throws InputError for more than `max_points` points.
ExpandedSweep expand_sweep(const SweepFile& f, std::size_t max_points = 10'000'000);

// The experiment one point describes (its hardware edited by the point's hardware keys): for
// "serve" sweeps, the machine. Throws InputError for settings the loaders refuse.
Experiment point_experiment(const SweepFile& f, const nlohmann::json& settings);
// A "serve" sweep's point as a serving run.
ServingSetup point_serving_setup(const SweepFile& f, const nlohmann::json& settings);

}  // namespace roofsim
