#pragma once
// What-ifs and sweeps: one experiment on a base chip and on variants of it, or over a grid of
// settings (experiment fields and hardware keys), every point simulated in this process, one
// after another, as typed results.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/hardware_edit.hpp"
#include "experiment/inference.hpp"
#include "experiment/progress.hpp"

namespace roofsim {

// A variant of the base experiment: a name for people, the hardware it runs on, and run
// settings it changes (`roofsim settings run`: fuse, kv_dtype, attention, batch...; an empty
// object: none) - a what-if of the software as well as of the chip.
struct WhatifVariant {
  std::string name;
  HardwareSpec hw;
  nlohmann::json settings = nlohmann::json::object();
};

struct WhatifRun {
  std::string name;
  ExperimentResult result;
  double prefill_speedup = 1, decode_speedup = 1;  // base time / this time (decode 0: no decode)
};

struct WhatifResult {
  std::vector<WhatifRun> runs;  // [0] is the base
};

// Runs `base` (its hardware is variants[0]'s) on each variant in turn.
// A variant's settings are applied to a copy of `base` (hw and model are refused there: a variant
// names its hardware, and compares one model).
WhatifResult run_whatif(const Experiment& base, const std::vector<WhatifVariant>& variants, const RunControl& control = {});
nlohmann::json to_json(const WhatifResult& r);

// One axis of a sweep grid: an experiment count (experiment_count_names(): batch, prompt, gen,
// tp, ...) or a hardware key (a document path or a friendly name).
struct SweepAxis {
  std::string key;
  std::vector<double> values;
};
// "batch=1,8,64" or "batch=1:512:x2" (geometric, at most 1,000 values); `flag` names the
// source in messages.
SweepAxis parse_sweep_axis(const std::string& text, const std::string& flag);
bool is_experiment_key(const std::string& key);

struct SweepPoint {
  std::size_t index = 0;        // position in the whole grid (shards keep it)
  std::vector<double> values;   // one per axis
  std::string error;            // the point could not run (does not fit, bad combination)
  double ttft_s = 0, tpot_s = 0, throughput_tok_s = 0, decode_tok_s = 0;
  double energy_per_token_j = 0, avg_power_w = 0;  // 0: the chip has no [energy] table
  double tokens_per_s_per_mm2 = 0, tokens_per_s_per_kusd = 0;  // 0: the chip has no [area] / [cost] table
  double prefill_intensity = 0, decode_intensity = 0, bound_tpot_s = 0;
  double decode_compute_share = 0;  // decode time in compute-bound ops
  bool has_decode = false;
  double wall_s = 0;
};

struct SweepResult {
  std::vector<std::string> keys;  // the axes
  int shard = 0, shards = 1;
  std::size_t grid_points = 0;    // in the whole grid
  std::vector<SweepPoint> points;
};

// Checks the axes and the shard against the grid (throws InputError); returns the grid's size.
std::size_t check_sweep(const HardwareDocument& hw, const std::vector<SweepAxis>& axes, int shard, int shards);

// One point of the grid (checked by check_sweep): a point that cannot run records its error.
SweepPoint run_sweep_point(const Experiment& base, const HardwareDocument& hw, const std::vector<SweepAxis>& axes, std::size_t index);
// Every point of the grid (the axes' product, first axis slowest) whose index i has
// i % shards == shard. A point that cannot run records its error and the sweep goes on;
// malformed axes throw InputError before anything runs. `on_point` hears of each point as it
// finishes.
SweepResult run_sweep(const Experiment& base, const HardwareDocument& hw, const std::vector<SweepAxis>& axes,
                      int shard = 0, int shards = 1, const RunControl& control = {},
                      const std::function<void(const SweepPoint&)>& on_point = {});
// The same points from `jobs` forked worker processes (experiment/worker_pool.hpp), gathered
// as they finish: the same result as run_sweep, faster on several cores. jobs 1 runs in this
// process. Not for processes that run threads of their own (fork).
SweepResult run_sweep_parallel(const Experiment& base, const HardwareDocument& hw, const std::vector<SweepAxis>& axes,
                               int shard, int shards, int jobs, const RunControl& control = {});
nlohmann::json to_json(const SweepResult& r);
// One point as its record, and back (shards and workers exchange points this way).
nlohmann::json point_json(const SweepPoint& p, const std::vector<std::string>& keys);
SweepPoint point_from_json(const nlohmann::json& j, std::size_t axes);
// Merges shards of one sweep (their JSON) into one result, points in grid order.
SweepResult merge_sweep_shards(const std::vector<nlohmann::json>& shards);
// Share of decode time spent in ops bound by compute (the rest: memory or links).
double decode_compute_share(const ExperimentResult& r);

}  // namespace roofsim
