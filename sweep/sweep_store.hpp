#pragma once
// Where a design-space sweep's finished points live: an SQLite database, one row per point,
// each committed the moment the point finishes, so a sweep killed at any moment keeps every
// finished point and a re-run runs only what is missing. A point is keyed by its identity
// (its settings, and the contents of any hardware or model files they name) and the roofsim
// version that computed it: a new roofsim recomputes, an unchanged one reuses.
#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

struct sqlite3;

namespace roofsim {

// The version results are keyed by: the release and the source revision it was built from.
std::string roofsim_build_version();

struct StoredPoint {
  std::string identity;      // settings (sorted JSON) and input file digests
  std::string version;       // roofsim_build_version() of the run that computed it
  std::size_t index = 0;     // the point's position in the sweep that computed it
  nlohmann::json settings;   // key -> value
  std::string status;        // "ok" or "error" (a point the simulator refused: it is not retried)
  std::string error;         // why, for "error"
  nlohmann::json result;     // the point's record, for "ok"
  double wall_s = 0;         // what simulating it took
};

class SweepStore {
 public:
  // Opens the store at `path`, creating it if missing. `flag` names where the path came from
  // in messages ("--store"). Throws InputError for a file that is not a roofsim sweep store.
  SweepStore(const std::string& path, const std::string& flag);
  ~SweepStore();
  SweepStore(const SweepStore&) = delete;
  SweepStore& operator=(const SweepStore&) = delete;

  // Commits one point at once (a point already stored is replaced) and drops its claim.
  void put(const StoredPoint& p);
  // Claims a point for this process before simulating it, so that sweeps writing one store at
  // once share the work: `stored` when the point is stored intact by now, `running_elsewhere`
  // when another sweep still running has claimed it (a process of this host that is alive; on
  // another host, a claim under an hour old). The claims of a killed sweep are taken over.
  enum class Claim { mine, stored, running_elsewhere };
  Claim claim(const std::string& identity, const std::string& version);
  // The identities of the points computed by `version` (what a resumed sweep skips).
  std::set<std::string> identities(const std::string& version) const;
  // Every point computed by `version`, by identity.
  std::map<std::string, StoredPoint> points(const std::string& version) const;
  // Copies every point of another store into this one (points already here are kept).
  // Returns how many were new.
  std::size_t merge_from(const std::string& other_path);
  const std::string& path() const { return path_; }

 private:
  void put_record(const StoredPoint& p);  // put() inside its transaction
  void exec(const std::string& sql) const;
  [[noreturn]] void fail(const std::string& what) const;
  std::string path_, flag_;
  sqlite3* db_ = nullptr;
};

}  // namespace roofsim
