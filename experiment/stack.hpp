#pragma once
// Software stacks as configuration (configs/stacks/NAME.toml, `--stack NAME`): what a serving
// framework's kernels make of a chip, kept apart from the chip. A stack says which attention
// kernel the framework runs and how it launches a step, and sets the kernel parameters it was
// calibrated for ([hardware]: keys of the hardware file, each with its source in [provenance]),
// on whatever hardware it runs.
#include <optional>
#include <string>
#include <vector>

#include "experiment/hardware_edit.hpp"
#include "experiment/inference.hpp"

namespace roofsim {

struct SoftwareStack {
  std::string name, description, file;
  std::optional<AttentionImpl> attention;
  std::optional<Launch> launch;
  std::optional<std::string> allreduce;
  std::optional<MoeKernel> moe;  // the kernels of its MoE layers (workloads/moe_kernels.hpp)  // the framework's all-reduce kernel (Experiment::allreduce)
  std::vector<HardwareEdit> hardware;  // set on the hardware document, in file order
};

// A preset name (configs/stacks) or a path; refuses unknown keys and values with file:line:key.
SoftwareStack load_stack(const std::string& name_or_path);

// Puts the stack on `e`: its kernel parameters on e's hardware (e.hardware becomes the edited
// document's spec), its all-reduce kernel, and its attention kernel and launch mode unless the
// caller set them itself.
void apply_stack(const SoftwareStack& stack, Experiment& e, bool keep_attention, bool keep_launch);

}  // namespace roofsim
