#pragma once
// The one op that `roofsim op` simulates and `roofsim roofline` bounds, from the same flags:
// --gemm M,N,K | B,M,N,K, --elementwise N (c = a + b), --reduce ROWS,COLS (row sums).
#include <string>

#include "components/simulation.hpp"

namespace roofsim {

struct OpFlags {
  std::string gemm;
  std::int64_t elementwise = 0;
  std::string reduce;
  // How many of the three were given (the callers require exactly or at most one).
  int given() const { return !gemm.empty() + (elementwise > 0) + !reduce.empty(); }
};

// Throws InputError for malformed or non-positive sizes.
OpSpec op_from_flags(const OpFlags& f, DType dtype);

}  // namespace roofsim
