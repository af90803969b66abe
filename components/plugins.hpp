#pragma once
// Unit libraries loaded at run time: a shared object that registers implementations (memory
// models today: components/memory_model.hpp) into roofsim's registries when loaded. It defines
//   extern "C" void roofsim_register_plugin();
// which roofsim calls once, after dlopen. The library is built against roofsim's headers and
// left unlinked from its libraries: it uses the running roofsim's (the executable exports them).
// `roofsim --plugin FILE.so SUBCOMMAND ...` loads one (repeatable), and so does the environment
// variable ROOFSIM_PLUGINS (paths separated by ':'), which --plugin extends so that the
// processes a command starts (sweep and cases workers) load the same. Python loads one with
// roofsim.load_plugin(path), and ROOFSIM_PLUGINS when the module is imported. Load libraries
// before simulations start on other threads: registering writes the registries they read.
#include <string>

namespace roofsim {

// Loads `path` (once per process) and runs its registration; InputError naming `source` (the
// flag or variable that gave it) and the path when it cannot be opened or has no
// roofsim_register_plugin.
void load_plugin(const std::string& path, const std::string& source = "--plugin");

// Loads every library ROOFSIM_PLUGINS names.
void load_plugins_from_environment();

// load_plugin, then adds the library to ROOFSIM_PLUGINS so that the processes this one starts
// (sweep and cases workers) load it too: what `--plugin` and Python's roofsim.load_plugin do.
void load_plugin_and_pass_on(const std::string& path, const std::string& source);

}  // namespace roofsim
