#pragma once
// "Did you mean": the known name closest to a mistyped one.
#include <string>
#include <vector>

namespace roofsim {

// The name of `known` closest to `typed` (edit distance, letters compared without case) when it
// is a likely typo of it: at most a third of the longer name's characters off. "" when none is.
std::string closest_name(const std::string& typed, const std::vector<std::string>& known);

}  // namespace roofsim
