#pragma once
// Numbers typed by people (flags, CSV cells): the whole text must be the number, or nothing.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace roofsim {

std::optional<std::int64_t> parse_integer(const std::string& text);
// "I/N" (a shard of a sweep: the points whose index % N == I) -> {I, N}; throws InputError
// naming `flag` ("--shard", or a Python keyword "shard") for anything else.
std::pair<int, int> parse_shard(const std::string& text, const std::string& flag);
std::optional<double> parse_number(const std::string& text);  // finite only
// Strict forms: the whole text is the number, no spaces, no '+', no hex (finite only).
std::optional<double> parse_strict_number(const std::string& text);
std::optional<std::int64_t> parse_strict_integer(const std::string& text);
// "a,b,,c" -> {"a", "b", "", "c"}: the parts of a comma-separated flag value, empty ones kept.
std::vector<std::string> split_commas(const std::string& text);
// Whether `text` ends with `suffix` (a file's extension, a model name's "-FP8").
bool ends_with(const std::string& text, const std::string& suffix);
// `text` in lower case (ASCII letters).
std::string lowercase(std::string text);
// The leading numbers of a software version ("1.1.0rc2.post2" -> {1, 1, 0}, "v0.12.0" -> {0, 12,
// 0}); {} when it does not start with one.
std::vector<int> version_numbers(const std::string& version);
// Whether `version` is `from` or later by their leading numbers ("0.14.1" >= "0.14"); a version
// without numbers is none.
bool version_at_least(const std::string& version, const std::string& from);

}  // namespace roofsim
