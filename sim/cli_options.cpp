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

}  // namespace roofsim
