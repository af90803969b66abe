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
  pending_.push(Pending{at < now ? now : at, seq_++, std::move(done)});
  arm(now);
}

void EventQueue::arm(Picoseconds now) {
  const Picoseconds next = pending_.top().at;
  if (next >= armed_at_) return;  // an earlier or equal wake-up is already pending
  armed_at_ = next;
  // A later pending notification is overridden by an earlier one (IEEE 1666 sc_event rules).
  wake_.notify(sc_core::sc_time::from_value(next - now));
}

void EventQueue::on_wake() {
  const Picoseconds now = now_ps();
  armed_at_ = UINT64_MAX;
  dispatching_ = true;
  while (!pending_.empty() && pending_.top().at <= now) {
    Callback done = std::move(const_cast<Pending&>(pending_.top()).done);
    pending_.pop();
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
  dispatching_ = false;
  if (!pending_.empty()) arm(now);
}

}  // namespace roofsim
