#pragma once
// The DMA engine moves tensors between HBM and the on-chip buffer as a stream of requests,
// keeping at most max_inflight_bytes outstanding. Reads of data already resident in the tile
// buffer (an L2 that holds it from an earlier call) are served there instead: one server at the
// buffer's bandwidth and latency, through the same window. With access latency L the engine can sustain
// at most max_inflight_bytes / L, so short transfers or a small window cannot reach peak
// bandwidth (Little's law) - this emerges from the window, it is not computed.
#include <cstdint>
#include <deque>
#include <memory>

#include "components/hbm.hpp"

namespace roofsim {

class DmaEngine : public sc_core::sc_module {
 public:
  // `hbm`'s efficiencies set the rates of tile reads and writes; `events` calls back when a
  // request has arrived. Its port must then be bound to a memory (bind).
  DmaEngine(const sc_core::sc_module_name& name, const DmaSpec& spec, const HbmSpec& hbm, const OnChipMemory& resident_buffer, EventQueue& events, SimStats& stats);
  // Sends its requests to `memory` (the chip's HBM channels, or any memory target).
  void bind(MemoryTarget& memory) { port_.bind(memory); }
  // Its transport calls on a track of `sink` ("transport DMA engine -> MEMORY").
  void trace_into(TraceSink& sink, const std::string& memory) { port_.trace_into(sink, "DMA engine", memory); }

  // Queues a transfer of the bytes at HBM address `address`; `done` when every byte has
  // arrived. Reads go before queued writes (as memory controllers favour reads): a load that
  // compute waits for is never stuck behind a write-back that nothing waits for.
  // `label` names the op in the trace (-1: none).
  void read(std::uint64_t address, std::uint64_t bytes, int label, Callback done) {
    transfer(address, bytes, false, label, std::move(done));
  }
  // Operand tiles of the matrix units: served at hbm.tile_efficiency instead of efficiency.
  void read_tile(std::uint64_t address, std::uint64_t bytes, int label, Callback done) {
    transfer(address, bytes, false, label, std::move(done), tile_rate_);
  }
  // Reads of data resident in the tile buffer: served there, not by HBM.
  void read_resident(std::uint64_t address, std::uint64_t bytes, int label, Callback done) {
    transfer(address, bytes, false, label, std::move(done), 1.0, true);
  }
  // Writes: served at hbm.write_efficiency (a write stream turns the bus around).
  void write(std::uint64_t address, std::uint64_t bytes, int label, Callback done) {
    transfer(address, bytes, true, label, std::move(done), write_rate_);
  }

  std::uint64_t request_bytes() const { return request_bytes_; }
  bool idle() const { return inflight_ == 0 && reads_.empty() && writes_.empty(); }
  // The tile buffer's server for resident reads (layer replay saves and skips it like a channel).
  const Timeline& resident_server() const { return resident_; }
  Timeline& resident_server() { return resident_; }
  void set_request_bytes(std::uint64_t b);  // granularity studies (coarse vs fine)

 private:
  struct Transfer {
    std::uint64_t address;  // of the next request
    std::uint64_t left_to_issue;
    std::uint64_t outstanding = 0;
    int label = -1;
    Callback done;
    double rate = 1.0;
    bool write = false;
    bool resident = false;  // served by the tile buffer
  };
  void transfer(std::uint64_t address, std::uint64_t bytes, bool write, int label, Callback done, double rate = 1.0,
                bool resident = false);
  void pump();

  MemoryPort port_;  // to the memory, through TLM-2.0 (a child module, "port")
  EventQueue& events_;
  SimStats& stats_;
  std::uint64_t max_inflight_;
  std::uint64_t request_bytes_;
  std::uint64_t inflight_ = 0;
  double tile_rate_ = 1.0;   // tile_efficiency / efficiency
  double write_rate_ = 1.0;  // write_efficiency / efficiency
  std::deque<std::shared_ptr<Transfer>> reads_, writes_;
  Timeline resident_;
  double resident_ps_per_byte_;
  Picoseconds resident_latency_ps_;
};

}  // namespace roofsim
