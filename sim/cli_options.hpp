#pragma once
// Options that several subcommands share, added the same way everywhere.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "experiment/inference.hpp"

namespace roofsim {

// --json FILE, with the same help text on every subcommand.
// Flag checks whose refusals people can read (CLI11's own print their ranges with 300 digits,
// and let nan through PositiveNumber).
CLI::Validator positive_number();      // finite and > 0
CLI::Validator non_negative_number();  // finite and >= 0
CLI::Validator whole_number_between(std::int64_t lo, std::int64_t hi);
CLI::Validator non_empty_list();        // a comma-separated list with something in it

void add_json_option(CLI::App* cmd, std::string& target);
// --hw NAME|FILE with a default preset.
void add_hw_option(CLI::App* cmd, std::string& target);
// A dtype option validated against the known dtypes.
void add_dtype_option(CLI::App* cmd, const std::string& flag, std::string& target,
                      const std::string& help);
DType dtype_from_flag(const std::string& flag, const std::string& value);

// The experiment options `run` and `whatif` share (everything but --hw and the outputs).
struct ExperimentFlags {
  std::string model, weights, activations, kv, near_memory, attention, launch, allreduce, routing, moe_kernel, fp8_scaling, topology, stack;
  std::int64_t batch = 0, prompt = 0, gen = 0;
  std::int64_t decode_stride = 0, tp = 1, pp = 1, microbatches = 0, ep = 1, moe_tp = 0, nodes = 0, replicas = 1;
  bool allow_long_context = false;
  double max_events = 0;
  bool ideal = false;
};
// machine_only: the flags that describe the machine and model, not the batch and lengths
// (serve), and not --ep, --microbatches, --decode-stride.
void add_experiment_flags(CLI::App* cmd, ExperimentFlags& f, bool machine_only = false);
// Overrides the fields of `e` whose flags were given on `cmd`.
void apply_experiment_flags(const ExperimentFlags& f, const CLI::App& cmd, Experiment& e);

}  // namespace roofsim
