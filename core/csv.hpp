#pragma once
// Tables of measurements and cases (CSV): rows as maps from column to text, with the line each
// came from, and typed cells whose errors name the file, line and column.
#include <cstddef>
#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace roofsim {

// One row: column -> text; the key "#line" holds the row's line number in the file.
using CsvRow = std::map<std::string, std::string>;

// Reads one line (without its newline) into `line`, at most `max_bytes` of it: false at the end
// of the stream; throws InputError "PATH:N: ..." for a longer one or a NUL byte, so an endless
// stream without newlines (/dev/zero) is refused instead of filling memory.
bool read_bounded_line(std::istream& in, std::string& line, const std::string& path, long line_number,
                       std::size_t max_bytes = std::size_t{1} << 20);

// The most text a table or trace may hold (1 GiB): beyond it a reader refuses the file, naming
// the line it reached, instead of filling memory (a parsed row costs several times its text).
constexpr std::uint64_t kMaxTableBytes = std::uint64_t{1} << 30;
// Throws InputError "PATH:N: more than ... of text" once `bytes_read` passes `max_bytes`.
void check_table_bytes(const std::string& path, long line_number, std::uint64_t bytes_read, std::uint64_t max_bytes = kMaxTableBytes);

// Reads a CSV with a header line. Commas inside double quotes do not split; "" is a quote;
// lines starting with '#' are comments. Throws InputError for a missing file, a row whose
// cell count differs from the header's, or more than `max_bytes` of text.
std::vector<CsvRow> read_csv(const std::string& path, std::uint64_t max_bytes = kMaxTableBytes);

// Typed cells. Each throws InputError "PATH:LINE: COLUMN: ..." for a missing column or a value
// that is not what the column holds.
const std::string& csv_text(const std::string& path, const CsvRow& row, const std::string& column);
std::int64_t csv_positive_integer(const std::string& path, const CsvRow& row, const std::string& column);
std::int64_t csv_integer(const std::string& path, const CsvRow& row, const std::string& column);
double csv_positive_number(const std::string& path, const CsvRow& row, const std::string& column);
double csv_number(const std::string& path, const CsvRow& row, const std::string& column);  // any finite number

}  // namespace roofsim
