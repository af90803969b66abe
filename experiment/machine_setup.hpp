#pragma once
// An experiment's machine, prepared once for all its passes: the hardware (ideal, launch mode
// applied), the model, dtypes, parallelism and topology, checked (internal to the experiment
// library: run_experiment and PassSimulator use it).
#include <memory>
#include <string>
#include <vector>

#include "experiment/inference.hpp"
#include "workloads/chip_layout.hpp"

namespace roofsim {

// Everything about an experiment's machine that does not depend on its batch and lengths:
// hardware (ideal, launch mode applied), model, dtypes, parallelism and topology, checked.
struct PreparedMachine {
  HardwareSpec hw;
  ModelConfig model;
  std::unique_ptr<Topology> topology;  // null for one chip
  ChipLayout layout;
  std::vector<std::string> notes;
};

// Loads and checks what `e` names (hardware, model, stack, dtypes, parallelism, topology); a
// problem is refused as an InputError naming the setting (and the experiment file's line).
PreparedMachine prepare_machine(const Experiment& e);

// Micro-batches when none are given: one per stage (GPipe), or as many as the batch divides into.
std::int64_t experiment_microbatches(const Experiment& e);
// The experiment's parallelism and MoE call on a pass (micro-batches are the caller's).
void put_machine(const Experiment& e, ForwardPass& pass);
// The forward pass of simulated step `step` (0 = prefill), with the experiment's parallelism.
ForwardPass pass_for(const Experiment& e, int step);

}  // namespace roofsim
