#include "core/csv.hpp"

#include <fstream>

#include "core/error.hpp"
#include "core/parse.hpp"

namespace roofsim {

namespace {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"') {
      if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

std::string where(const std::string& path, const CsvRow& row, const std::string& column) {
  auto line = row.find("#line");
  return path + ":" + (line == row.end() ? "?" : line->second) + ": " + column;
}

}  // namespace

bool read_bounded_line(std::istream& in, std::string& line, const std::string& path, long line_number, std::size_t max_bytes) {
  line.clear();
  std::istream::sentry ok(in, true);
  if (!ok) return false;
  std::streambuf* buf = in.rdbuf();
  for (;;) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return !line.empty();
    }
    if (c == '\n') return true;
    if (c == '\0') throw InputError(path + ":" + std::to_string(line_number) + ": a NUL byte (not a text file?)");
    if (line.size() >= max_bytes) {
      throw InputError(path + ":" + std::to_string(line_number) + ": a line longer than " + std::to_string(max_bytes >> 20) +
                       " MiB (not a text table?)");
    }
    line.push_back(static_cast<char>(c));
  }
}

void check_table_bytes(const std::string& path, long line_number, std::uint64_t bytes_read, std::uint64_t max_bytes) {
  if (bytes_read <= max_bytes) return;
  const std::string limit = max_bytes >= (std::uint64_t{1} << 30) ? std::to_string(max_bytes >> 30) + " GiB"
                                                                   : std::to_string(max_bytes) + " bytes";
  throw InputError(path + ":" + std::to_string(line_number) + ": more than " + limit +
                   " of text (roofsim reads tables and traces of at most that; split the file)");
}

std::vector<CsvRow> read_csv(const std::string& path, std::uint64_t max_bytes) {
  std::ifstream f(path);
  if (!f) throw InputError(path + ": cannot open file");
  std::vector<CsvRow> rows;
  std::vector<std::string> header;
  std::string line;
  long n = 0;
  std::uint64_t bytes = 0;
  while (read_bounded_line(f, line, path, n + 1)) {
    ++n;
    bytes += line.size() + 1;
    check_table_bytes(path, n, bytes, max_bytes);
    if (line.empty() || line == "\r" || line[0] == '#') continue;  // (a NUL byte: read_bounded_line refused it)
    std::vector<std::string> cells = split_csv_line(line);
    if (header.empty()) {
      header = cells;
      for (std::size_t i = 0; i < header.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
          if (header[i] == header[j]) throw InputError(path + ":" + std::to_string(n) + ": column '" + header[i] + "' appears twice");
        }
      }
      continue;
    }
    if (cells.size() != header.size()) {
      throw InputError(path + ":" + std::to_string(n) + ": " + std::to_string(cells.size()) + " cells, the header has " +
                       std::to_string(header.size()));
    }
    CsvRow row;
    for (std::size_t i = 0; i < header.size(); ++i) row[header[i]] = cells[i];
    row["#line"] = std::to_string(n);
    rows.push_back(std::move(row));
  }
  return rows;
}

const std::string& csv_text(const std::string& path, const CsvRow& row, const std::string& column) {
  auto it = row.find(column);
  if (it == row.end()) throw InputError(path + ": missing column '" + column + "'");
  return it->second;
}

std::int64_t csv_integer(const std::string& path, const CsvRow& row, const std::string& column) {
  const std::string& text = csv_text(path, row, column);
  const auto v = parse_integer(text);
  if (!v) throw InputError(where(path, row, column) + ": expected an integer, got '" + text + "'");
  return *v;
}

std::int64_t csv_positive_integer(const std::string& path, const CsvRow& row, const std::string& column) {
  const std::int64_t v = csv_integer(path, row, column);
  if (v <= 0) throw InputError(where(path, row, column) + ": expected a positive integer, got " + std::to_string(v));
  return v;
}

double csv_number(const std::string& path, const CsvRow& row, const std::string& column) {
  const std::string& text = csv_text(path, row, column);
  const auto v = parse_number(text);
  if (!v) throw InputError(where(path, row, column) + ": expected a number, got '" + text + "'");
  return *v;
}

double csv_positive_number(const std::string& path, const CsvRow& row, const std::string& column) {
  const std::string& text = csv_text(path, row, column);
  const auto v = parse_number(text);
  if (!v || *v <= 0) throw InputError(where(path, row, column) + ": expected a positive number, got '" + text + "'");
  return *v;
}

}  // namespace roofsim
