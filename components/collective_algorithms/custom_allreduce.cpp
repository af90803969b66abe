// The serving frameworks' own all-reduce kernels over NVLink (TensorRT-LLM, vLLM): one-shot
// (every GPU reads each peer's whole buffer and reduces it; one launch and barrier) or
// two-shot (reduce-scatter then all-gather of shards, peer to peer; a second barrier and pass),
// whichever costs less; above the framework's largest custom buffer NCCL runs it (nccl).
#include <cmath>

#include "components/collective_algorithms/nccl_model.hpp"

namespace roofsim {
namespace {
using namespace collective_detail;

class CustomAllreduce : public CollectiveAlgorithm {
 public:
  explicit CustomAllreduce(bool trtllm) : trtllm_(trtllm) {}
  std::string name() const override { return trtllm_ ? "trtllm_custom" : "vllm_custom"; }
  std::string summary() const override {
    return std::string(trtllm_ ? "TensorRT-LLM" : "vLLM") +
           "'s custom all-reduce: one-shot or two-shot through the switch by size, NCCL above its largest buffer";
  }
  std::string refusal(const Topology& t, CollectiveKind k, const std::vector<int>& group) const override {
    if (!on_switch(t, group)) return switch_refusal(t);
    if (k != CollectiveKind::allreduce) return "a custom all-reduce is an all-reduce";
    return "";
  }
  std::vector<CollectiveStream> lower(const CollectiveLowering& l) const override {
    const double n = static_cast<double>(l.bytes);
    const int p = l.members;
    if (nccl_takes(l.hw, n)) {
      return nccl::lower(l.hw, l.kind, p, l.bytes, nccl::best_plan(l.hw, l.kind, p, n, l.dtype, true, true));
    }
    using Pattern = CollectivePhase::Pattern;
    const Wire w = wire(l.hw);
    if (oneshot_s(l.hw, p, n) <= twoshot_s(l.hw, p, n)) {
      return {{{Pattern::delay, 0, 0, 1, 0, {}, launch_s(l.hw)}, {Pattern::all_pairs, -1, 0, 1, l.bytes, w, 0}}};
    }
    const std::uint64_t shard = collective_share(l.bytes, static_cast<std::uint64_t>(p));
    return {{{Pattern::delay, 0, 0, 1, 0, {}, launch_s(l.hw) + twoshot_extra_s(l.hw)},
             {Pattern::all_pairs, -1, 0, 1, shard, w, 0},
             {Pattern::all_pairs, -1, 0, 1, shard, w, 0}}};
  }
  double bound_s(const CollectiveBoundInputs& in) const override {
    if (in.members < 2) return 0;
    if (nccl_takes(in.hw, in.bytes)) {
      return nccl::plan_s(in.hw, in.kind, in.members, in.bytes, nccl::best_plan(in.hw, in.kind, in.members, in.bytes, in.dtype, true, true));
    }
    return std::min(oneshot_s(in.hw, in.members, in.bytes), twoshot_s(in.hw, in.members, in.bytes));
  }

 private:
  double launch_s(const HardwareSpec& hw) const { return trtllm_ ? hw.collectives.trtllm_launch_s : hw.collectives.vllm_launch_s; }
  double twoshot_extra_s(const HardwareSpec& hw) const {
    return trtllm_ ? hw.collectives.trtllm_twoshot_s : hw.collectives.vllm_twoshot_s;
  }
  bool nccl_takes(const HardwareSpec& hw, double bytes) const {
    const double most = trtllm_ ? hw.collectives.trtllm_max_bytes : hw.collectives.vllm_max_bytes;
    return most > 0 && bytes > most;
  }
  static Wire wire(const HardwareSpec& hw) {
    Wire w;
    w.efficiency = hw.collectives.custom_efficiency;
    return w;
  }
  // Every GPU takes p - 1 peers' buffers in through its port (and gives its own to each).
  double oneshot_s(const HardwareSpec& hw, int p, double n) const {
    return launch_s(hw) + (p - 1) * n / nccl::port_rate(hw, wire(hw)) + 2 * hw.links.latency_s;
  }
  // Two passes of p - 1 shards each.
  double twoshot_s(const HardwareSpec& hw, int p, double n) const {
    const double shard = std::ceil(n / p);
    return launch_s(hw) + twoshot_extra_s(hw) + 2 * ((p - 1) * shard / nccl::port_rate(hw, wire(hw)) + 2 * hw.links.latency_s);
  }
  bool trtllm_;
};
}  // namespace

void register_collective_algorithms_custom_allreduce(CollectiveAlgorithmRegistry& r) {
  r.add(std::make_unique<CustomAllreduce>(true));
  r.add(std::make_unique<CustomAllreduce>(false));
}

}  // namespace roofsim
