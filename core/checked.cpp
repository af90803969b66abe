#include "core/checked.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/format.hpp"

namespace roofsim {

std::int64_t checked_mul(std::int64_t a, std::int64_t b, const std::string& what) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) {
    throw InputError(what + ": " + std::to_string(a) + " x " + std::to_string(b) + " is too large to count");
  }
  return out;
}

std::int64_t checked_add(std::int64_t a, std::int64_t b, const std::string& what) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) {
    throw InputError(what + ": " + std::to_string(a) + " + " + std::to_string(b) + " is too large to count");
  }
  return out;
}

std::int64_t checked_integer(double value, std::int64_t lo, std::int64_t hi, const std::string& what) {
  // The comparisons are done in double before any conversion: casting an out-of-range double
  // to an integer is undefined behaviour.
  if (!std::isfinite(value) || value != std::floor(value) || value < static_cast<double>(lo) ||
      value > static_cast<double>(hi)) {
    throw InputError(what + " = " + format_general(value) + ": must be a whole number between " + std::to_string(lo) +
                     " and " + std::to_string(hi));
  }
  return static_cast<std::int64_t>(value);
}

void check_range(std::int64_t value, std::int64_t lo, std::int64_t hi, const std::string& what, const std::string& why) {
  if (value < lo || value > hi) {
    throw InputError(what + " " + std::to_string(value) + ": must be between " + std::to_string(lo) + " and " +
                     std::to_string(hi) + (why.empty() ? "" : " (" + why + ")"));
  }
}

}  // namespace roofsim
