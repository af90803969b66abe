#include "core/parse.hpp"
#include "workloads/op_cost.hpp"

#include <sstream>
#include <vector>

#include "core/checked.hpp"
#include "core/error.hpp"

namespace roofsim {

OpCost gemm_cost(const GemmShape& g) {
  OpCost c;
  c.engine = Engine::matrix;
  c.compute_dtype = g.compute();
  const double b = static_cast<double>(g.batch);
  const double m = static_cast<double>(g.m), n = static_cast<double>(g.n),
               k = static_cast<double>(g.k);
  c.flops = 2.0 * b * m * static_cast<double>(g.mac_cols()) * k;
  (void)n;
  c.read_bytes = b * (static_cast<double>(g.a_elements_per_batch()) * dtype_bytes(g.a) +
                      static_cast<double>(g.b_elements_per_batch()) * dtype_bytes(g.b));
  c.write_bytes = b * static_cast<double>(g.c_elements_per_batch()) * dtype_bytes(g.c);
  c.reads_resident = g.reads_resident;
  return c;
}

OpCost vector_cost(const VectorShape& v) {
  OpCost c;
  c.engine = Engine::vector;
  c.compute_dtype = DType::fp32;
  c.flops = v.flops_per_element * static_cast<double>(v.elements_in);
  c.read_bytes = static_cast<double>(v.elements_in) * dtype_bytes(v.dtype);
  c.write_bytes = static_cast<double>(v.elements_out) * dtype_bytes(v.output_dtype());
  c.reads_resident = v.reads_resident;
  return c;
}

bool runs_near_memory(const HardwareSpec& hw, NearMemory policy, const GemmShape& g) {
  if (!hw.pim.present || policy == NearMemory::off || g.fused_attention || g.batch != 1) return false;
  return policy == NearMemory::all || g.m <= hw.pim.max_rows;
}

void check_shape(const GemmShape& g, const std::string& what) {
  if (g.batch <= 0 || g.m <= 0 || g.n <= 0 || g.k <= 0) {
    throw InputError(what + ": GEMM dimensions must be positive, got batch=" +
                     std::to_string(g.batch) + " M=" + std::to_string(g.m) +
                     " N=" + std::to_string(g.n) + " K=" + std::to_string(g.k));
  }
  // Each operand and the output at most 2^48 elements: byte counts and tile arithmetic on
  // them then stay far from overflowing (the division keeps the check itself from overflowing).
  const double limit = kMaxSize;
  const double b = static_cast<double>(g.batch), m = static_cast<double>(g.m), n = static_cast<double>(g.n),
               k = static_cast<double>(g.k);
  if (b * m * k > limit || b * k * n > limit || b * m * n > limit) {
    throw InputError(what + ": GEMM batch=" + std::to_string(g.batch) + " M=" + std::to_string(g.m) + " N=" +
                     std::to_string(g.n) + " K=" + std::to_string(g.k) + " has an operand of more than 2^48 elements");
  }
}

void check_shape(const VectorShape& v, const std::string& what) {
  if (v.elements_in <= 0 || v.elements_out <= 0 || v.flops_per_element < 0) {
    throw InputError(what + ": element counts must be positive");
  }
  if (v.inflight_bytes_per_unit < 0) throw InputError(what + ": bytes in flight must not be negative");
  if (static_cast<double>(v.elements_in) > kMaxSize || static_cast<double>(v.elements_out) > kMaxSize) {
    throw InputError(what + ": more than 2^48 elements");
  }
}

GemmShape parse_gemm(const std::string& text, DType dtype) {
  std::vector<std::int64_t> dims;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    const auto v = parse_integer(part);
    if (!v) throw InputError("${gemm} '" + text + "': '" + part + "' is not an integer (expected M,N,K or B,M,N,K)");
    dims.push_back(*v);
  }
  if (dims.size() != 3 && dims.size() != 4) {
    throw InputError("${gemm} '" + text + "': expected M,N,K or B,M,N,K");
  }
  GemmShape g;
  std::size_t i = 0;
  if (dims.size() == 4) g.batch = dims[i++];
  g.m = dims[i++];
  g.n = dims[i++];
  g.k = dims[i++];
  g.a = g.b = g.c = dtype;
  check_shape(g, "${gemm} " + text);
  return g;
}

}  // namespace roofsim
