// Unit libraries loaded at run time (declared in plugins.hpp).
#include "components/plugins.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <set>
#include <sstream>

#include "core/error.hpp"

namespace roofsim {

namespace {

// Python imports its extension modules RTLD_LOCAL, so roofsim's code inside the module is not
// there for a library loaded after it to bind to. Opening the object that holds this code again
// with RTLD_GLOBAL (RTLD_NOLOAD: it is loaded already) makes it so; the executable exports its
// symbols at link time (ENABLE_EXPORTS), where this changes nothing.
void make_roofsim_symbols_global() {
  static const int anchor = 0;
  Dl_info self{};
  if (dladdr(&anchor, &self) != 0 && self.dli_fname) dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
}

}  // namespace

void load_plugin(const std::string& path, const std::string& source) {
  static std::mutex guard;
  const std::lock_guard<std::mutex> lock(guard);
  static std::set<std::string> loaded;
  if (!loaded.insert(path).second) return;
  make_roofsim_symbols_global();
  // RTLD_GLOBAL: a library may hold types another library it loads after uses.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    loaded.erase(path);
    const char* why = dlerror();
    throw InputError(source + " " + path + ": cannot be loaded (" + std::string(why ? why : "unknown reason") + ")");
  }
  using Register = void (*)();
  auto reg = reinterpret_cast<Register>(dlsym(handle, "roofsim_register_plugin"));
  if (!reg) {
    loaded.erase(path);
    throw InputError(source + " " + path + ": defines no roofsim_register_plugin() (see components/plugins.hpp)");
  }
  reg();
}

void load_plugins_from_environment() {
  const char* list = std::getenv("ROOFSIM_PLUGINS");
  if (!list) return;
  std::stringstream in(list);
  std::string path;
  while (std::getline(in, path, ':')) {
    if (!path.empty()) load_plugin(path, "ROOFSIM_PLUGINS");
  }
}

void load_plugin_and_pass_on(const std::string& path, const std::string& source) {
  load_plugin(path, source);
  const std::string before = std::getenv("ROOFSIM_PLUGINS") ? std::getenv("ROOFSIM_PLUGINS") : "";
  if ((":" + before + ":").find(":" + path + ":") != std::string::npos) return;  // named already
  setenv("ROOFSIM_PLUGINS", (before.empty() ? path : before + ":" + path).c_str(), 1);
}

}  // namespace roofsim
