// Each instance in turn, whatever it holds: NVIDIA Dynamo's frontend routes so by default
// (--router-mode round-robin), so a request may queue at a busy instance while another idles.
#include <memory>

#include "serving/instance_routing.hpp"

namespace roofsim {

namespace {

class RoundRobin : public InstanceRouting {
 public:
  std::string name() const override { return "round_robin"; }
  std::string summary() const override { return "each instance in turn, as NVIDIA Dynamo's frontend routes by default"; }
  std::size_t pick(const std::vector<std::size_t>& loads, std::size_t& turn) const override { return turn++ % loads.size(); }
};

}  // namespace

void register_instance_routings_round_robin(InstanceRoutingRegistry& r) { r.add(std::make_unique<RoundRobin>()); }

}  // namespace roofsim
