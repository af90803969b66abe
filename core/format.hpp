#pragma once
// Human-readable numbers for tables: SI prefixes, durations, fixed decimals.
#include <string>
#include <vector>

namespace roofsim {

// 9.894e14, "FLOP/s" -> "989.4 TFLOP/s"
std::string format_si(double value, const std::string& unit, int decimals = 1);
// 0.004776 -> "4.776 ms"
std::string format_seconds(double seconds);
std::string format_fixed(double value, int decimals);
// 0.1234 -> "12.3%"; format_signed_percent: "+12.3%" / "-12.3%" (an error's sign).
std::string format_percent(double fraction);
std::string format_signed_percent(double fraction);
// Six significant digits, no trailing zeros ("1e-300", "0.001", "100000"): a value as a person typed it.
std::string format_general(double value);
// 85899345920 -> "80.0 GiB"
std::string format_bytes(double bytes);
// {"a", "b", "c"} -> "a, b or c": the values a setting takes, for a message.
std::string or_list(const std::vector<std::string>& names);

}  // namespace roofsim
