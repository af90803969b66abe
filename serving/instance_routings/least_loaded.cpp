// The instance holding the fewest requests (the first of equals): what roofsim's disaggregated
// runs default to, and SGLang's and TensorRT-LLM's disaggregated routers' load balancing.
#include <memory>

#include "serving/instance_routing.hpp"

namespace roofsim {

namespace {

class LeastLoaded : public InstanceRouting {
 public:
  std::string name() const override { return "least_loaded"; }
  std::string summary() const override { return "the instance holding the fewest requests"; }
  std::size_t pick(const std::vector<std::size_t>& loads, std::size_t&) const override {
    std::size_t best = 0;
    for (std::size_t i = 1; i < loads.size(); ++i) {
      if (loads[i] < loads[best]) best = i;
    }
    return best;
  }
};

}  // namespace

void register_instance_routings_least_loaded(InstanceRoutingRegistry& r) { r.add(std::make_unique<LeastLoaded>()); }

}  // namespace roofsim
