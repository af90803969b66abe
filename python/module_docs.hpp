#pragma once
// The Python module's docstrings and argument defaults, made from the settings tables
// (experiment/experiment_settings.hpp, serving/serving_settings.hpp,
// experiment/collective_settings.hpp), so that help(roofsim.run) lists what the CLI takes.
#include <string>

namespace roofsim::python_docs {

std::string default_hw();     // the run table's hw default
std::string default_model();  // and model default
const char* run_doc();
const char* serve_doc();
const char* collective_doc();
const char* analyze_doc();

}  // namespace roofsim::python_docs
