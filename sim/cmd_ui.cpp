// `roofsim ui`: starts the local web page (ui/roofsim_ui, a Python server over the roofsim
// module) by replacing this process with `python3 -m roofsim_ui ...` (docs/ui.md).
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "sim/commands.hpp"

#ifndef ROOFSIM_UI_DIR
#define ROOFSIM_UI_DIR "ui"
#endif
#ifndef ROOFSIM_PYTHON_DIR
#define ROOFSIM_PYTHON_DIR "build/python"
#endif
#ifndef ROOFSIM_UI_PYTHON
#define ROOFSIM_UI_PYTHON "python3"
#endif

namespace roofsim {

namespace {

namespace fs = std::filesystem;

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// The first executable `name` on PATH (or `name` itself when it holds a slash); "" if none.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const std::string path = env_or("PATH", "/usr/local/bin:/usr/bin:/bin");
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = path.find(':', start);
    const std::string dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

bool has_module(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("roofsim.", 0) == 0 && name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0) return true;
  }
  return false;
}

struct UiOptions {
  int port = 8765;
  std::string host = "127.0.0.1";
  bool open = false;
  std::string sweeps_dir;
  std::vector<std::string> allow_hosts;
};

[[noreturn]] void run_ui(const UiOptions& o) {
  const std::string ui_dir = env_or("ROOFSIM_UI_DIR", ROOFSIM_UI_DIR);
  const std::string python_dir = env_or("ROOFSIM_PYTHON_DIR", ROOFSIM_PYTHON_DIR);
  const std::string python_name = env_or("ROOFSIM_PYTHON", ROOFSIM_UI_PYTHON);
  if (!fs::exists(ui_dir + "/roofsim_ui/__main__.py")) {
    throw InputError("the ui package is not at " + ui_dir + "/roofsim_ui (set ROOFSIM_UI_DIR to the ui/ folder of the roofsim sources)");
  }
  if (!has_module(python_dir)) {
    throw InputError("the roofsim Python module is not built in " + python_dir +
                     " (cmake --build build --target roofsim_python, or set ROOFSIM_PYTHON_DIR to the folder holding roofsim*.so)");
  }
  const std::string python = find_program(python_name);
  if (python.empty()) {
    throw InputError(python_name + " not found: roofsim ui runs its server in Python 3 (apt-get install python3, "
                     "or set ROOFSIM_PYTHON to an interpreter of the version the module is built for)");
  }
  if (!fs::exists(ui_dir + "/node_modules/vega-embed")) {
    std::cerr << "roofsim ui: note: " << ui_dir << "/node_modules is not installed, so the page draws no charts "
              << "(scripts/install-deps.sh runs npm ci --prefix ui)\n";
  }
  const std::string old_path = env_or("PYTHONPATH", "");
  const std::string pythonpath = ui_dir + ":" + python_dir + (old_path.empty() ? "" : ":" + old_path);
  setenv("PYTHONPATH", pythonpath.c_str(), 1);
  std::vector<std::string> args = {python, "-m", "roofsim_ui", "--port", std::to_string(o.port), "--host", o.host};
  if (o.open) args.push_back("--open");
  if (!o.sweeps_dir.empty()) {
    args.push_back("--sweeps-dir");
    args.push_back(o.sweeps_dir);
  }
  for (const std::string& h : o.allow_hosts) {
    args.push_back("--allow-host");
    args.push_back(h);
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  execv(python.c_str(), argv.data());
  throw InputError("cannot start " + python + ": " + std::strerror(errno));
}

}  // namespace

void add_ui_command(CLI::App& app) {
  auto o = std::make_shared<UiOptions>();
  CLI::App* ui = app.add_subcommand(
      "ui",
      "Serve the interactive roofline calculator and simulation explorer as a local web page\n"
      "(analytic bounds at once, simulations in the background, what-if variants, exports).\n"
      "Runs `python3 -m roofsim_ui` (the interpreter the module is built for) with the ui/ sources and the built Python module on\n"
      "PYTHONPATH (override with ROOFSIM_UI_DIR, ROOFSIM_PYTHON_DIR, ROOFSIM_PYTHON). Open the\n"
      "address it prints; Ctrl-C stops it. See docs/ui.md.");
  ui->add_option("--port", o->port, "Port to listen on (0: any free port)")->default_val(8765)->check(CLI::Range(0, 65535));
  ui->add_option("--host", o->host, "Address to bind (0.0.0.0 serves other machines too)")->default_val("127.0.0.1");
  ui->add_flag("--open", o->open, "Open the page in a web browser");
  ui->add_option("--allow-host", o->allow_hosts,
                 "Also answer requests that name the server NAME (an SSH tunnel's or a proxy's host name; repeatable). Other names "
                 "than 127.0.0.1, localhost, [::1] and --host are refused (403), and so is a POST from another site's page (its Origin)");
  ui->add_option("--sweeps-dir", o->sweeps_dir,
                 "The folder whose sweep files (*.toml) and their stores (*.db) the sweeps view lists (default: configs/sweeps of the sources)");
  ui->callback([o] { run_ui(*o); });
}

}  // namespace roofsim
