#include "core/parse.hpp"

#include <cmath>
#include <stdexcept>

#include "core/error.hpp"

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

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

std::pair<int, int> parse_shard(const std::string& text, const std::string& flag) {
  const auto slash = text.find('/');
  const auto i = slash == std::string::npos ? std::nullopt : parse_integer(text.substr(0, slash));
  const auto n = slash == std::string::npos ? std::nullopt : parse_integer(text.substr(slash + 1));
  if (!i || !n || *n < 1 || *n > 1'000'000 || *i < 0 || *i >= *n) {
    const std::string given = flag.rfind("--", 0) == 0 ? flag + " '" + text + "'" : flag + "='" + text + "'";
    throw InputError(given + ": expected I/N with 0 <= I < N <= 1000000, e.g. 0/4");
  }
  return {static_cast<int>(*i), static_cast<int>(*n)};
}

}  // namespace roofsim
