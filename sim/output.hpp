#pragma once
// Result writers shared by every subcommand: JSON to a file or standard output, and aligned
// text tables for people.
#include <initializer_list>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace roofsim {

// Writes `j` (pretty-printed) to `path`; "-" means standard output. Throws InputError when the
// file cannot be written.
// Refuses, before any work, an output path that cannot be written: its folder missing, or a
// folder given as the file ("--json out/": `flag` names it).
void check_output_path(const std::string& path, const std::string& flag);
void write_json(const std::string& path, const nlohmann::json& j);
// Plain-text CSV writer to a path ("-" = standard output).
void write_text(const std::string& path, const std::string& text);

// Columns are left-aligned for text, right-aligned for numbers (decided per cell).
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void add_row(std::vector<std::string> row);
  void print(std::ostream& os) const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

// Where human-readable output goes: standard output, unless JSON already goes there.
std::ostream& human_out(const std::string& json_path);
// The same for a command with several files to write ({path, flag}): standard error when one of
// them is '-'; more than one '-' is refused (InputError), as their lines would mix.
std::ostream& human_out(std::initializer_list<std::pair<std::string, const char*>> outputs);

}  // namespace roofsim
