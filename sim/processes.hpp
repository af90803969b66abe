#pragma once
// Child roofsim processes: SystemC simulates once per process, so anything that compares
// several simulations (whatif, sweeps, validate) runs each as its own `roofsim` process.
#include <functional>
#include <string>
#include <vector>

namespace roofsim {

// The path of the running roofsim executable.
std::string self_path();
// Runs the commands, `jobs` at a time, their standard output discarded and their standard
// error kept in `logs[i]`; returns the indices of those that failed.
std::vector<std::size_t> run_processes(const std::vector<std::vector<std::string>>& commands,
                                       const std::vector<std::string>& logs, int jobs);
// The same; on a failure removes `dir` and throws InputError with the first failed one's errors.
void run_all(const std::vector<std::vector<std::string>>& commands, const std::vector<std::string>& logs, int jobs,
             const std::string& dir, const std::function<std::string(std::size_t)>& what);

}  // namespace roofsim
