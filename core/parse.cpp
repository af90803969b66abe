#include "core/parse.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <system_error>

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

std::optional<double> parse_strict_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  double v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v, std::chars_format::general);
  if (r.ec != std::errc() || r.ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_strict_integer(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (r.ec != std::errc() || r.ptr != end) return std::nullopt;
  return v;
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

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::vector<int> version_numbers(const std::string& version) {
  std::vector<int> out;
  std::size_t i = version.rfind('v', 0) == 0 || version.rfind('V', 0) == 0 ? 1 : 0;  // "v0.12.0" as tags write it
  while (i < version.size() && std::isdigit(static_cast<unsigned char>(version[i]))) {
    int n = 0;
    while (i < version.size() && std::isdigit(static_cast<unsigned char>(version[i])) && n < 100000000) n = n * 10 + (version[i++] - '0');
    out.push_back(n);
    if (i < version.size() && version[i] == '.') ++i;
    else break;
  }
  return out;
}

bool version_at_least(const std::string& version, const std::string& from) {
  const std::vector<int> v = version_numbers(version), f = version_numbers(from);
  if (v.empty()) return false;
  return !std::lexicographical_compare(v.begin(), v.end(), f.begin(), f.end());
}

}  // namespace roofsim
