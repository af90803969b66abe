#pragma once
// Errors a user can act on. Every configuration error names the file, the line and the key
// path, and says what was expected; the CLI prints what() and exits non-zero.
#include <stdexcept>
#include <string>

namespace roofsim {

// How a message names the settings it refuses. The library writes a setting as ${name}
// (its own terms: tp, topology, gen, ...); each client shows it its way: the CLI as the flag
// (--tp, --weights-dtype), the Python module and everything else as the name itself.
enum class SettingNames { key, flag };
std::string render_setting_names(const std::string& message, SettingNames style);

// Bad input: a file, a setting or a combination of them that roofsim refuses. what() names
// settings as keys; raw() keeps the ${name} marks for clients that name them otherwise.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message)
      : std::runtime_error(render_setting_names(message, SettingNames::key)), raw_(message) {}
  const std::string& raw() const { return raw_; }

 private:
  std::string raw_;
};

// The same refusal about another setting: a library call checked ${from} where the user gave
// ${to} (the draft model is checked as a model, a prefill instance's TP as a TP).
InputError renamed_setting(const InputError& e, const std::string& from, const std::string& to);

// Bad input located in a configuration file.
class ConfigError : public InputError {
 public:
  ConfigError(const std::string& file, long line, const std::string& key_path,
              const std::string& problem)
      : InputError(file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " +
                   (key_path.empty() ? std::string() : key_path + ": ") + problem),
        file_(file), line_(line), key_path_(key_path) {}
  const std::string& file() const { return file_; }
  long line() const { return line_; }
  const std::string& key_path() const { return key_path_; }

 private:
  std::string file_;
  long line_;
  std::string key_path_;
};

}  // namespace roofsim
