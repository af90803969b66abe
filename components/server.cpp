#include "components/server.hpp"

#include <algorithm>

namespace roofsim {

Server::Server(const sc_core::sc_module_name& name, SimStats& stats)
    : sc_core::sc_module(name), stats_(stats) {
  SC_METHOD(on_wake);
  sensitive << wake_;
  dont_initialize();
}

Picoseconds Server::submit(Picoseconds service, Picoseconds latency, Callback done) {
  const Picoseconds now = now_ps();
  const Picoseconds start = std::max(now, free_at_ps_);
  free_at_ps_ = start + service;
  busy_ps_ += service;
  const Picoseconds ready = free_at_ps_ + latency;
  jobs_.push(Job{ready, seq_++, std::move(done)});
  arm(now);
  return ready;
}

void Server::arm(Picoseconds now) {
  const Picoseconds next = jobs_.top().ready_at;
  if (next >= armed_at_) return;  // an earlier or equal wake-up is already pending
  armed_at_ = next;
  // A later pending notification is overridden by an earlier one (IEEE 1666 sc_event rules).
  wake_.notify(sc_core::sc_time::from_value(next - now));
}

void Server::on_wake() {
  const Picoseconds now = now_ps();
  armed_at_ = UINT64_MAX;
  while (!jobs_.empty() && jobs_.top().ready_at <= now) {
    Callback done = std::move(const_cast<Job&>(jobs_.top()).done);
    jobs_.pop();
    ++served_;
    ++stats_.events;
    if (done) done();
  }
  if (!jobs_.empty()) arm(now);
}

}  // namespace roofsim
