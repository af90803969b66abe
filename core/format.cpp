#include "core/format.hpp"

#include <cmath>
#include <cstdio>

namespace roofsim {

std::string format_fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string format_percent(double fraction) { return format_fixed(100.0 * fraction, 1) + "%"; }

std::string format_signed_percent(double fraction) { return (fraction >= 0 ? "+" : "") + format_percent(fraction); }

std::string format_si(double value, const std::string& unit, int decimals) {
  static const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  double v = value;
  while (std::fabs(v) >= 1000.0 && i < 6) {
    v /= 1000.0;
    ++i;
  }
  return format_fixed(v, decimals) + " " + prefixes[i] + unit;
}

std::string format_seconds(double s) {
  double a = std::fabs(s);
  if (a == 0) return "0 s";
  if (a >= 1) return format_fixed(s, 3) + " s";
  if (a >= 1e-3) return format_fixed(s * 1e3, 3) + " ms";
  if (a >= 1e-6) return format_fixed(s * 1e6, 3) + " us";
  return format_fixed(s * 1e9, 1) + " ns";
}

std::string format_bytes(double b) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (b >= 1024.0 && i < 4) {
    b /= 1024.0;
    ++i;
  }
  return format_fixed(b, i == 0 ? 0 : 1) + " " + units[i];
}

std::string format_general(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return buf;
}

std::string or_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

}  // namespace roofsim
