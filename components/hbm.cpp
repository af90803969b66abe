#include "components/hbm.hpp"

#include <string>

namespace roofsim {

HbmChannels::HbmChannels(const HbmSpec& spec, SimStats& stats)
    : spec_(spec),
      channel_bandwidth_(spec.bandwidth / static_cast<double>(spec.channels) * spec.efficiency),
      latency_ps_(ceil_ps(spec.access_latency_s)) {
  for (std::int64_t i = 0; i < spec.channels; ++i) {
    channels_.push_back(std::make_unique<Server>(("hbm_ch" + std::to_string(i)).c_str(), stats));
  }
}

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

void HbmChannels::access(std::uint64_t address, std::uint64_t bytes, Server::Callback done) {
  if (bytes == 0) {
    if (done) done();
    return;
  }
  const std::uint64_t g = static_cast<std::uint64_t>(spec_.interleave_bytes);
  // A request that starts inside a granule: its head belongs to that granule's channel.
  const std::uint64_t head = std::min(bytes, (g - address % g) % g);
  std::vector<std::uint64_t> share = split(address / g + (head ? 1 : 0), bytes - head);
  if (head) share[(address / g) % channels_.size()] += head;
  std::size_t pieces = 0;
  for (std::uint64_t s : share) pieces += s > 0;
  // The request completes when its last piece arrives.
  auto remaining = std::make_shared<std::size_t>(pieces);
  auto shared_done = std::make_shared<Server::Callback>(std::move(done));
  for (std::size_t c = 0; c < share.size(); ++c) {
    if (share[c] == 0) continue;
    Picoseconds service = ceil_ps(static_cast<double>(share[c]) / channel_bandwidth_);
    channels_[c]->submit(service, latency_ps_, [remaining, shared_done] {
      if (--*remaining == 0 && *shared_done) (*shared_done)();
    });
  }
}

}  // namespace roofsim
