#include "components/server.hpp"

#include "components/sim_context.hpp"

namespace roofsim {

EventQueue::EventQueue(const sc_core::sc_module_name& name, SimStats& stats)
    : sc_core::sc_module(name), stats_(stats) {
  SC_METHOD(on_wake);
  sensitive << wake_;
  dont_initialize();
}

void EventQueue::at(Picoseconds at, Callback done) {
  const Picoseconds now = now_ps();
  if (at >= kMaxSimulatedPs) throw_time_out_of_range(to_seconds(at));
  pending_[at < now ? now : at].calls.push_back(std::move(done));
  ++count_;
  arm(now);
}

void EventQueue::arm(Picoseconds now) {
  const Picoseconds next = pending_.begin()->first;
  if (next >= armed_at_) return;  // an earlier or equal wake-up is already pending
  armed_at_ = next;
  // A later pending notification is overridden by an earlier one (IEEE 1666 sc_event rules).
  wake_.notify(sc_core::sc_time::from_value(next - now));
}

void EventQueue::on_wake() {
  const Picoseconds now = now_ps();
  armed_at_ = UINT64_MAX;
  dispatching_ = true;
  while (!pending_.empty() && pending_.begin()->first <= now) {
    const auto first = pending_.begin();
    Due& due = first->second;  // callbacks may add to it (events due now): run by index
    while (due.next < due.calls.size()) {
      Callback done = std::move(due.calls[due.next++]);
      --count_;
      ++stats_.events;
      if (done) {
        // An error in a callback ends the simulation (SimulationContext::run rethrows it)
        // instead of reaching SystemC's handler.
        if (!SimulationContext::guarded(done)) {
          dispatching_ = false;
          return;
        }
      }
    }
    pending_.erase(first);
  }
  dispatching_ = false;
  if (!pending_.empty()) arm(now);
}

}  // namespace roofsim
