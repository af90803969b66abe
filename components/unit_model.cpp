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
// The family's model as `hw` names it: ConfigError at the file and line of an unknown one.
const UnitModel& model_of(UnitFamily family, const HardwareSpec& hw) {
  const bool matrix = family == UnitFamily::matrix;
  const UnitModelChoice& choice = matrix ? hw.matrix.model : hw.vector.model;
  const UnitModel* m = unit_models().find(choice.name);
  if (!m) {
    throw ConfigError(choice.file.empty() ? hw.source_file : choice.file, choice.line, matrix ? "matrix.model" : "vector.model",
                      "unknown model '" + choice.name + "' (expected one of " + unit_models().list() + ")");
  }
  return *m;
}
}  // namespace

void check_unit_models(const HardwareSpec& hw) {
  model_of(UnitFamily::matrix, hw);
  model_of(UnitFamily::vector, hw);
}

std::unique_ptr<ComputeTarget> build_units(const char* module_name, UnitFamily family, const HardwareSpec& hw) {
  const bool matrix = family == UnitFamily::matrix;
  const UnitModelChoice& choice = matrix ? hw.matrix.model : hw.vector.model;
  const std::string key = matrix ? "matrix.model" : "vector.model";
  const std::string file = choice.file.empty() ? hw.source_file : choice.file;
  const UnitModel* m = &model_of(family, hw);
  std::unique_ptr<ComputeTarget> units = m->build(module_name, family, hw);
  if (!units) throw ConfigError(file, choice.line, key, "model '" + choice.name + "' has no " + (matrix ? "matrix" : "vector") + " units");
  return units;
}

std::string unit_models_markdown() {
  std::string out = "\n## Unit models (`[matrix] model`, `[vector] model`)\n\n| model | what it is |\n|---|---|\n";
  for (const std::string& name : unit_models().names()) out += "| `" + name + "` | " + unit_models().find(name)->summary() + " |\n";
  return out;
}

}  // namespace roofsim
