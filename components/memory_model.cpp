#include "components/memory_model.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/error.hpp"
#include "core/format.hpp"

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

namespace {
// The analytic bounds (core) ask the chip's model for its bandwidth, through the same check as the
// chip it builds: an unknown model, or a key it does not take, is refused at its file and line
// (`hw show` and `roofline` too), never bounded at HBM's bandwidth in silence.
[[maybe_unused]] const bool bandwidth_installed = [] {
  set_memory_bandwidth_of([](const HardwareSpec& hw) { return memory_model_of(hw).bandwidth(hw); });
  return true;
}();
}  // namespace

double MemoryModel::param(const HardwareSpec& hw, const std::string& key) const {
  for (const MemoryModelParam& p : params()) {
    if (p.key != key) continue;
    auto given = hw.memory.params.find(key);
    return given == hw.memory.params.end() ? p.default_value : given->second.value;
  }
  throw std::logic_error("memory model '" + name() + "' reads memory." + key + ", which it does not declare");
}

const MemoryModel& memory_model_of(const HardwareSpec& hw) {
  const MemoryModel* m = memory_models().find(hw.memory.model);
  if (!m) {
    throw ConfigError(hw.memory.model_file.empty() ? hw.source_file : hw.memory.model_file, hw.memory.model_line, "memory.model",
                      "unknown model '" + hw.memory.model + "' (expected one of " + memory_models().list() + ")");
  }
  const std::vector<MemoryModelParam> declared = m->params();
  for (const auto& entry : hw.memory.params) {
    const std::string& key = entry.first;
    const MemorySpec::ModelParam& given = entry.second;
    auto p = std::find_if(declared.begin(), declared.end(), [&key](const MemoryModelParam& d) { return d.key == key; });
    if (p == declared.end()) {
      std::string keys;
      for (const MemoryModelParam& d : declared) keys += (keys.empty() ? "" : ", ") + d.key;
      throw ConfigError(given.file, given.line, "memory." + key,
                        "not a key of model '" + m->name() + "' (" + (keys.empty() ? "it has none of its own" : "its keys: " + keys) + ")");
    }
    if (given.value < p->min || given.value > p->max) {
      throw ConfigError(given.file, given.line, "memory." + key,
                        format_general(given.value) + " is outside " + format_general(p->min) + " to " + format_general(p->max) +
                            (p->unit.empty() ? "" : " " + p->unit) + " (model '" + m->name() + "')");
    }
  }
  return *m;
}

std::string memory_models_markdown() {
  std::string out = "\n## Memory models (`[memory] model`) and their own keys\n\n";
  out += "| model | what it is | its keys under [memory] (unit, default, range: meaning) |\n|---|---|---|\n";
  for (const std::string& name : memory_models().names()) {
    const MemoryModel& m = *memory_models().find(name);
    std::string keys;
    for (const MemoryModelParam& p : m.params()) {
      keys += (keys.empty() ? "" : "; ") + ("`" + p.key + "` (" + (p.unit.empty() ? "" : p.unit + ", ") + format_general(p.default_value) +
                                             ", " + format_general(p.min) + " to " + format_general(p.max) + "): " + p.meaning);
    }
    out += "| `" + name + "` | " + m.summary() + " | " + (keys.empty() ? "none" : keys) + " |\n";
  }
  return out;
}

}  // namespace roofsim
