#include "components/hbm.hpp"

#include <algorithm>
#include <cmath>

namespace roofsim {

HbmChannels::HbmChannels(const sc_core::sc_module_name& name, const HbmSpec& spec, EventQueue& events)
    : MemoryTarget(name), spec_(spec), events_(events), channels_(static_cast<std::size_t>(spec.channels)),
      channel_bandwidth_(spec.bandwidth / static_cast<double>(spec.channels) * spec.efficiency),
      ps_per_byte_(1e12 / channel_bandwidth_),
      latency_ps_(ceil_ps(spec.access_latency_s)) {}

std::vector<std::uint64_t> HbmChannels::split(std::uint64_t first_granule, std::uint64_t bytes) const {
  const std::uint64_t n = channels_.size();
  const std::uint64_t g = static_cast<std::uint64_t>(spec_.interleave_bytes);
  std::vector<std::uint64_t> share(n, 0);
  const std::uint64_t granules = bytes / g, tail = bytes % g;
  // Whole rounds give every channel the same; the remainder goes to the next channels in turn.
  for (std::uint64_t c = 0; c < n; ++c) share[c] = granules / n * g;
  for (std::uint64_t i = 0; i < granules % n; ++i) share[(first_granule + i) % n] += g;
  if (tail) share[(first_granule + granules) % n] += tail;
  return share;
}

Picoseconds HbmChannels::reserve_internal(std::size_t c, std::uint64_t bytes, double factor, Picoseconds not_before) {
  return channels_[c].reserve(not_before, ceil_ps(static_cast<double>(bytes) * ps_per_byte_ / factor * 1e-12));
}

Picoseconds HbmChannels::reserve_external(std::size_t c, std::uint64_t bytes, Picoseconds not_before) {
  return channels_[c].reserve(not_before, ceil_ps(static_cast<double>(bytes) * ps_per_byte_ * 1e-12)) + latency_ps_;
}

void HbmChannels::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  // Loosely timed with the initiator at the kernel's time: its requests arrive with no delay.
  sc_assert(delay == sc_core::SC_ZERO_TIME);
  const MemoryRequest* request = nullptr;
  trans.get_extension(request);
  const Picoseconds arrived = serve(trans.get_address(), trans.get_data_length(), request ? request->label : -1, request ? request->rate : 1.0);
  delay = sc_core::sc_time::from_value(arrived - now_ps());
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

Picoseconds HbmChannels::serve(std::uint64_t address, std::uint64_t bytes, int label, double rate) {
  const Picoseconds now = now_ps();
  if (bytes == 0) return now;
  const std::uint64_t n = channels_.size();
  const std::uint64_t g = static_cast<std::uint64_t>(spec_.interleave_bytes);
  // The same arithmetic as split(), without building the vector: the hot path of every load.
  const std::uint64_t head = std::min(bytes, (g - address % g) % g);  // inside the first granule
  const std::uint64_t first = address / g + (head ? 1 : 0);
  const std::uint64_t body = bytes - head;
  const std::uint64_t granules = body / g, tail = body % g;
  const std::uint64_t base = granules / n * g, extra = granules % n;
  const double ps_per_byte = ps_per_byte_ / rate;
  auto service = [&](std::uint64_t b) {
    return static_cast<Picoseconds>(std::ceil(static_cast<double>(b) * ps_per_byte - 1e-6));
  };
  Picoseconds last = now;
  const bool tracing = trace_ && trace_->enabled && label >= 0;
  const std::uint64_t stacks = static_cast<std::uint64_t>(spec_.stacks);
  if (tracing) {
    stack_start_.assign(stacks, UINT64_MAX);
    stack_end_.assign(stacks, 0);
  }
  // Whole-granule channels take one of two amounts: their service times are worked out once.
  const Picoseconds base_service = service(base), wide_service = service(base + g);
  const std::uint64_t first_channel = first % n;
  // The channel `offset` places after the first whole granule's.
  auto serve = [&](std::uint64_t offset) {
    std::uint64_t b = base + (offset < extra ? g : 0);
    const bool edge = (tail && offset == extra) || (head && offset == n - 1);
    if (tail && offset == extra) b += tail;
    if (head && offset == n - 1) b += head;
    if (b == 0) return;
    const std::uint64_t c = first_channel + offset < n ? first_channel + offset : first_channel + offset - n;
    last = std::max(last, channels_[c].reserve(now, edge ? service(b) : offset < extra ? wide_service : base_service));
    if (tracing) {
      const std::uint64_t s = c * stacks / n;
      stack_start_[s] = std::min(stack_start_[s], channels_[c].last_start());
      stack_end_[s] = std::max(stack_end_[s], channels_[c].free_at());
    }
  };
  if (!tracing) {
    // The same reservations in runs: whole-granule channels of one amount back to back (the hot
    // loop of every load), then the one or two edge channels of the head and tail.
    auto serve_run = [&](std::uint64_t from, std::uint64_t to, Picoseconds service_ps) {
      std::uint64_t c = first_channel + from < n ? first_channel + from : first_channel + from - n;
      for (std::uint64_t offset = from; offset < to; ++offset) {
        last = std::max(last, channels_[c].reserve(now, service_ps));
        if (++c == n) c = 0;
      }
    };
    serve_run(0, extra, wide_service);
    if (base > 0) serve_run(extra + (tail ? 1 : 0), n - (head ? 1 : 0), base_service);
    if (tail) serve(extra);  // with the head too when both fall on the last channel
    if (head && !(tail && extra == n - 1)) serve(n - 1);
  } else if (base > 0) {
    for (std::uint64_t offset = 0; offset < n; ++offset) serve(offset);
  } else {
    // A short access touches only the channels of its granules: the whole ones from the
    // first on, the tail's just after them, and the head's just before the first.
    for (std::uint64_t offset = 0; offset <= extra; ++offset) serve(offset);
    if (n - 1 > extra) serve(n - 1);
  }
  if (tracing) {
    for (std::uint64_t s = 0; s < stacks; ++s) {
      if (stack_end_[s] > 0) trace_->record(first_track_ + static_cast<int>(s), label, stack_start_[s], stack_end_[s]);
    }
  }
  return last + latency_ps_;
}

}  // namespace roofsim
