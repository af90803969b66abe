#pragma once
// The matrix and vector units' model, chosen by name in the hardware file (`[matrix] model`,
// `[vector] model`; "array" by default). Each is one file in components/unit_models/ defining
// register_unit_models_NAME(UnitModelRegistry&); CMake finds the files
// (cmake/RoofsimRegistry.cmake), and a library loaded with --plugin may add more. A model builds
// the family's ComputeTarget (components/compute_port.hpp), which the chip's op runs then send
// their waves to; it receives work already timed in the family's measure (array cycles, FLOPs)
// and decides when each job is done.
#include <memory>
#include <string>

#include "components/compute_port.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"

namespace roofsim {

enum class UnitFamily { matrix, vector };

class UnitModel {
 public:
  virtual ~UnitModel() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // for the docs and errors
  // The family's units, a module named `module_name` of the chip under construction; nullptr:
  // the model has no such family (the hardware file is then refused).
  virtual std::unique_ptr<ComputeTarget> build(const char* module_name, UnitFamily family, const HardwareSpec& hw) const = 0;
  // The most FLOP/s the family's units reach: of dtype `t` on matrix units (0: they lack it), of
  // fp32 on vector units. The analytic bounds and the roofline take it (HardwareSpec::
  // matrix_peak_flops), so no op simulated on these units can beat its bound; a model faster than
  // the file's rates must say so here. 0 for a family the model does not build.
  virtual double peak_flops(UnitFamily family, const HardwareSpec& hw, DType t) const = 0;
};

using UnitModelRegistry = Registry<UnitModel>;

// The built-in models and any a plugin registered since.
UnitModelRegistry& unit_models();

// The family's units as `hw` names their model: ConfigError at the file and line of an unknown
// model, or of one without that family.
std::unique_ptr<ComputeTarget> build_units(const char* module_name, UnitFamily family, const HardwareSpec& hw);

// Refuses, as build_units would, a hardware file whose [matrix] or [vector] model is unknown
// (`hw show` checks a file without building a chip).
void check_unit_models(const HardwareSpec& hw);

// Markdown of every registered model (`roofsim hw keys`).
std::string unit_models_markdown();

}  // namespace roofsim
