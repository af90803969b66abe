#pragma once
// What a run checks before it simulates: its sizes, the memory its machine needs, and the work
// its simulation would take (internal to the experiment library: simulate_experiment uses it).
#include "core/error.hpp"
#include "experiment/inference.hpp"

namespace roofsim {

// memory_need() with prefill's graph given: a run builds that graph once, for this, the work
// guard and the run.
MemoryNeed memory_need_of(const ModelConfig& m, const Experiment& e, const OpGraph& prefill);

// Sizes first: once these hold, every product of them (tokens x hidden, tp x pp x ep) stays far
// from int64's range.
void check_experiment_sizes(const Experiment& e);

// An error about settings an experiment file gave, at the file's line and with its key rather
// than as a flag the user never typed.
InputError located_in_experiment_file(const InputError& err, const Experiment& e);

// The work guard: the run's simulation events (prefill and the decode steps it simulates,
// interpolated between the first and last decode graphs, null without decode steps) against
// Experiment::max_events, and the memory its results take against the machine's; returns the
// events.
double check_experiment_work(const ExperimentResult& r, const Experiment& e, const OpGraph& prefill, const OpGraph* first_decode,
                             const OpGraph* last_decode);

}  // namespace roofsim
