#pragma once
// Runs a design-space sweep file against a results store: the points of this shard not yet
// stored are simulated (in forked workers with jobs > 1), each committed the moment it
// finishes; then the stored points read back as one table in the file's order.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/progress.hpp"
#include "sweep/sweep_file.hpp"
#include "sweep/sweep_store.hpp"

namespace roofsim {

// Where a sweep file's results go unless told: beside it, sweep.toml -> sweep.db.
std::string default_sweep_store(const std::string& file);

struct DesignSweepOptions {
  int jobs = 1;
  int shard = 0, shards = 1;  // this run takes the points whose index % shards == shard
};

struct DesignSweepReport {
  std::size_t points = 0;   // the file's points (after constraints)
  std::size_t skipped = 0;  // points the constraints removed
  std::size_t mine = 0;     // this shard's points
  std::size_t reused = 0;   // of those, already in the store
  std::size_t shared = 0;   // left to another sweep writing the same store (SweepStore::claim)
  std::size_t ran = 0;      // simulated now
  std::size_t refused = 0;  // of those, refused by the simulator (stored with the reason)
  double wall_s = 0;        // simulating them took
};

// A point's identity in the store: its settings, and a digest of each hardware, model or
// trace file they name (editing the file is a new point).
class PointIdentities {
 public:
  std::string of(const nlohmann::json& settings);

 private:
  std::map<std::string, std::string> digests_;
};

// The record a finished point keeps: the run's scalar results (times, bounds, intensities,
// memory, events), without its wall time.
nlohmann::json point_record(const ExperimentResult& r);
// The same for a serving run: the summary's numbers (percentiles as ttft_s.p50, ...), the
// iterations, the simulated time and the KV cache's counts.
nlohmann::json serving_record(const ServingResult& r);

DesignSweepReport run_design_sweep(const SweepFile& f, const ExpandedSweep& points, SweepStore& store,
                                   const DesignSweepOptions& o, const RunControl& control = {});

struct SweepTable {
  std::vector<std::string> columns;  // index, the settings, status, error, then the results
  nlohmann::json rows = nlohmann::json::array();  // one object per stored point, in the file's order (wall_s included)
  std::size_t missing = 0;           // points of the file not in the store (yet)
};
// The file's points as this roofsim build stored them.
SweepTable sweep_table(const SweepFile& f, const ExpandedSweep& points, const SweepStore& store);

}  // namespace roofsim
