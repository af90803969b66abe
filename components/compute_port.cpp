// The compute seam's unit array and initiator port (declared in compute_port.hpp).
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

ComputePort::ComputePort(const sc_core::sc_module_name& name)
    : sc_core::sc_module(name), socket_("socket") {
  payload_.set_command(tlm::TLM_WRITE_COMMAND);
  payload_.set_data_ptr(reinterpret_cast<unsigned char*>(&wave_));
  payload_.set_data_length(sizeof wave_);
  payload_.set_streaming_width(0);
  payload_.set_byte_enable_ptr(nullptr);
  payload_.set_dmi_allowed(false);
}

UnitWave& ComputePort::request() {
  wave_ = UnitWave();
  return wave_;
}

const UnitWave& ComputePort::transport() {
  payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  socket_->b_transport(payload_, delay);
  if (trace_ && trace_->enabled && wave_.label >= 0) {
    const Picoseconds now = now_ps();
    trace_->record_transport(track_, wave_.label, now, now + delay.value(), 0);
  }
  return wave_;
}

void ComputePort::trace_into(TraceSink& sink, const std::string& initiator, const std::string& target) {
  if (trace_ == &sink) return;
  trace_ = &sink;
  track_ = sink.add_track("transport " + initiator + " -> " + target);
}

}  // namespace roofsim
