#include "sim/cli_options.hpp"

#include "core/error.hpp"

namespace roofsim {

void add_json_option(CLI::App* cmd, std::string& target) {
  cmd->add_option("--json", target, "Also write the results as JSON to FILE ('-' = standard output, the table then goes to standard error)");
}

void add_hw_option(CLI::App* cmd, std::string& target) {
  cmd->add_option("--hw", target, "Hardware: a preset name (see 'roofsim hw list') or a path to a hardware .toml")
      ->capture_default_str();
}

void add_dtype_option(CLI::App* cmd, const std::string& flag, std::string& target,
                      const std::string& help) {
  cmd->add_option(flag, target, help + " (" + dtype_list() + ")")->capture_default_str();
}

DType dtype_from_flag(const std::string& flag, const std::string& value) {
  DType t;
  if (!parse_dtype(value, t)) {
    throw InputError(flag + " '" + value + "': unknown dtype (expected one of " + dtype_list() + ")");
  }
  return t;
}

void add_experiment_flags(CLI::App* cmd, ExperimentFlags& f) {
  cmd->add_option("--model", f.model, "Model preset (configs/models), model .toml, or Hugging Face config.json (default llama-3-8b)");
  cmd->add_option("--batch", f.batch, "Sequences per batch (default 1)")->check(CLI::PositiveNumber);
  cmd->add_option("--prompt", f.prompt, "Prompt length in tokens (default 512)")->check(CLI::PositiveNumber);
  cmd->add_option("--gen", f.gen, "Tokens generated per sequence, the first by prefill (default 128)")->check(CLI::PositiveNumber);
  cmd->add_option("--weights-dtype", f.weights, "Weights: bf16, fp16, fp8, int8, int4 (default bf16)");
  cmd->add_option("--activations-dtype", f.activations, "Activations, the matmuls' compute type: bf16, fp16, fp8 (default bf16)");
  cmd->add_option("--kv-dtype", f.kv, "KV cache: bf16, fp16, fp8, int8 (default bf16)");
  cmd->add_option("--near-memory", f.near_memory, "On hardware with [pim]: which GEMMs the near-memory units run: "
                                                  "auto (unbatched, at most pim.max_rows rows: decode GEMVs; default), all, off")
      ->check(CLI::IsMember({"off", "auto", "all"}));
}

std::vector<std::string> experiment_flag_arguments(const ExperimentFlags& f, const CLI::App& cmd, const std::string& skip) {
  std::vector<std::string> args;
  const std::pair<const char*, std::string> flags[] = {
      {"--model", f.model}, {"--batch", std::to_string(f.batch)}, {"--prompt", std::to_string(f.prompt)},
      {"--gen", std::to_string(f.gen)}, {"--weights-dtype", f.weights}, {"--activations-dtype", f.activations},
      {"--kv-dtype", f.kv}, {"--near-memory", f.near_memory}};
  for (const auto& [flag, value] : flags) {
    if (cmd.count(flag) && skip != flag) {
      args.push_back(flag);
      args.push_back(value);
    }
  }
  return args;
}

}  // namespace roofsim
