#pragma once
// Each subcommand registers itself on the CLI11 app and runs from a callback.
#include <CLI/CLI.hpp>

namespace roofsim {

void add_hw_command(CLI::App& app);
void add_roofline_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_op_command(CLI::App& app);  // also adds `sweep`
void add_cases_command(CLI::App& app);

}  // namespace roofsim
