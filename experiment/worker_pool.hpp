#pragma once
// Many independent simulations on several cores. SystemC keeps one simulation per process,
// so parallel work needs processes: forked workers each take the next task when they finish
// one (tasks differ in cost by orders of magnitude, so fixed shares would leave cores idle)
// and send each result back as one line of JSON.
#include <cstddef>
#include <functional>

#include <nlohmann/json.hpp>

#include "experiment/progress.hpp"

namespace roofsim {

// Runs work(0) .. work(tasks - 1) in `jobs` forked worker processes (jobs <= 1: in this
// process, in order) and calls on_result(task, result) in this process as each finishes, in
// the order they finish. `work` must catch what it can report (InputError becomes part of its
// result); anything it throws stops the pool with that message. A worker that dies (a signal,
// out of memory) stops the pool with std::runtime_error naming its task. Workers die with
// this process. Not for processes that run threads of their own (fork).
// `take`, when given, is asked in this process just before a task would start: false skips it
// (another process sharing the work has it), and on_result is not called for it.
void run_in_workers(std::size_t tasks, int jobs, const std::function<nlohmann::json(std::size_t)>& work,
                    const std::function<void(std::size_t, const nlohmann::json&)>& on_result, const RunControl& control = {},
                    const std::function<bool(std::size_t)>& take = {});

}  // namespace roofsim
