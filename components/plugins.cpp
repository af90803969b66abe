// Unit libraries loaded at run time (declared in plugins.hpp).
#include "components/plugins.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <set>
#include <sstream>

#include "core/error.hpp"

namespace roofsim {

void load_plugin(const std::string& path, const std::string& source) {
  static std::set<std::string> loaded;
  if (!loaded.insert(path).second) return;
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

}  // namespace roofsim
