#pragma once
// Errors a user can act on. Every configuration error names the file, the line and the key
// path, and says what was expected; the CLI prints what() and exits non-zero.
#include <stdexcept>
#include <string>

namespace roofsim {

// Bad input: a file, a flag or a combination of them that roofsim refuses.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

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
