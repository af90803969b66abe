#pragma once
// `--from RESULT.json`: the `settings` object a result records (run and serve JSON, the Python
// module's dicts), read back so that the run can be made again, flags on top.
#include <string>

#include <nlohmann/json.hpp>

namespace roofsim {

// The settings of the result in `path` (written by `roofsim run|serve|collective --json`), of a
// result of `kind`: "run", "serving" or "collective" (its `kind` key; a run's has none). Throws
// InputError naming `flag` and the file for a file that cannot be read, is not JSON, is over
// 1 GiB, or holds no settings of that kind.
nlohmann::json read_result_settings(const std::string& path, const std::string& kind, const std::string& flag);

}  // namespace roofsim
