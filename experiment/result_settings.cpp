#include "experiment/result_settings.hpp"

#include <fstream>
#include <sstream>

#include "core/csv.hpp"
#include "core/error.hpp"

namespace roofsim {

nlohmann::json read_result_settings(const std::string& path, const std::string& kind, const std::string& flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(flag + " " + path + ": cannot open file");
  // At most kMaxTableBytes, read in blocks: /dev/zero is refused, not read forever.
  std::string text;
  char block[1 << 16];
  while (in.read(block, sizeof block) || in.gcount() > 0) {
    text.append(block, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxTableBytes) throw InputError(flag + " " + path + ": more than 1 GiB: not a result of roofsim");
  }
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) throw InputError(flag + " " + path + ": not JSON (a result of roofsim run --json or serve --json)");
  if (!j.is_object() || !j.contains("settings") || !j["settings"].is_object()) {
    throw InputError(flag + " " + path + ": no 'settings' object (results of roofsim run, serve and collective --json record them)");
  }
  const std::string is = j.contains("kind") && j["kind"].is_string() ? j["kind"].get<std::string>() : "run";
  if (is != kind) {
    const std::string command = is == "serving" ? "serve" : is;
    throw InputError(flag + " " + path + ": the settings of a " + (is == "serving" ? std::string("serving run") : is) + " (roofsim " + command + " --from)");
  }
  return j["settings"];
}

}  // namespace roofsim
