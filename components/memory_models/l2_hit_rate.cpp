// An L2 in front of HBM that serves a fixed share of every read (memory.hit_rate): that share of
// a request's bytes at the tile buffer's bandwidth and latency (chip.tile_buffer's [onchip]
// memory, one server), the rest from HBM through its own port; writes go on to HBM. A what-if
// for a bigger or faster cache, not a cache model: which bytes hit is not simulated.
#include <algorithm>
#include <cmath>
#include <memory>

#include "components/memory_model.hpp"

namespace roofsim {

namespace {

class L2HitRateMemory : public MemoryTarget {
 public:
  L2HitRateMemory(const sc_core::sc_module_name& name, const OnChipMemory& l2, double hit_rate, HbmChannels& hbm)
      : MemoryTarget(name), to_hbm_("to_hbm"), ps_per_byte_(1e12 / l2.bandwidth), latency_ps_(ceil_ps(l2.latency_s)), hit_rate_(hit_rate) {
    to_hbm_.bind(hbm);
  }
  std::vector<Timeline*> servers() override { return {&l2_}; }

 protected:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override {
    const MemoryRequest* request = nullptr;
    trans.get_extension(request);
    const double rate = request ? request->rate : 1.0;
    const int label = request ? request->label : -1;
    const Picoseconds now = now_ps();
    const std::uint64_t bytes = trans.get_data_length();
    const bool write = trans.get_command() == tlm::TLM_WRITE_COMMAND;
    const std::uint64_t hit = write ? 0 : static_cast<std::uint64_t>(std::llround(static_cast<double>(bytes) * hit_rate_));
    Picoseconds arrived = now;
    if (hit > 0) {
      const auto service = static_cast<Picoseconds>(std::ceil(static_cast<double>(hit) * ps_per_byte_ - 1e-6));
      arrived = l2_.reserve(now, service) + latency_ps_;
    }
    if (bytes > hit) arrived = std::max(arrived, now + to_hbm_.transport(write, trans.get_address() + hit, bytes - hit, rate, label));
    delay = sc_core::sc_time::from_value(arrived - now);
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
  }

 private:
  MemoryPort to_hbm_;
  Timeline l2_;
  double ps_per_byte_;
  Picoseconds latency_ps_;
  double hit_rate_;
};

class L2HitRate : public MemoryModel {
 public:
  std::string name() const override { return "l2_hit_rate"; }
  std::string summary() const override { return "the tile buffer in front of HBM, serving memory.hit_rate of each read"; }
  // The two stream side by side: min(HBM / (1 - h), L2 / h).
  double bandwidth(const HardwareSpec& hw) const override {
    const double h = hw.memory.hit_rate;
    if (!(h > 0)) return hw.hbm.bandwidth;
    const double l2 = hw.tile_buffer_memory().bandwidth / h;
    return h >= 1 ? l2 : std::min(hw.hbm.bandwidth / (1 - h), l2);
  }
  std::unique_ptr<MemoryTarget> build(const char* module_name, const HardwareSpec& hw, HbmChannels& hbm) const override {
    return std::make_unique<L2HitRateMemory>(module_name, hw.tile_buffer_memory(), hw.memory.hit_rate, hbm);
  }
};

}  // namespace

void register_memory_models_l2_hit_rate(MemoryModelRegistry& r) { r.add(std::make_unique<L2HitRate>()); }

}  // namespace roofsim
