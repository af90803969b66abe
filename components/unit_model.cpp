// The unit models' registry (declared in unit_model.hpp).
#include "components/unit_model.hpp"

#include "core/error.hpp"

namespace roofsim {

#define ROOFSIM_UNIT_MODEL_FILE(file) void register_unit_models_##file(UnitModelRegistry&);
#include "unit_models.inc"
#undef ROOFSIM_UNIT_MODEL_FILE

UnitModelRegistry& unit_models() {
  static UnitModelRegistry registry = [] {
    UnitModelRegistry r;
#define ROOFSIM_UNIT_MODEL_FILE(file) register_unit_models_##file(r);
#include "unit_models.inc"
#undef ROOFSIM_UNIT_MODEL_FILE
    return r;
  }();
  return registry;
}

namespace {
// A family's choice of model in `hw`, and the key that names it.
const UnitModelChoice& choice_of(UnitFamily family, const HardwareSpec& hw) {
  return family == UnitFamily::matrix ? hw.matrix.model : hw.vector.model;
}
ConfigError refused(UnitFamily family, const HardwareSpec& hw, const std::string& why) {
  const UnitModelChoice& choice = choice_of(family, hw);
  return ConfigError(choice.file_in(hw.source_file), choice.line, family == UnitFamily::matrix ? "matrix.model" : "vector.model", why);
}

// The family's model as `hw` names it: ConfigError at the file and line of an unknown one.
const UnitModel& model_of(UnitFamily family, const HardwareSpec& hw) {
  const std::string& name = choice_of(family, hw).name;
  const UnitModel* m = unit_models().find(name);
  if (!m) throw refused(family, hw, "unknown model '" + name + "' (expected one of " + unit_models().list() + ")");
  return *m;
}

// The analytic bounds (core) ask the chip's unit models for their peaks, through the same checks
// as building the units: an unknown model, or one without the family, is refused at its file and
// line, never bounded at the file's rates in silence.
[[maybe_unused]] const bool peak_installed = [] {
  set_unit_peak_of([](const HardwareSpec& hw, bool matrix, DType t) {
    const UnitFamily family = matrix ? UnitFamily::matrix : UnitFamily::vector;
    const UnitModel& model = model_of(family, hw);
    const double peak = model.peak_flops(family, hw, t);
    if (peak > 0 || (matrix && !hw.matrix_supports(t))) return peak;
    throw refused(family, hw, "model '" + model.name() + "' has no " + (matrix ? "matrix" : "vector") + " units");
  });
  return true;
}();
}  // namespace

void check_unit_models(const HardwareSpec& hw) {
  model_of(UnitFamily::matrix, hw);
  model_of(UnitFamily::vector, hw);
}

std::unique_ptr<ComputeTarget> build_units(const char* module_name, UnitFamily family, const HardwareSpec& hw) {
  std::unique_ptr<ComputeTarget> units = model_of(family, hw).build(module_name, family, hw);
  if (!units) {
    throw refused(family, hw, "model '" + choice_of(family, hw).name + "' has no " + (family == UnitFamily::matrix ? "matrix" : "vector") + " units");
  }
  return units;
}

std::string unit_models_markdown() {
  std::string out = "\n## Unit models (`[matrix] model`, `[vector] model`)\n\n| model | what it is |\n|---|---|\n";
  for (const std::string& name : unit_models().names()) out += "| `" + name + "` | " + unit_models().find(name)->summary() + " |\n";
  return out;
}

}  // namespace roofsim
