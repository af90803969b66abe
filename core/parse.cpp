#include "core/parse.hpp"

#include <cmath>
#include <stdexcept>

namespace roofsim {

std::optional<std::int64_t> parse_integer(const std::string& text) {
  try {
    std::size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used == text.size()) return v;
  } catch (const std::logic_error&) {
  }
  return std::nullopt;
}

std::optional<double> parse_number(const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::logic_error&) {
  }
  return std::nullopt;
}

}  // namespace roofsim
