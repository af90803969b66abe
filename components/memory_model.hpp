#pragma once
// The memory the units' DMA engine reads and writes through, chosen by name in the hardware file
// (`[memory] model`). Each is one file in components/memory_models/ defining
// register_memory_models_NAME(MemoryModelRegistry&); CMake finds the files
// (cmake/RoofsimRegistry.cmake). A model builds a MemoryTarget (components/memory_port.hpp) in
// front of the chip's HBM channels, or none: the DMA engine then binds to the channels themselves.
// A model may declare parameters of its own, which a hardware file sets under [memory] beside
// `model` (`[memory] model = "cxl_expander"`, `hop_ns = 400`): roofsim checks each given key
// against the model's declaration (file, line, the keys there are, the range) and the model
// reads it with param().
#include <memory>
#include <string>
#include <vector>

#include "components/hbm.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"

namespace roofsim {

// A parameter a memory model declares: its key under [memory], unit, default, range and meaning.
struct MemoryModelParam {
  std::string key, unit;
  double default_value = 0, min = 0, max = 0;
  std::string meaning;
};

class MemoryModel {
 public:
  virtual ~MemoryModel() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // for the docs and errors
  virtual std::vector<MemoryModelParam> params() const { return {}; }
  // The most bytes per second it can deliver, for the analytic bounds (HardwareSpec::
  // memory_bandwidth): never less than what its simulation reaches, so that no op beats its
  // bound. By default HBM's peak: a model that only adds latency or forwards to the channels.
  virtual double bandwidth(const HardwareSpec& hw) const { return hw.hbm.bandwidth; }
  // The value of a declared parameter in `hw`: the file's, else the default.
  double param(const HardwareSpec& hw, const std::string& key) const;
  // The chip's memory in front of `hbm`, a module named `module_name` of the chip under
  // construction; nullptr: the HBM channels serve the DMA engine directly.
  virtual std::unique_ptr<MemoryTarget> build(const char* module_name, const HardwareSpec& hw, HbmChannels& hbm) const = 0;
};

using MemoryModelRegistry = Registry<MemoryModel>;

// The built-in models and any a plugin registered since.
MemoryModelRegistry& memory_models();

// The model `hw` names, its parameters checked: ConfigError at the file and line of an unknown
// model, of a key the model does not declare, or of a value outside its range.
const MemoryModel& memory_model_of(const HardwareSpec& hw);

// Markdown of every registered model and its parameters (`roofsim hw keys`).
std::string memory_models_markdown();

}  // namespace roofsim
