#pragma once
// Options that several subcommands share, added the same way everywhere.
#include <CLI/CLI.hpp>
#include <string>

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

}  // namespace roofsim
