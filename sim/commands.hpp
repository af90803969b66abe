#pragma once
// Each subcommand registers itself on the CLI11 app and runs from a callback.
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace roofsim {

void add_hw_command(CLI::App& app);
void add_models_command(CLI::App& app);  // `roofsim models list|show`
void add_roofline_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_op_command(CLI::App& app);  // also adds `sweep`
void add_cases_command(CLI::App& app);
void add_collective_command(CLI::App& app);
void add_whatif_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_serve_command(CLI::App& app);
void add_serving_cases_command(CLI::App& app);  // after add_cases_command
void add_search_command(CLI::App& app);
void add_ui_command(CLI::App& app);  // `roofsim ui`: execs python3 -m roofsim_ui
void add_explain_command(CLI::App& app);
void add_settings_command(CLI::App& app);  // `roofsim settings`: every setting as declared  // `roofsim explain`: the gap to the roofline, part by part
// `sweep FILE`: registers the sweep-file options on `sweep`; the returned function runs FILE.
std::function<void()> add_sweep_file_options(CLI::App* sweep, const std::string& file);

}  // namespace roofsim
