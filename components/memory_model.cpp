#include "components/memory_model.hpp"

#include "core/error.hpp"

namespace roofsim {

#define ROOFSIM_MEMORY_MODEL_FILE(file) void register_memory_models_##file(MemoryModelRegistry&);
#include "memory_models.inc"
#undef ROOFSIM_MEMORY_MODEL_FILE

MemoryModelRegistry& memory_models() {
  static MemoryModelRegistry registry = [] {
    MemoryModelRegistry r;
#define ROOFSIM_MEMORY_MODEL_FILE(file) register_memory_models_##file(r);
#include "memory_models.inc"
#undef ROOFSIM_MEMORY_MODEL_FILE
    return r;
  }();
  return registry;
}

const MemoryModel& memory_model_of(const HardwareSpec& hw) {
  if (const MemoryModel* m = memory_models().find(hw.memory.model)) return *m;
  throw ConfigError(hw.source_file, hw.memory.model_line, "memory.model",
                    "unknown model '" + hw.memory.model + "' (expected one of " + memory_models().list() + ")");
}

}  // namespace roofsim
