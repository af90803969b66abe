// libFuzzer target: the CSV reader (core/csv.hpp) and its typed cells, every cell of every row
// read as each type. InputError is the expected refusal; anything else is a finding.
#include "core/csv.hpp"
#include "core/error.hpp"
#include "fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = roofsim::fuzz::write_input("table.csv", data, size);
  std::vector<roofsim::CsvRow> rows;
  try {
    rows = roofsim::read_csv(path);
  } catch (const roofsim::InputError&) {
    return 0;
  }
  for (const roofsim::CsvRow& row : rows) {
    for (const auto& [column, text] : row) {
      (void)text;
      for (int reader = 0; reader < 4; ++reader) {
        try {
          switch (reader) {
            case 0: roofsim::csv_text(path, row, column); break;
            case 1: roofsim::csv_integer(path, row, column); break;
            case 2: roofsim::csv_positive_integer(path, row, column); break;
            case 3: roofsim::csv_positive_number(path, row, column); break;
          }
        } catch (const roofsim::InputError&) {
        }
      }
    }
    try {
      roofsim::csv_text(path, row, "no such column");
    } catch (const roofsim::InputError&) {
    }
  }
  return 0;
}
