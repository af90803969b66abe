#pragma once
// "Did you mean": the known name closest to a mistyped one.
#include <string>
#include <vector>

namespace roofsim {

// The name of `known` that `typed` likely means: the only one it begins (a name cut short,
// "a100_sxm" for a100_sxm4_80gb; three characters or more), else the closest by edit distance
// (letters compared without case) when at most a third of the longer name's characters are off.
// "" when none is.
std::string closest_name(const std::string& typed, const std::vector<std::string>& known);

}  // namespace roofsim
