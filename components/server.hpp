#pragma once
// Every hardware resource is a server: a job starts at max(now, free_at), occupies the resource
// for its service time, and its result is ready a pipelined latency later. Queueing, contention
// and idle time emerge from that. The arithmetic lives in Timeline (no kernel involvement);
// the SystemC event that tells the waiting control flow "ready" lives in EventQueue. A job
// spread over several resources at once (an HBM request over all channels, a wave of tiles
// over all matrix units) reserves each resource's timeline and causes one event, when its last
// piece is ready: that keeps event counts proportional to requests and waves, not to units.
#include <cstdint>
#include <functional>
#include <map>
#include <systemc>
#include <vector>

#include "components/sim_stats.hpp"
#include "components/time_units.hpp"

namespace roofsim {

using Callback = std::function<void()>;

inline Picoseconds now_ps() { return sc_core::sc_time_stamp().value(); }

// The occupancy of one resource.
class Timeline {
 public:
  // Reserves `service` starting no earlier than `now`; returns when the service ends.
  Picoseconds reserve(Picoseconds now, Picoseconds service) {
    const Picoseconds start = now > free_at_ ? now : free_at_;
    free_at_ = start + service;
    busy_ += service;
    ++jobs_;
    last_start_ = start;
    return free_at_;
  }
  Picoseconds free_at() const { return free_at_; }
  Picoseconds busy_ps() const { return busy_; }
  Picoseconds last_start() const { return last_start_; }
  std::uint64_t jobs() const { return jobs_; }
  // Layer replay (components/layer_replay.hpp): the resource as if it had served `jobs` more
  // jobs, busy `busy` in all, and were free from `free_at` on.
  void skip(Picoseconds free_at, Picoseconds busy, std::uint64_t jobs) {
    free_at_ = free_at;
    busy_ += busy;
    jobs_ += jobs;
  }
  // What a job submitted at `now` waits for: the busy time left.
  Picoseconds busy_after(Picoseconds now) const { return free_at_ > now ? free_at_ - now : 0; }

 private:
  Picoseconds free_at_ = 0, busy_ = 0, last_start_ = 0;
  std::uint64_t jobs_ = 0;
};

// Runs callbacks at given simulated times: one SC_METHOD, woken by one sc_event that is always
// armed for the earliest pending time.
class EventQueue : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(EventQueue);
  EventQueue(const sc_core::sc_module_name& name, SimStats& stats);

  // `done` runs at absolute time `at` (not before now).
  void at(Picoseconds at, Callback done);
  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  // Whether this queue's callbacks are running now (the kernel is inside on_wake).
  bool dispatching() const { return dispatching_; }
  SimStats& stats() { return stats_; }

 private:
  // The callbacks due at one time, in submission order (ties resolve so: deterministic). Many
  // events fall on the same picosecond (every chip of a ring step, every unit of a wave), so
  // the queue orders times, not events: a large heap of events spent most of a collective's
  // time sifting.
  struct Due {
    std::vector<Callback> calls;
    std::size_t next = 0;  // the first not run yet
  };
  void on_wake();
  void arm(Picoseconds now);

  std::map<Picoseconds, Due> pending_;
  std::size_t count_ = 0;
  Picoseconds armed_at_ = UINT64_MAX;
  bool dispatching_ = false;
  sc_core::sc_event wake_;
  SimStats& stats_;
};

// A single resource with its own event queue (the kernel launcher). Not the serving API server
// (serving/frontend.hpp) nor the web page's (ui/).
class QueuedResource : public sc_core::sc_module {
 public:
  QueuedResource(const sc_core::sc_module_name& name, SimStats& stats) : sc_core::sc_module(name), events_("events", stats) {}
  Picoseconds submit(Picoseconds service, Picoseconds latency, Callback done) {
    const Picoseconds ready = timeline_.reserve(now_ps(), service) + latency;
    events_.at(ready, std::move(done));
    return ready;
  }
  const Timeline& timeline() const { return timeline_; }
  Timeline& timeline() { return timeline_; }
  EventQueue& events() { return events_; }

 private:
  Timeline timeline_;
  EventQueue events_;
};

}  // namespace roofsim
