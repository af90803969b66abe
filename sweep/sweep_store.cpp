#include "sweep/sweep_store.hpp"

#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "core/digest.hpp"
#include "core/error.hpp"
#include "experiment/build_version.hpp"

namespace roofsim {

namespace {

constexpr int kStoreFormat = 1;

// A prepared statement that finalizes itself.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  explicit operator bool() const { return stmt_ != nullptr; }
  sqlite3_stmt* get() const { return stmt_; }
  void text(int i, const std::string& s) { sqlite3_bind_text(stmt_, i, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT); }
  std::string column_text(int i) const {
    const unsigned char* t = sqlite3_column_text(stmt_, i);
    return t ? std::string(reinterpret_cast<const char*>(t), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, i))) : std::string();
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

// A record's digest over every field but its wall time, in the store's text: a record whose
// text changed (a flipped byte, a page written over it) no longer matches.
std::string record_digest(const std::string& identity, const std::string& version, long long index, const std::string& settings,
                          const std::string& status, const std::string& error, const std::string& result) {
  std::uint64_t h = kFnvOffset;
  for (const std::string& field : {identity, version, std::to_string(index), settings, status, error, result}) {
    h = fnv1a64(field, h);
    h = fnv1a64(std::string_view("\x1f", 1), h);  // fields apart: "ab" + "c" is not "a" + "bc"
  }
  return digest_hex(h);
}

// The columns a record's intact check reads, in this order, as a block of every SELECT that
// checks one (intact_at).
const std::string kRecordColumns = "idx, settings, status, error, result, digest";

// Whether the record whose kRecordColumns start at column `first` of `row` is intact:
// settings and result read as JSON and, where it has one (stores from before the digest have
// none), its digest matches.
bool intact_at(const Statement& row, int first, const std::string& identity, const std::string& version) {
  const std::string settings = row.column_text(first + 1), result = row.column_text(first + 4), digest = row.column_text(first + 5);
  if (!nlohmann::json::accept(settings) || !nlohmann::json::accept(result)) return false;
  return digest.empty() || digest == record_digest(identity, version, sqlite3_column_int64(row.get(), first), settings,
                                                   row.column_text(first + 2), row.column_text(first + 3), result);
}

}  // namespace

std::string roofsim_build_version() { return kRoofsimBuildVersion; }

