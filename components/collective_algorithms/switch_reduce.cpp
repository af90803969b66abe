// In-switch reduction (NVLink SHARP): every chip sends its buffer up once, the switch reduces
// it and multicasts the result down once.
#include <algorithm>

#include "components/collective_algorithms/common.hpp"
#include "validation/collective_bounds.hpp"

namespace roofsim {
namespace {
using namespace collective_detail;

class SwitchReduce : public CollectiveAlgorithm {
 public:
  std::string name() const override { return "switch_reduce"; }
  std::string summary() const override { return "in-switch reduction (NVLink SHARP): up once, reduced, down once"; }
  std::string refusal(const Topology& t, CollectiveKind k, const std::vector<int>& group) const override {
    if (!on_switch(t, group)) return switch_refusal(t);
    if (k != CollectiveKind::allreduce) return "in-switch reduction is an all-reduce";
    return "";
  }
  std::string hardware_refusal(const HardwareSpec& hw) const override {
    if (hw.links.in_switch_reduction) return "";
    return hw.name + ": ${algo} switch_reduce needs a switch that reduces (links.in_switch_reduction = true)";
  }
  std::vector<CollectiveStream> lower(const CollectiveLowering& l) const override {
    return {{{CollectivePhase::Pattern::switch_reduce, -1, 0, 1, l.bytes}}};
  }
  double bound_s(const CollectiveBoundInputs& in) const override {
    const double rate = in.switch_reduction_rate > 0 ? std::min(in.port_bandwidth, in.switch_reduction_rate) : in.port_bandwidth;
    return switch_reduce_s(in.bytes, rate, in.latency);
  }
};
}  // namespace

void register_collective_algorithms_switch_reduce(CollectiveAlgorithmRegistry& r) { r.add(std::make_unique<SwitchReduce>()); }

}  // namespace roofsim
