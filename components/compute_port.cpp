// The compute seam's unit array (declared in compute_port.hpp).
#include "components/compute_port.hpp"

namespace roofsim {

void UnitArray::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  UnitWave& w = UnitWave::of(trans);
  const Picoseconds now = now_ps() + delay.value();
  const std::size_t n = units_.size();
  if (w.hold_ps > 0) {
    for (Timeline& t : units_) t.reserve(now, w.hold_ps);
  }
  Picoseconds ready = now, last_started = now;
  // Most units of a wave take the same work: each distinct amount is converted to time once.
  double converted = -1;
  Picoseconds converted_ps = 0;
  // Read once: a wave's loop over the units is the simulation's hottest.
  const double* work = w.work;
  const double every_unit = w.every_unit;
  const Picoseconds* not_before = w.not_before;
  const bool zero_jobs = w.zero_jobs, tracing = tracing_label(w.label);
  std::size_t u = w.first % n;
  for (std::size_t i = 0; i < w.count; ++i, u = u + 1 == n ? 0 : u + 1) {
    const double amount = work[i] + every_unit;
    if (amount == 0 && !zero_jobs) continue;
    if (amount != converted) {
      converted = amount;
      converted_ps = service_ps(amount);
    }
    Timeline& t = units_[u];
    const Picoseconds at = not_before && not_before[i] > now ? not_before[i] : now;
    const Picoseconds done = t.reserve(at, converted_ps) + latency_ps_;
    if (done > ready || (done == ready && t.last_start() > last_started)) {
      ready = done;
      last_started = t.last_start();
    }
    if (tracing) traced(u, w.label, t.last_start(), t.free_at());
  }
  w.ready = ready;
  w.last_started = last_started;
  delay += sc_core::sc_time::from_value(ready - now);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace roofsim