SweepStore::SweepStore(const std::string& path, const std::string& flag) : path_(path), flag_(flag) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw InputError(flag + " " + path + ": cannot open the store (" + why + ")");
  }
  // Another process writing the same store (two sweeps by mistake) waits rather than fails.
  sqlite3_busy_timeout(db_, 60'000);
  try {
    // The store is looked at and set up in one write transaction, taken before anything is
    // read: a sweep and a `--plan` opening a new store at once otherwise each hold a read lock
    // and want to write, and SQLite answers one of them "database is locked" at once, without
    // waiting (seen about one start in thirty). BEGIN IMMEDIATE waits for the other instead.
    exec("BEGIN IMMEDIATE");  // "file is not a database" and the like, said by exec
    // An SQLite file with tables but none of a store's is someone else's: nothing is added to it.
    std::string others;
    bool store = false;
    {
      Statement tables(db_, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
      if (!tables) fail("cannot read the store's tables");
      while (sqlite3_step(tables.get()) == SQLITE_ROW) {
        const std::string name = tables.column_text(0);
        if (name == "roofsim_store") store = true;
        else if (name != "points" && name != "claims") others += (others.empty() ? "" : ", ") + name;
      }
    }
    if (!store && !others.empty()) {
      throw InputError(flag + " " + path + ": an SQLite file that is not a roofsim sweep store (its tables: " + others +
                       "); give another path");
    }
    exec("CREATE TABLE IF NOT EXISTS roofsim_store (format INTEGER NOT NULL)");
    bool has_format = false;
    {
      Statement format(db_, "SELECT format FROM roofsim_store");
      if (!format) fail("cannot read the store");
      if (sqlite3_step(format.get()) == SQLITE_ROW) {
        has_format = true;
        if (sqlite3_column_int(format.get(), 0) != kStoreFormat) fail("a store of another format (roofsim store format " + std::to_string(kStoreFormat) + " expected)");
      }
    }
    if (!has_format) exec("INSERT INTO roofsim_store (format) VALUES (" + std::to_string(kStoreFormat) + ")");
    exec("CREATE TABLE IF NOT EXISTS points ("
         " identity TEXT NOT NULL, version TEXT NOT NULL, idx INTEGER NOT NULL, settings TEXT NOT NULL,"
         " status TEXT NOT NULL, error TEXT NOT NULL, result TEXT NOT NULL, wall_s REAL NOT NULL,"
         " digest TEXT NOT NULL DEFAULT '', PRIMARY KEY (identity, version))");
    // Stores from before the digest gain its column (their records, without one, stay trusted).
    bool has_digest = false;
    {
      Statement columns(db_, "PRAGMA table_info(points)");
      if (!columns) fail("cannot read the store's columns");
      while (sqlite3_step(columns.get()) == SQLITE_ROW) has_digest = has_digest || columns.column_text(1) == "digest";
    }
    if (!has_digest) exec("ALTER TABLE points ADD COLUMN digest TEXT NOT NULL DEFAULT ''");
    // Points a running sweep has taken (SweepStore::claim): by host and process.
    exec("CREATE TABLE IF NOT EXISTS claims ("
         " identity TEXT NOT NULL, version TEXT NOT NULL, host TEXT NOT NULL, pid INTEGER NOT NULL, claimed_at REAL NOT NULL,"
         " PRIMARY KEY (identity, version))");
    exec("COMMIT");
  } catch (...) {
    // Nothing of a refused file is changed: the transaction, if one began, is undone.
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

SweepStore::~SweepStore() { sqlite3_close(db_); }

void SweepStore::fail(const std::string& what) const {
  throw InputError(flag_ + " " + path_ + ": " + what + (db_ ? std::string(" (") + sqlite3_errmsg(db_) + ")" : ""));
}

void SweepStore::exec(const std::string& sql) const {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string why = message ? message : "unknown error";
    sqlite3_free(message);
    // "file is not a database" and the like: the path names something else.
    throw InputError(flag_ + " " + path_ + ": not a roofsim sweep store, or it cannot be written (" + why + ")");
  }
}

void SweepStore::put(const StoredPoint& p) {
  // The record and the end of its claim are one transaction: the point is on disk when this
  // returns.
  exec("BEGIN IMMEDIATE");
  try {
    put_record(p);
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  exec("COMMIT");
}

void SweepStore::put_record(const StoredPoint& p) {
  Statement insert(db_,
                   "INSERT OR REPLACE INTO points (identity, version, idx, settings, status, error, result, wall_s, digest)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!insert) fail("cannot write a point");
  const std::string settings = p.settings.dump(), result = p.result.dump();
  insert.text(1, p.identity);
  insert.text(2, p.version);
  sqlite3_bind_int64(insert.get(), 3, static_cast<sqlite3_int64>(p.index));
  insert.text(4, settings);
  insert.text(5, p.status);
  insert.text(6, p.error);
  insert.text(7, result);
  sqlite3_bind_double(insert.get(), 8, p.wall_s);
  insert.text(9, record_digest(p.identity, p.version, static_cast<long long>(p.index), settings, p.status, p.error, result));
  if (sqlite3_step(insert.get()) != SQLITE_DONE) fail("cannot write a point");
  Statement unclaim(db_, "DELETE FROM claims WHERE identity = ? AND version = ?");
  if (!unclaim) fail("cannot write a point");
  unclaim.text(1, p.identity);
  unclaim.text(2, p.version);
  if (sqlite3_step(unclaim.get()) != SQLITE_DONE) fail("cannot write a point");
}

namespace {

std::string this_host() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

double now_s() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

// A claim holds while its sweep may still be running: a process of this host that exists, or
// (another host's, which this one cannot ask) for an hour. A point that takes longer may be
// simulated twice, harmlessly: the results are the same.
bool claim_holds(const std::string& host, long pid, double claimed_at) {
  if (host == this_host()) return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
  return now_s() - claimed_at < 3600;
}

}  // namespace

SweepStore::Claim SweepStore::claim(const std::string& identity, const std::string& version) {
  const std::string host = this_host();
  const long pid = static_cast<long>(::getpid());
  exec("BEGIN IMMEDIATE");  // looked at and claimed in one write transaction
  try {
    Claim result = Claim::mine;
    {
      Statement stored(db_, ("SELECT " + kRecordColumns + " FROM points WHERE identity = ? AND version = ?").c_str());
      if (!stored) fail("cannot read the points");
      stored.text(1, identity);
      stored.text(2, version);
      if (sqlite3_step(stored.get()) == SQLITE_ROW && intact_at(stored, 0, identity, version)) result = Claim::stored;
    }
    if (result == Claim::mine) {
      Statement claimed(db_, "SELECT host, pid, claimed_at FROM claims WHERE identity = ? AND version = ?");
      if (!claimed) fail("cannot read the claims");
      claimed.text(1, identity);
      claimed.text(2, version);
      if (sqlite3_step(claimed.get()) == SQLITE_ROW) {
        const std::string other = claimed.column_text(0);
        const long other_pid = static_cast<long>(sqlite3_column_int64(claimed.get(), 1));
        if ((other != host || other_pid != pid) && claim_holds(other, other_pid, sqlite3_column_double(claimed.get(), 2))) {
          result = Claim::running_elsewhere;
        }
      }
    }
    if (result == Claim::mine) {
      Statement take(db_, "INSERT OR REPLACE INTO claims (identity, version, host, pid, claimed_at) VALUES (?, ?, ?, ?, ?)");
      if (!take) fail("cannot claim a point");
      take.text(1, identity);
      take.text(2, version);
      take.text(3, host);
      sqlite3_bind_int64(take.get(), 4, pid);
      sqlite3_bind_double(take.get(), 5, now_s());
      if (sqlite3_step(take.get()) != SQLITE_DONE) fail("cannot claim a point");
    }
    exec("COMMIT");
    return result;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::set<std::string> SweepStore::identities(const std::string& version) const {
  // Only intact records count as stored: a damaged one (its digest no longer matches, or its
  // settings or result no longer JSON) is computed again, and the new record replaces it.
  Statement select(db_, ("SELECT identity, " + kRecordColumns + " FROM points WHERE version = ?").c_str());
  if (!select) fail("cannot read the points");
  select.text(1, version);
  std::set<std::string> out;
  int rc;
  while ((rc = sqlite3_step(select.get())) == SQLITE_ROW) {
    const std::string identity = select.column_text(0);
    if (intact_at(select, 1, identity, version)) out.insert(identity);
  }
  if (rc != SQLITE_DONE) fail("cannot read the points");
  return out;
}

std::map<std::string, StoredPoint> SweepStore::points(const std::string& version) const {
  Statement select(db_, ("SELECT identity, version, wall_s, " + kRecordColumns + " FROM points WHERE version = ?").c_str());
  if (!select) fail("cannot read the points");
  select.text(1, version);
  std::map<std::string, StoredPoint> out;
  int rc;
  while ((rc = sqlite3_step(select.get())) == SQLITE_ROW) {
    StoredPoint p;
    p.identity = select.column_text(0);
    p.version = select.column_text(1);
    p.wall_s = sqlite3_column_double(select.get(), 2);
    p.index = static_cast<std::size_t>(sqlite3_column_int64(select.get(), 3));
    p.settings = nlohmann::json::parse(select.column_text(4), nullptr, false);
    p.status = select.column_text(5);
    p.error = select.column_text(6);
    p.result = nlohmann::json::parse(select.column_text(7), nullptr, false);
    if (!intact_at(select, 3, p.identity, p.version)) {
      fail("point " + std::to_string(p.index) + "'s record is damaged: run the sweep again to compute it anew");
    }
    out.emplace(p.identity, std::move(p));
  }
  if (rc != SQLITE_DONE) fail("cannot read the points");
  return out;
}

std::size_t SweepStore::merge_from(const std::string& other_path) {
  // Opening it as a store checks that it is one (and creates nothing new in a real store).
  { SweepStore other(other_path, "--merge"); }
  Statement attach(db_, "ATTACH DATABASE ? AS other");
  if (!attach) fail("cannot merge");
  attach.text(1, other_path);
  if (sqlite3_step(attach.get()) != SQLITE_DONE) fail("cannot open " + other_path + " to merge it");
  const int before = sqlite3_total_changes(db_);
  try {
    exec("INSERT OR IGNORE INTO points (identity, version, idx, settings, status, error, result, wall_s, digest)"
         " SELECT identity, version, idx, settings, status, error, result, wall_s, digest FROM other.points");
  } catch (...) {
    exec("DETACH DATABASE other");
    throw;
  }
  const int added = sqlite3_total_changes(db_) - before;
  exec("DETACH DATABASE other");
  return static_cast<std::size_t>(added);
}

}  // namespace roofsim
