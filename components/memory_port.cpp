// An initiator's memory port (declared in memory_port.hpp).
#include "components/memory_port.hpp"

namespace roofsim {

MemoryPort::MemoryPort(const sc_core::sc_module_name& name)
    : sc_core::sc_module(name), socket_("socket"), request_(new MemoryRequest) {
  payload_.set_extension(request_);
  payload_.set_data_ptr(nullptr);
  payload_.set_streaming_width(0);
  payload_.set_byte_enable_ptr(nullptr);
  payload_.set_dmi_allowed(false);
}

std::uint64_t MemoryPort::transport(bool write, std::uint64_t address, std::uint64_t bytes, double rate, int label) {
  payload_.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  payload_.set_address(address);
  payload_.set_data_length(static_cast<unsigned int>(bytes));
  payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  request_->rate = rate;
  request_->label = label;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  socket_->b_transport(payload_, delay);
  if (trace_ && trace_->enabled && label >= 0) {
    const Picoseconds now = now_ps();
    trace_->record_transport(track_, label, now, now + delay.value(), bytes);
  }
  return delay.value();
}

void MemoryPort::trace_into(TraceSink& sink, const std::string& initiator, const std::string& target) {
  if (trace_ == &sink) return;
  trace_ = &sink;
  track_ = sink.add_track("transport " + initiator + " -> " + target);
}

}  // namespace roofsim
