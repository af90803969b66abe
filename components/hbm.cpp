#include "components/hbm.hpp"

#include <algorithm>

namespace roofsim {

HbmChannels::HbmChannels(const HbmSpec& spec, EventQueue& events)
    : spec_(spec), events_(events), channels_(static_cast<std::size_t>(spec.channels)),
      channel_bandwidth_(spec.bandwidth / static_cast<double>(spec.channels) * spec.efficiency),
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

void HbmChannels::access(std::uint64_t address, std::uint64_t bytes, Callback done) {
  const Picoseconds now = now_ps();
  if (bytes == 0) {
    events_.at(now, std::move(done));
    return;
  }
  const std::uint64_t g = static_cast<std::uint64_t>(spec_.interleave_bytes);
  // A request that starts inside a granule: its head belongs to that granule's channel.
  const std::uint64_t head = std::min(bytes, (g - address % g) % g);
  share_ = split(address / g + (head ? 1 : 0), bytes - head);
  if (head) share_[(address / g) % channels_.size()] += head;
  Picoseconds last = now;
  for (std::size_t c = 0; c < share_.size(); ++c) {
    if (share_[c] == 0) continue;
    const Picoseconds service = ceil_ps(static_cast<double>(share_[c]) / channel_bandwidth_);
    last = std::max(last, channels_[c].reserve(now, service));
  }
  events_.at(last + latency_ps_, std::move(done));
}

}  // namespace roofsim
