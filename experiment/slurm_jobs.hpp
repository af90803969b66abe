#pragma once
// Sweeps sharded as Slurm job arrays (`roofsim sweep FILE --slurm DIR [--submit]`).
//
// A sweep of P points runs as an array of N tasks and one merge job:
//   DIR/array.sbatch   task i runs `roofsim sweep FILE --shard i/N --store DIR/shard-i.db`:
//                      the points whose index % N == i, each committed to the shard store as it
//                      finishes, so a task re-run (the same DIR submitted again) runs only the
//                      points its store lacks;
//   DIR/merge.sbatch   after every task succeeded (--dependency=afterok): the shard stores
//                      merged into DIR/results.db and exported to DIR/results.csv;
//   DIR/logs/          each task's and the merge's standard output and error;
//   DIR/jobs.txt       after a submission, the job ids (array_job=ID, merge_job=ID).
// DIR must be on a filesystem that the login node and the compute nodes share. docs/slurm.md
// says how to run it on a cluster and how the test runs it on a single-node Slurm.
#include <string>
#include <vector>

namespace roofsim {

struct SlurmOptions {
  std::string dir;            // where scripts, shard stores and logs go (created if missing; made absolute)
  std::string roofsim;        // absolute path of the roofsim executable the tasks run
  std::string sweep_file;     // absolute path of the sweep file
  int array_size = 4;         // tasks in the array (= shards)
  std::string partition;      // "" = the cluster's default
  std::string time_limit = "01:00:00";
  int cpus_per_task = 1;      // each task runs `-j cpus_per_task`
  std::string job_name = "roofsim-sweep";
};

struct SlurmJobs {
  std::string array_script, merge_script;  // absolute paths of the scripts written
  std::string array_job, merge_job;        // Slurm job ids, when submitted ("" otherwise)
};

// Writes DIR/array.sbatch and DIR/merge.sbatch (and creates DIR/logs). Throws InputError,
// naming the flag (--slurm, --array-size, --cpus-per-task, --time-limit, --partition), for
// options Slurm or the scripts cannot take, and when DIR cannot be written.
SlurmJobs write_slurm_jobs(const SlurmOptions& o);

// Writes the scripts, submits the array with `sbatch --parsable`, then the merge with
// --dependency=afterok:<array id>, and records both ids in DIR/jobs.txt. Throws InputError
// with sbatch's own message when sbatch is missing or refuses.
SlurmJobs submit_slurm_jobs(const SlurmOptions& o);

// Helpers, public for the tests.

// `s` as one word for a POSIX shell: in single quotes, each ' written as '\''.
std::string shell_quote(const std::string& s);

// Whether `t` is a time limit sbatch's --time accepts: minutes, minutes:seconds,
// hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds, or
// UNLIMITED/INFINITE.
bool is_slurm_time_limit(const std::string& t);

struct ProcessOutput {
  int exit_code = -1;  // the exit status; 128 + the signal when a signal ended it
  std::string out, err;
};
// Runs argv[0] (looked up on PATH) with the arguments argv[1..], no shell in between, and
// returns what it wrote. Throws InputError when it cannot be started (not found, say).
ProcessOutput run_process(const std::vector<std::string>& argv);

}  // namespace roofsim
