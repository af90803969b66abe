#pragma once
// Numbers typed by people (flags, CSV cells): the whole text must be the number, or nothing.
#include <cstdint>
#include <optional>
#include <string>

namespace roofsim {

std::optional<std::int64_t> parse_integer(const std::string& text);
std::optional<double> parse_number(const std::string& text);  // finite only

}  // namespace roofsim
