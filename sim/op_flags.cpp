#include "sim/op_flags.hpp"

#include "core/error.hpp"

namespace roofsim {

namespace {
VectorShape parse_reduce(const std::string& text, DType dtype) {
  const auto comma = text.find(',');
  long long rows = 0, cols = 0;
  try {
    if (comma == std::string::npos) throw std::invalid_argument("no comma");
    std::size_t u1 = 0, u2 = 0;
    const std::string a = text.substr(0, comma), b = text.substr(comma + 1);
    rows = std::stoll(a, &u1);
    cols = std::stoll(b, &u2);
    if (u1 != a.size() || u2 != b.size()) throw std::invalid_argument("trailing");
  } catch (const std::logic_error&) {
    throw InputError("--reduce '" + text + "': expected ROWS,COLS");
  }
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
