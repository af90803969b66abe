#include "components/dma.hpp"

#include <algorithm>
#include <cmath>

namespace roofsim {

DmaEngine::DmaEngine(const sc_core::sc_module_name& name, const DmaSpec& spec, const HbmSpec& hbm, const OnChipMemory& resident_buffer,
                     EventQueue& events, SimStats& stats)
    : sc_core::sc_module(name), port_("port"), events_(events), stats_(stats),
      max_inflight_(static_cast<std::uint64_t>(spec.max_inflight_bytes)),
      request_bytes_(static_cast<std::uint64_t>(spec.request_bytes)),
      tile_rate_(hbm.tile_efficiency / hbm.efficiency),
      write_rate_(hbm.write_efficiency / hbm.efficiency),
      resident_ps_per_byte_(1e12 / resident_buffer.bandwidth),
      resident_latency_ps_(ceil_ps(resident_buffer.latency_s)) {}

void DmaEngine::set_request_bytes(std::uint64_t b) {
  request_bytes_ = std::max<std::uint64_t>(1, std::min(b, max_inflight_));
}

void DmaEngine::transfer(std::uint64_t address, std::uint64_t bytes, bool write, int label, Callback done, double rate,
                         bool resident) {
  (write ? stats_.bytes_written : stats_.bytes_read) += bytes;
  if (bytes == 0) {
    if (done) done();
    return;
  }
  (write ? writes_ : reads_).push_back(std::make_shared<Transfer>(Transfer{address, bytes, 0, label, std::move(done), rate, write, resident}));
  pump();
}

void DmaEngine::pump() {
  while (!reads_.empty() || !writes_.empty()) {
    auto& queue = reads_.empty() ? writes_ : reads_;
    std::shared_ptr<Transfer> t = queue.front();
    const std::uint64_t req = std::min(request_bytes_, t->left_to_issue);
    if (inflight_ > 0 && inflight_ + req > max_inflight_) return;  // window full
    inflight_ += req;
    const std::uint64_t address = t->address;
    t->address += req;
    t->left_to_issue -= req;
    ++t->outstanding;
    if (t->left_to_issue == 0) queue.pop_front();
    auto arrived = [this, t, req] {
      inflight_ -= req;
      if (--t->outstanding == 0 && t->left_to_issue == 0 && t->done) t->done();
      pump();
    };
    const Picoseconds now = now_ps();
    if (t->resident) {
      const Picoseconds service = static_cast<Picoseconds>(std::ceil(static_cast<double>(req) * resident_ps_per_byte_ - 1e-6));
      events_.at(resident_.reserve(now, service) + resident_latency_ps_, std::move(arrived));
    } else {
      events_.at(now + port_.transport(t->write, address, req, t->rate, t->label), std::move(arrived));
    }
  }
}

}  // namespace roofsim
