#include "sim/output.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/error.hpp"

#include <climits>
#include <unistd.h>

namespace roofsim {

void write_text(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  std::ofstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": cannot open for writing");
  f << text;
  f.close();  // the last buffer is only written here: a full disk shows now
  if (f.fail()) throw InputError(path + ": write failed (disk full?)");
}

void check_output_path(const std::string& path, const std::string& flag) {
  if (path.empty() || path == "-") return;
  namespace fs = std::filesystem;
  // A name the system cannot hold is refused now, not after the work (gnuplot or the write
  // would fail at the end).
  for (const fs::path& part : fs::path(path)) {
    if (part.string().size() > NAME_MAX) {
      throw InputError(flag + " " + path + ": a name in it is longer than " + std::to_string(NAME_MAX) + " bytes");
    }
  }
  if (path.size() >= PATH_MAX) throw InputError(flag + " " + path + ": longer than " + std::to_string(PATH_MAX - 1) + " bytes");
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    throw InputError(flag + " " + path + ": the folder '" + parent.string() + "' does not exist");
  }
  if (fs::is_directory(path, ec)) throw InputError(flag + " " + path + ": is a folder, not a file");
  if (access(parent.empty() ? "." : parent.c_str(), W_OK) != 0 && !fs::exists(path, ec)) {
    throw InputError(flag + " " + path + ": the folder is not writable");
  }
}

void write_json(const std::string& path, const nlohmann::json& j) {
  write_text(path, j.dump(2) + "\n");
}

TextTable::TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

void TextTable::add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

namespace {
// A number, possibly with a unit ("4.503 ms", "989.4 TFLOP/s", "5.4%", "10-50 us", "4x4x4"):
// right-aligned. Prose that happens to start with a digit ("1. no op beats ...") and names
// ("1P(tp2)+3D(tp2)") are not: the number before any unit holds digits, signs, dots, exponents,
// 'x', '%', ':' and ',' only.
bool numeric_cell(const std::string& s) {
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '+' || s[0] == '.')) {
    return false;
  }
  if (std::count(s.begin(), s.end(), ' ') > 1) return false;
  const std::string number = s.substr(0, s.find(' '));
  return number.find_first_not_of("0123456789.+-eExX%:,") == std::string::npos;
}
}  // namespace

void TextTable::print(std::ostream& os) const {
  std::vector<std::size_t> width;
  for (const auto& r : rows_) {
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  for (std::size_t ri = 0; ri < rows_.size(); ++ri) {
    const auto& r = rows_[ri];
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      std::string pad(width[i] - r[i].size(), ' ');
      bool right = ri > 0 && numeric_cell(r[i]);
      line += (i ? "  " : "") + (right ? pad + r[i] : r[i] + (i + 1 < r.size() ? pad : ""));
    }
    os << line << "\n";
    if (ri == 0) {
      std::size_t total = 0;
      for (std::size_t i = 0; i < width.size(); ++i) total += width[i] + (i ? 2 : 0);
      os << std::string(total, '-') << "\n";
    }
  }
}

std::ostream& human_out(const std::string& json_path) {
  return json_path == "-" ? std::cerr : std::cout;
}

std::ostream& human_out(std::initializer_list<std::pair<std::string, const char*>> outputs) {
  std::string taken;
  for (const auto& [path, flag] : outputs) {
    if (path != "-") continue;
    if (!taken.empty()) throw InputError(std::string(flag) + " -: " + taken + " already writes to standard output; give one of them a file");
    taken = flag;
  }
  return taken.empty() ? std::cout : std::cerr;
}

}  // namespace roofsim
