#pragma once
// Options that several subcommands share, added the same way everywhere.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace roofsim {

// --json FILE, with the same help text on every subcommand.
void add_json_option(CLI::App* cmd, std::string& target);
// --hw NAME|FILE with a default preset.
void add_hw_option(CLI::App* cmd, std::string& target);
// A dtype option validated against the known dtypes.
void add_dtype_option(CLI::App* cmd, const std::string& flag, std::string& target,
                      const std::string& help);
DType dtype_from_flag(const std::string& flag, const std::string& value);

// The experiment options `run` and `whatif` share; `whatif` passes them on to its runs.
struct ExperimentFlags {
  std::string model, weights, activations, kv, near_memory;
  std::int64_t batch = 0, prompt = 0, gen = 0;
};
void add_experiment_flags(CLI::App* cmd, ExperimentFlags& f);
// The flags of `f` that were given on `cmd`, as arguments for `roofsim run` (except `skip`).
std::vector<std::string> experiment_flag_arguments(const ExperimentFlags& f, const CLI::App& cmd, const std::string& skip);

}  // namespace roofsim
