#include "core/parse.hpp"
#include "sim/op_flags.hpp"

#include "core/error.hpp"

namespace roofsim {

namespace {
VectorShape parse_reduce(const std::string& text, DType dtype) {
  const auto comma = text.find(',');
  const auto rows_parsed = comma == std::string::npos ? std::nullopt : parse_integer(text.substr(0, comma));
  const auto cols_parsed = comma == std::string::npos ? std::nullopt : parse_integer(text.substr(comma + 1));
  if (!rows_parsed || !cols_parsed) throw InputError("--reduce '" + text + "': expected ROWS,COLS");
  const std::int64_t rows = *rows_parsed, cols = *cols_parsed;
  if (rows <= 0 || cols <= 0) throw InputError("--reduce " + text + ": ROWS and COLS must be positive");
  return VectorShape{rows * cols, rows, 1.0, dtype};
}
}  // namespace

OpSpec op_from_flags(const OpFlags& f, DType dtype) {
  const std::string type(dtype_name(dtype));
  OpSpec op;
  if (!f.gemm.empty()) {
    op.gemm = parse_gemm(f.gemm, dtype);
    op.name = "gemm " + f.gemm + " " + type;
  } else if (f.elementwise > 0) {
    op.is_gemm = false;
    op.vector = VectorShape{2 * f.elementwise, f.elementwise, 0.5, dtype};  // c = a + b
    op.name = "add " + std::to_string(f.elementwise) + " " + type;
  } else {
    op.is_gemm = false;
    op.vector = parse_reduce(f.reduce, dtype);
    op.name = "row sum " + f.reduce + " " + type;
  }
  return op;
}

}  // namespace roofsim
