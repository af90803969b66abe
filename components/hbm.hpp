#pragma once
// HBM as N independent channels. A request is cut at the interleave granularity and each
// granule goes to the next channel in turn, so one channel receives one coalesced piece per
// request. Each channel serves its share of peak bandwidth times an efficiency, and the data
// arrives an access latency later (pipelined: it does not occupy the channel).
#include <cstdint>
#include <memory>
#include <vector>

#include "components/server.hpp"
#include "core/hardware.hpp"

namespace roofsim {

class HbmChannels {
 public:
  HbmChannels(const HbmSpec& spec, SimStats& stats);

  // Moves `bytes` at `address` (granule g goes to channel g mod N); `done` when all pieces
  // have arrived. The mapping depends on the address only, never on the order of requests.
  void access(std::uint64_t address, std::uint64_t bytes, Server::Callback done);
  // Bytes each channel would receive for a request of `bytes` starting at granule `first`.
  std::vector<std::uint64_t> split(std::uint64_t first_granule, std::uint64_t bytes) const;

  std::size_t channel_count() const { return channels_.size(); }
  const Server& channel(std::size_t i) const { return *channels_[i]; }
  double channel_bandwidth() const { return channel_bandwidth_; }

 private:
  const HbmSpec& spec_;
  std::vector<std::unique_ptr<Server>> channels_;
  double channel_bandwidth_;  // bytes/s one channel sustains
  Picoseconds latency_ps_;
};

}  // namespace roofsim
