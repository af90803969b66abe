// Links that each carry one transfer after another at the transfer's rate (components/link_port.hpp):
// the default.
#include <memory>

#include "components/link_model.hpp"

namespace roofsim {

namespace {

class ArrayLinks : public LinkModel {
 public:
  std::string name() const override { return "array"; }
  std::string summary() const override {
    return "each link (a torus link, a switch port, a mesh pair, a network port) carries one transfer after another at the "
           "transfer's rate, cut-through along a path";
  }
  std::unique_ptr<LinkTarget> build(const char* module_name, std::size_t links, const HardwareSpec&) const override {
    return std::make_unique<LinkArray>(module_name, links);
  }
};

}  // namespace

void register_link_models_array(LinkModelRegistry& r) { r.add(std::make_unique<ArrayLinks>()); }

}  // namespace roofsim
