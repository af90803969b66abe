// Identical units that each serve one job after another (components/matrix_unit.hpp): the
// default for both families.
#include <memory>

#include "components/matrix_unit.hpp"
#include "components/unit_model.hpp"

namespace roofsim {

namespace {

class ArrayUnits : public UnitModel {
 public:
  std::string name() const override { return "array"; }
  std::string summary() const override {
    return "identical units, each serving one job after another: a job takes its array cycles at matrix.sustained_clock_mhz "
           "(its FLOPs at the vector rate), its result ready a pipeline latency later";
  }
  std::unique_ptr<ComputeTarget> build(const char* module_name, UnitFamily family, const HardwareSpec& hw) const override {
    if (family == UnitFamily::matrix) return std::make_unique<MatrixUnits>(module_name, hw.matrix);
    return std::make_unique<VectorUnits>(module_name, hw.vector);
  }
  double peak_flops(UnitFamily family, const HardwareSpec& hw, DType t) const override {
    return family == UnitFamily::matrix ? hw.array_matrix_peak_flops(t) : hw.array_vector_peak_flops();
  }
};

}  // namespace

void register_unit_models_array(UnitModelRegistry& r) { r.add(std::make_unique<ArrayUnits>()); }

}  // namespace roofsim
