#pragma once
// The memory the units' DMA engine reads and writes through, chosen by name in the hardware file
// (`[memory] model`). Each is one file in components/memory_models/ defining
// register_memory_models_NAME(MemoryModelRegistry&); CMake finds the files
// (cmake/RoofsimRegistry.cmake). A model builds a MemoryTarget (components/memory_port.hpp) in
// front of the chip's HBM channels, or none: the DMA engine then binds to the channels themselves.
#include <memory>
#include <string>

#include "components/hbm.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"

namespace roofsim {

class MemoryModel {
 public:
  virtual ~MemoryModel() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // for the docs and errors
  // The chip's memory in front of `hbm`, a module named `module_name` of the chip under
  // construction; nullptr: the HBM channels serve the DMA engine directly.
  virtual std::unique_ptr<MemoryTarget> build(const char* module_name, const HardwareSpec& hw, HbmChannels& hbm) const = 0;
};

using MemoryModelRegistry = Registry<MemoryModel>;

// The built-in models and any a plugin registered since.
MemoryModelRegistry& memory_models();

// The model `hw` names, or ConfigError naming its file, line and key and the models there are.
const MemoryModel& memory_model_of(const HardwareSpec& hw);

}  // namespace roofsim
