#include "core/error.hpp"

namespace roofsim {

std::string render_setting_names(const std::string& message, SettingNames style) {
  std::string out;
  std::size_t i = 0;
  while (i < message.size()) {
    const std::size_t open = message.find("${", i);
    const std::size_t close = open == std::string::npos ? std::string::npos : message.find('}', open);
    if (close == std::string::npos) {
      out += message.substr(i);
      break;
    }
    out += message.substr(i, open - i);
    std::string name = message.substr(open + 2, close - open - 2);
    if (style == SettingNames::flag) {
      for (char& c : name) {
        if (c == '_') c = '-';
      }
      name = "--" + name;
    }
    out += name;
    i = close + 1;
  }
  return out;
}

InputError renamed_setting(const InputError& e, const std::string& from, const std::string& to) {
  std::string message = e.raw();
  const std::string mark = "${" + from + "}";
  for (std::size_t at = message.find(mark); at != std::string::npos; at = message.find(mark, at + to.size() + 3)) {
    message.replace(at, mark.size(), "${" + to + "}");
  }
  return InputError(message);
}

}  // namespace roofsim
