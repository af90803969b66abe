// roofsim: a discrete-event simulator for transformer inference hardware.
#include <cstdlib>
#include <iostream>
#include <systemc>

#include "core/error.hpp"
#include "sim/commands.hpp"

int sc_main(int argc, char* argv[]) {
  CLI::App app{
      "roofsim: simulate transformer inference on hardware models where the roofline emerges\n"
      "from matrix units, vector units, HBM channels and links waiting on each other."};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for all subcommands");
  roofsim::add_hw_command(app);
  roofsim::add_roofline_command(app);
  roofsim::add_op_command(app);
  roofsim::add_run_command(app);
  roofsim::add_cases_command(app);
  roofsim::add_collective_command(app);
  roofsim::add_whatif_command(app);
  roofsim::add_validate_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Error& e) {  // parse errors, --help, and exit codes such as `cases run` failing
    return app.exit(e);
  } catch (const roofsim::InputError& e) {
    // The library names settings in its own terms; here they are flags.
    std::cerr << "roofsim: error: " << roofsim::render_setting_names(e.raw(), roofsim::SettingNames::flag) << "\n";
    return 2;
  }
  return 0;
}

// libsystemc.so brings a main() that prints the SystemC banner before calling sc_main; this one
// takes precedence, silences the banner, then lets SystemC run sc_main as usual.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
