#pragma once
// Disaggregated serving's KV cache transfer: the keys and values of a request's prompt move
// from the chips of a prefill instance to those of a decode instance, simulated on the fabric
// model (each prefill chip sends the share of the KV heads a decode chip needs, all at once).
#include <cstdint>
#include <map>
#include <string>

#include "core/hardware.hpp"

namespace roofsim {

struct KvTransferOutcome {
  double seconds = 0;     // from the first byte sent to the last received
  double bytes = 0;       // sent by the prefill chips in all
  double link_bytes = 0;  // carried by the fabric's links (a switch: up into it and down out of it)
};

class KvTransfer {
 public:
  // Prefill chips 0..prefill_tp-1 and decode chips prefill_tp..prefill_tp+decode_tp-1 of
  // `topology` ("" = the hardware's default for that many chips); `bytes_per_token`: the KV of
  // one token over all layers and heads.
  KvTransfer(const HardwareSpec& hw, std::int64_t prefill_tp, std::int64_t decode_tp, double bytes_per_token,
             const std::string& topology = "");
  const std::string& topology() const { return topology_; }
  // The KV of `tokens` tokens (one request's or several's), simulated once per distinct count.
  const KvTransferOutcome& of(std::int64_t tokens);

 private:
  HardwareSpec hw_;
  std::int64_t prefill_tp_, decode_tp_;
  double bytes_per_token_;
  std::string topology_;
  std::map<std::int64_t, KvTransferOutcome> cache_;
};

}  // namespace roofsim
