// roofsim: a discrete-event simulator for transformer inference hardware.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <new>
#include <string>
#include <vector>
#include <systemc>

#include "components/plugins.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"
#include "sim/commands.hpp"

namespace {

// "roofsim run": where to look for --help after an error.
std::string program_and_subcommand(const CLI::App& app) {
  std::string out = "roofsim";
  for (const CLI::App* sub : app.get_subcommands()) out += " " + sub->get_name();
  return out;
}

// Every subcommand's name, for messages ("hw, models, run, ...").
std::string subcommand_names(const CLI::App& app) {
  std::string out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    out += (out.empty() ? "" : ", ") + sub->get_name();
  }
  return out;
}

// Whether some subcommand, at any depth, has the long option `name` ("--prompt").
bool has_long_option(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_option_no_throw(name) != nullptr || has_long_option(*sub, name)) return true;
  }
  return false;
}

// Every long option of the app and its subcommands, at any depth ("--prompt").
void long_options(const CLI::App& app, std::vector<std::string>& out) {
  for (const CLI::Option* o : app.get_options()) {
    for (const std::string& n : o->get_lnames()) out.push_back("--" + n);
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) long_options(*sub, out);
}

// What CLI11 would report confusingly, said plainly before it parses: no subcommand or an
// unknown one (CLI11: "A subcommand is required"), and a long option written with one dash
// ("-prompt 16": CLI11 refuses the 16 as a missing experiment file).
void check_command_line(const CLI::App& app, int argc, char* argv[]) {
  if (argc < 2) throw roofsim::InputError("give a SUBCOMMAND: one of " + subcommand_names(app) + " (roofsim --help)");
  const std::string first = argv[1];
  if (!first.empty() && first[0] != '-' && app.get_subcommands([&](const CLI::App* sub) { return sub->check_name(first); }).empty()) {
    throw roofsim::InputError("'" + first + "': unknown SUBCOMMAND (one of " + subcommand_names(app) + ")");
  }
  std::vector<std::string> options, own;  // every command's, and the one invoked's
  long_options(app, options);
  for (const CLI::App* sub : app.get_subcommands([&](const CLI::App* s) { return s->check_name(first); })) long_options(*sub, own);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;  // what follows is not options
    // An option no command has ("--modle"): CLI11 would refuse the value after it as an experiment
    // file ("File does not exist: llama-3-8b").
    if (arg.size() > 2 && arg[0] == '-' && arg[1] == '-') {
      const std::string name = arg.substr(0, arg.find('='));
      if (std::find(options.begin(), options.end(), name) == options.end()) {
        std::string guess = roofsim::closest_name(name, own);
        if (guess.empty()) guess = roofsim::closest_name(name, options);
        throw roofsim::InputError(name + ": unknown option" + (guess.empty() ? "" : "; did you mean " + guess + "?") +
                                  " (roofsim SUBCOMMAND --help lists its options)");
      }
      continue;
    }
    if (arg.size() < 3 || arg[0] != '-' || arg[1] == '-' || !std::isalpha(static_cast<unsigned char>(arg[1]))) continue;
    const std::string name = "-" + arg.substr(0, arg.find('='));
    if (has_long_option(app, name)) {
      throw roofsim::InputError(arg + ": a long option takes two dashes (" + name + ")");
    }
  }
}

// Takes --plugin FILE (or --plugin=FILE; repeatable, anywhere on the line) out of the arguments,
// loads each library, and adds it to ROOFSIM_PLUGINS for the processes a command starts. Then
// loads what ROOFSIM_PLUGINS named already (a worker started by a sweep).
std::vector<char*> load_plugins(int argc, char* argv[]) {
  std::vector<char*> rest;
  std::vector<std::string> paths;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--plugin") {
      if (i + 1 >= argc) throw roofsim::InputError("--plugin: expected a shared library's path after it");
      paths.push_back(argv[++i]);
    } else if (arg.rfind("--plugin=", 0) == 0) {
      paths.push_back(arg.substr(9));
    } else {
      rest.push_back(argv[i]);
    }
  }
  roofsim::load_plugins_from_environment();
  for (const std::string& p : paths) roofsim::load_plugin_and_pass_on(p, "--plugin");
  return rest;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  CLI::App app{
      "roofsim: simulate transformer inference on hardware models where the roofline emerges\n"
      "from matrix units, vector units, HBM channels and links waiting on each other."};
  app.require_subcommand(1);
  app.footer("Unit libraries: --plugin FILE.so (before or after the subcommand, repeatable; also the environment "
             "variable ROOFSIM_PLUGINS=a.so:b.so) loads implementations registered by name, such as memory models "
             "for a hardware file's [memory] model (docs/extending.md)");
  app.set_help_all_flag("--help-all", "Show help for all subcommands");
  roofsim::add_hw_command(app);
  roofsim::add_models_command(app);
  roofsim::add_roofline_command(app);
  roofsim::add_op_command(app);
  roofsim::add_run_command(app);
  roofsim::add_cases_command(app);
  roofsim::add_collective_command(app);
  roofsim::add_whatif_command(app);
  roofsim::add_explain_command(app);
  roofsim::add_validate_command(app);
  roofsim::add_serve_command(app);
  roofsim::add_serving_cases_command(app);
  roofsim::add_search_command(app);
  roofsim::add_settings_command(app);
  roofsim::add_ui_command(app);
  // One error path: every refusal of bad input is one line on standard error and exit 2;
  // anything else is a bug in roofsim and exits 3.
  try {
    std::vector<char*> args = load_plugins(argc, argv);
    check_command_line(app, static_cast<int>(args.size()), args.data());
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::RuntimeError& e) {  // exit codes chosen by a command, such as `cases run` failing
    return e.get_exit_code();  // the command has said why (CLI11 would add "Runtime error")
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --help-all
    std::cerr << "roofsim: error: " << e.what() << "\n(see " << program_and_subcommand(app) << " --help)\n";
    return 2;
  } catch (const CLI::Error& e) {
    return app.exit(e);
  } catch (const roofsim::InputError& e) {
    // The library names settings in its own terms; here they are flags.
    std::cerr << "roofsim: error: " << roofsim::render_setting_names(e.raw(), roofsim::SettingNames::flag) << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the system refuses (too long, a file used as a folder, no permission): the user's
    // input or machine, named with the path, not a bug in roofsim.
    std::cerr << "roofsim: error: " << (e.path1().empty() ? std::string() : e.path1().string() + ": ") << e.code().message() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "roofsim: error: out of memory (a run larger than this machine holds; see --max-events)\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "roofsim: internal error: " << e.what() << "\n"
              << "This is a bug in roofsim; please report it with the command line and input files.\n";
    return 3;
  }
  return 0;
}

// libsystemc.so brings a main() that prints the SystemC banner before calling sc_main; this one
// takes precedence, silences the banner, then lets SystemC run sc_main as usual.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
