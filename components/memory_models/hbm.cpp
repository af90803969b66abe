// The HBM channels themselves: the DMA engine's requests go straight to them (the default).
#include <memory>

#include "components/memory_model.hpp"

namespace roofsim {

namespace {

class Hbm : public MemoryModel {
 public:
  std::string name() const override { return "hbm"; }
  std::string summary() const override { return "the HBM channels themselves"; }
  std::unique_ptr<MemoryTarget> build(const char*, const HardwareSpec&, HbmChannels&) const override { return nullptr; }
};

}  // namespace

void register_memory_models_hbm(MemoryModelRegistry& r) { r.add(std::make_unique<Hbm>()); }

}  // namespace roofsim
