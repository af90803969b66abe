#pragma once
// Strict reading of TOML tables: every key must be consumed, every value has the expected type
// and range, and every complaint names file, line and key path. Hardware, model and experiment
// loaders are written against this class so that their error messages all look the same.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>
#include <vector>

namespace roofsim {

class ConfigTable {
 public:
  // `file` is only used in messages; `path` is the dotted key path of this table ("" at top).
  ConfigTable(const toml::table& table, std::string file, std::string path);

  // Parses a whole file; syntax errors become ConfigError with the parser's line.
  static toml::table parse_file(const std::string& file);

  bool has(const std::string& key) const;

  // Required values. Numbers accept TOML integers and floats.
  double finite_number(const std::string& key);  // any finite number, negative too
  double positive_number(const std::string& key);
  double non_negative_number(const std::string& key);
  double fraction(const std::string& key);  // in (0, 1]
  std::int64_t positive_integer(const std::string& key);
  std::string string(const std::string& key);
  std::string one_of(const std::string& key, std::initializer_list<const char*> allowed);
  std::string one_of(const std::string& key, const std::vector<std::string>& allowed);
  bool boolean(const std::string& key);
  ConfigTable table(const std::string& key);
  // The value as TOML gave it (arrays, inline tables, any type), marked as read.
  const toml::node& node(const std::string& key);

  // Optional values: absent -> fallback.
  double positive_number_or(const std::string& key, double fallback);
  double non_negative_number_or(const std::string& key, double fallback);
  double fraction_or(const std::string& key, double fallback);
  std::int64_t positive_integer_or(const std::string& key, std::int64_t fallback);
  std::string string_or(const std::string& key, const std::string& fallback);
  bool boolean_or(const std::string& key, bool fallback);
  std::optional<ConfigTable> optional_table(const std::string& key);

  // Keys of this table sorted by name (as TOML++ keeps them).
  std::vector<std::string> keys() const;
  // Keys in the order the file gives them (where order means something: a sweep's grid).
  std::vector<std::string> keys_in_file_order() const;

  // Throws for the first key that was never read: unknown keys are errors, not ignored.
  void reject_unknown_keys() const;

  // Error at a key (its line if present, else this table's line).
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;
  long line_of(const std::string& key) const;
  // The file that gave the key (its table's when absent): a merged document spans files.
  std::string file_of(const std::string& key) const;
  std::string key_path(const std::string& key) const;
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }

 private:
  const toml::node& required(const std::string& key);
  double number(const std::string& key);

  const toml::table* table_;
  std::string file_;
  std::string path_;
  std::set<std::string> used_;
};

// A TOML scalar as the JSON value settings hold (an integer, a finite float, a string or a
// boolean); anything else fails at `key`.
nlohmann::json toml_scalar(const ConfigTable& t, const std::string& key, const toml::node& n);

}  // namespace roofsim
