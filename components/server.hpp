#pragma once
// A resource that serves one job at a time: start = max(now, free_at), free_at = start +
// service, and one SystemC event when the job's result is ready (service plus a pipelined
// latency that does not occupy the server). Queueing, contention and idle time emerge from
// every hardware block being one of these.
#include <cstdint>
#include <functional>
#include <queue>
#include <systemc>
#include <vector>

#include "components/sim_stats.hpp"
#include "components/time_units.hpp"

namespace roofsim {

class Server : public sc_core::sc_module {
 public:
  using Callback = std::function<void()>;

  SC_HAS_PROCESS(Server);
  Server(const sc_core::sc_module_name& name, SimStats& stats);

  // Queues a job; `done` runs when it is complete. Returns the completion time.
  Picoseconds submit(Picoseconds service, Picoseconds latency, Callback done);

  Picoseconds busy_ps() const { return busy_ps_; }
  Picoseconds free_at_ps() const { return free_at_ps_; }
  std::uint64_t jobs_served() const { return served_; }

 private:
  struct Job {
    Picoseconds ready_at;
    std::uint64_t seq;  // ties resolve in submission order: deterministic
    Callback done;
  };
  struct ReadyLater {
    bool operator()(const Job& a, const Job& b) const {
      return a.ready_at != b.ready_at ? a.ready_at > b.ready_at : a.seq > b.seq;
    }
  };

  void on_wake();
  void arm(Picoseconds now);

  std::priority_queue<Job, std::vector<Job>, ReadyLater> jobs_;
  Picoseconds free_at_ps_ = 0;
  Picoseconds busy_ps_ = 0;
  Picoseconds armed_at_ = UINT64_MAX;  // time of the pending wake-up, if any
  std::uint64_t seq_ = 0;
  std::uint64_t served_ = 0;
  sc_core::sc_event wake_;
  SimStats& stats_;
};

inline Picoseconds now_ps() { return sc_core::sc_time_stamp().value(); }

}  // namespace roofsim
