#include "core/parse.hpp"
#include "sim/op_flags.hpp"

#include "core/checked.hpp"
#include "core/error.hpp"
#include "experiment/single_op.hpp"

namespace roofsim {

namespace {
OpSpec parse_reduce(const std::string& text, DType dtype) {
  const auto comma = text.find(',');
  const auto rows_parsed = comma == std::string::npos ? std::nullopt : parse_integer(text.substr(0, comma));
  const auto cols_parsed = comma == std::string::npos ? std::nullopt : parse_integer(text.substr(comma + 1));
  if (!rows_parsed || !cols_parsed) throw InputError("--reduce '" + text + "': expected ROWS,COLS");
  const std::int64_t rows = *rows_parsed, cols = *cols_parsed;
  if (rows <= 0 || cols <= 0) throw InputError("--reduce " + text + ": ROWS and COLS must be positive");
  if (static_cast<double>(rows) * static_cast<double>(cols) > kMaxSize) {
    throw InputError("--reduce " + text + ": more than 2^48 elements");
  }
  return row_sum_op(rows, cols, dtype);
}
}  // namespace

OpSpec op_from_flags(const OpFlags& f, DType dtype) {
  if (!f.gemm.empty()) return gemm_op(parse_gemm(f.gemm, dtype), f.gemm);
  if (f.elementwise > 0) {
    check_range(f.elementwise, 1, static_cast<std::int64_t>(kMaxSize), "--elementwise");
    return elementwise_add_op(f.elementwise, dtype);
  }
  return parse_reduce(f.reduce, dtype);
}

}  // namespace roofsim
