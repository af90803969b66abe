#include "serving/kv_transfer.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "experiment/collective.hpp"
#include "experiment/inference.hpp"

namespace roofsim {

KvTransfer::KvTransfer(const HardwareSpec& hw, std::int64_t prefill_tp, std::int64_t decode_tp, double bytes_per_token,
                       const std::string& topology)
    : hw_(hw), prefill_tp_(prefill_tp), decode_tp_(decode_tp), bytes_per_token_(bytes_per_token) {
  if (hw.links.count <= 0) throw InputError(hw.name + " has no [links] to send the KV cache from prefill to decode over");
  topology_ = topology.empty() ? default_topology(hw, prefill_tp + decode_tp, std::max(prefill_tp, decode_tp)) : topology;
  const Topology t = parse_topology(topology_);
  if (t.chips() < prefill_tp + decode_tp) {
    throw InputError("${topology} " + t.name() + " has " + std::to_string(t.chips()) + " chips; a prefill and a decode instance need " +
                     std::to_string(prefill_tp + decode_tp));
  }
}

const KvTransferOutcome& KvTransfer::of(std::int64_t tokens) {
  auto found = cache_.find(tokens);
  if (found != cache_.end()) return found->second;
  const Topology t = parse_topology(topology_);
  const double total = bytes_per_token_ * static_cast<double>(tokens);
  // Prefill chip i holds the KV heads [i/P, (i+1)/P) of every layer, decode chip j needs
  // [j/D, (j+1)/D): i sends j their overlap.
  std::vector<CollectiveSpec> sends;
  KvTransferOutcome out;
  for (std::int64_t i = 0; i < prefill_tp_; ++i) {
    for (std::int64_t j = 0; j < decode_tp_; ++j) {
      const double lo = std::max(static_cast<double>(i) / static_cast<double>(prefill_tp_), static_cast<double>(j) / static_cast<double>(decode_tp_));
      const double hi = std::min(static_cast<double>(i + 1) / static_cast<double>(prefill_tp_),
                                 static_cast<double>(j + 1) / static_cast<double>(decode_tp_));
      if (hi <= lo) continue;
      CollectiveSpec s;
      s.kind = CollectiveKind::sendrecv;
      s.group = {static_cast<int>(i), static_cast<int>(prefill_tp_ + j)};
      s.algo = default_algo(t, s.kind, s.group);
      s.bytes = static_cast<std::uint64_t>(std::llround(total * (hi - lo)));
      if (s.bytes == 0) continue;
      out.bytes += static_cast<double>(s.bytes);
      sends.push_back(s);
    }
  }
  if (!sends.empty()) {
    const CollectiveResult r = simulate_collectives(hw_, t, sends, 0);
    out.seconds = r.sim_time_s;
    for (const Fabric::LinkUse& l : r.links) out.link_bytes += static_cast<double>(l.bytes);
  }
  return cache_.emplace(tokens, out).first->second;
}

}  // namespace roofsim
