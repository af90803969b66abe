#include "experiment/slurm_jobs.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/error.hpp"

extern char** environ;

namespace roofsim {

namespace fs = std::filesystem;

namespace {

// Characters a path may not hold here. sbatch reads the #SBATCH lines itself, not through a
// shell: a value in double quotes may hold spaces, but not a double quote, and a backslash
// anywhere in --output turns off its %A/%a/%j patterns. Control characters (a newline) would
// end the line. Everything else is fine: the script bodies quote every path for the shell.
std::string bad_path_char(const std::string& path) {
  for (char c : path) {
    if (c == '"') return "a double quote";
    if (c == '\\') return "a backslash";
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "a control character";
  }
  return "";
}

// `what` names the path in the message: "${slurm} DIR" or the file itself.
void check_path(const std::string& what, const std::string& path) {
  const std::string bad = bad_path_char(path);
  if (!bad.empty()) throw InputError(what + ": the path holds " + bad + ", which a Slurm script cannot take");
}

// A path in an #SBATCH --output line, in double quotes (spaces): `dir` with each % doubled
// (sbatch reads %x as a file name pattern, %% as a %), then `pattern` as it is (%A, %a, %j).
std::string sbatch_output(const std::string& dir, const std::string& pattern) {
  std::string out = "\"";
  for (char c : dir) {
    out += c;
    if (c == '%') out += '%';
  }
  return out + pattern + "\"";
}

// Partition and job names go into #SBATCH lines unquoted: letters, digits and _ . - only
// (and , between partitions, which --partition takes as a list).
bool is_slurm_name(const std::string& s, bool list) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || (list && c == ','))) return false;
  }
  return true;
}

// The options checked, with the paths made absolute.
SlurmOptions checked(const SlurmOptions& in) {
  SlurmOptions o = in;
  if (o.dir.empty()) throw InputError("${slurm}: expected a directory for the job scripts, shard stores and logs");
  if (o.array_size < 1 || o.array_size > 100000)
    throw InputError("${array_size} " + std::to_string(o.array_size) + ": expected from 1 to 100000 tasks");
  if (o.cpus_per_task < 1 || o.cpus_per_task > 1024)
    throw InputError("${cpus_per_task} " + std::to_string(o.cpus_per_task) + ": expected from 1 to 1024");
  if (!is_slurm_time_limit(o.time_limit))
    throw InputError("${time_limit} '" + o.time_limit +
                     "': expected a time Slurm accepts: MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, "
                     "DAYS-HOURS, DAYS-HOURS:MINUTES, DAYS-HOURS:MINUTES:SECONDS or UNLIMITED");
  if (!o.partition.empty() && !is_slurm_name(o.partition, true))
    throw InputError("${partition} '" + o.partition + "': expected partition names of letters, digits, '_', '.' and '-', separated by ','");
  if (!is_slurm_name(o.job_name, false))
    throw InputError("job name '" + o.job_name + "': expected letters, digits, '_', '.' and '-'");

  std::error_code ec;
  o.dir = fs::absolute(o.dir, ec).lexically_normal().string();
  if (ec) throw InputError("${slurm} " + in.dir + ": " + ec.message());
  if (o.dir.size() > 1 && o.dir.back() == '/') o.dir.pop_back();  // "a/b/" normalizes to "/x/a/b/"
  check_path("${slurm} " + o.dir, o.dir);
  for (std::string* path : {&o.roofsim, &o.sweep_file}) {
    const std::string given = *path;
    *path = fs::absolute(given, ec).lexically_normal().string();
    if (ec || !fs::is_regular_file(*path)) throw InputError(given + ": no such file");
    check_path(*path, *path);
  }
  return o;
}

std::string sbatch_header(const SlurmOptions& o, const std::string& job_name) {
  std::ostringstream s;
  s << "#SBATCH --job-name=" << job_name << "\n";
  s << "#SBATCH --time=" << o.time_limit << "\n";
  if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
  return s.str();
}

// The variables both scripts start with: every path quoted once, here.
std::string script_paths(const SlurmOptions& o) {
  return "roofsim=" + shell_quote(o.roofsim) + "\n" + "sweep=" + shell_quote(o.sweep_file) + "\n" +
         "dir=" + shell_quote(o.dir) + "\n";
}

std::string array_script(const SlurmOptions& o) {
  const std::string n = std::to_string(o.array_size);
  const std::string c = std::to_string(o.cpus_per_task);
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Written by `roofsim sweep --slurm`. Task i of this array runs the points of the sweep whose\n"
    << "# index % " << n << " == i and commits each to shard-i.db as it finishes: submitted again, a task\n"
    << "# runs only the points missing from its store (how failed tasks are re-run).\n"
    << sbatch_header(o, o.job_name)
    << "#SBATCH --array=0-" << o.array_size - 1 << "\n"
    << "#SBATCH --ntasks=1\n"
    << "#SBATCH --cpus-per-task=" << c << "\n"
    << "#SBATCH --output=" << sbatch_output(o.dir, "/logs/array-%A_%a.out") << "\n"
    << "set -eu\n"
    << script_paths(o)
    << "task=${SLURM_ARRAY_TASK_ID:?'is not set: submit this script with sbatch'}\n"
    << "exec \"$roofsim\" sweep \"$sweep\" --shard \"$task/" << n << "\" --store \"$dir/shard-$task.db\" -j " << c
    << " --quiet\n";
  return s.str();
}

std::string merge_script(const SlurmOptions& o) {
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Written by `roofsim sweep --slurm`. Runs after every task of the array succeeded: merges the\n"
    << "# " << o.array_size << " shard stores into results.db and writes results.csv.\n"
    << sbatch_header(o, o.job_name + "-merge")
    << "#SBATCH --ntasks=1\n"
    << "#SBATCH --cpus-per-task=1\n"
    << "#SBATCH --output=" << sbatch_output(o.dir, "/logs/merge-%j.out") << "\n"
    << "set -eu\n"
    << script_paths(o)
    << "cd \"$dir\"\n"
    << "# Rebuilt from the shards each time, so that a merge submitted again gives the same results.\n"
    << "rm -f results.db results.db-journal results.db-wal results.db-shm results.csv\n"
    << "# Shard names relative to $dir: 100000 of them still fit on one command line.\n"
    << "shards=()\n"
    << "for ((i = 0; i < " << o.array_size << "; i++)); do shards+=(\"shard-$i.db\"); done\n"
    << "exec \"$roofsim\" sweep \"$sweep\" --merge \"${shards[@]}\" --store results.db --export-csv results.csv\n";
  return s.str();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) throw InputError("${slurm}: cannot write " + path + ": " + std::strerror(errno));
}

// The id in `sbatch --parsable`'s answer: "ID" or "ID;CLUSTER".
std::string parsable_job_id(const std::string& out) {
  std::string id = out.substr(0, out.find_first_of(";\n"));
  while (!id.empty() && std::isspace(static_cast<unsigned char>(id.back()))) id.pop_back();
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw InputError("sbatch answered '" + out + "', expected a job id");
  return id;
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

// Runs sbatch with `args`; returns the job id, or throws its message.
std::string sbatch(const std::vector<std::string>& args, const std::string& what) {
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOutput r;
  try {
    r = run_process(argv);
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + " (--submit needs Slurm's sbatch: run on a login node of the cluster)");
  }
  if (r.exit_code != 0) {
    const std::string msg = trimmed(r.err.empty() ? r.out : r.err);
    throw InputError("sbatch refused " + what + " (exit " + std::to_string(r.exit_code) + "): " + msg);
  }
  return parsable_job_id(r.out);
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

bool is_slurm_time_limit(const std::string& t) {
  static const std::regex formats(
      R"(\d+|\d+:\d+|\d+:\d+:\d+|\d+-\d+|\d+-\d+:\d+|\d+-\d+:\d+:\d+|UNLIMITED|unlimited|INFINITE|infinite)");
  return std::regex_match(t, formats);
}

ProcessOutput run_process(const std::vector<std::string>& argv) {
  if (argv.empty()) throw InputError("run_process: no program");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // Standard output and error each to a pipe, read together below (reading one to its end
  // first could block the child on the other, full, pipe).
  int out[2], err[2];
  if (pipe(out) != 0) throw InputError("cannot run " + argv[0] + ": " + std::strerror(errno));
  if (pipe(err) != 0) {
    close(out[0]), close(out[1]);
    throw InputError("cannot run " + argv[0] + ": " + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addclose(&actions, err[0]);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(err[1]);
  if (spawned != 0) {
    close(out[0]), close(err[0]);
    throw InputError("cannot run " + argv[0] + ": " +
                     (spawned == ENOENT ? std::string("not found on PATH") : std::string(std::strerror(spawned))));
  }

  ProcessOutput r;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* into[2] = {&r.out, &r.err};
  int open_fds = 2;
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        into[i]->append(buf, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;  // poll skips negative descriptors
        --open_fds;
      }
    }
  }
  for (const pollfd& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
  return r;
}

SlurmJobs write_slurm_jobs(const SlurmOptions& given) {
  const SlurmOptions o = checked(given);
  std::error_code ec;
  fs::create_directories(o.dir + "/logs", ec);
  if (ec) throw InputError("${slurm} " + o.dir + ": cannot create it: " + ec.message());
  if (access(o.dir.c_str(), W_OK) != 0) throw InputError("${slurm} " + o.dir + ": not writable");
  SlurmJobs jobs;
  jobs.array_script = o.dir + "/array.sbatch";
  jobs.merge_script = o.dir + "/merge.sbatch";
  write_text(jobs.array_script, array_script(o));
  write_text(jobs.merge_script, merge_script(o));
  return jobs;
}

SlurmJobs submit_slurm_jobs(const SlurmOptions& o) {
  SlurmJobs jobs = write_slurm_jobs(o);
  jobs.array_job = sbatch({jobs.array_script}, jobs.array_script);
  try {
    jobs.merge_job = sbatch({"--dependency=afterok:" + jobs.array_job, jobs.merge_script}, jobs.merge_script);
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + "; the array job " + jobs.array_job +
                     " was submitted: submit the merge after it by hand with sbatch --dependency=afterok:" +
                     jobs.array_job + " " + shell_quote(jobs.merge_script));
  }
  // The ids, for scripts and people that follow the jobs (squeue -j, sacct -j, scancel).
  const std::string dir = jobs.array_script.substr(0, jobs.array_script.rfind('/'));
  write_text(dir + "/jobs.txt", "array_job=" + jobs.array_job + "\nmerge_job=" + jobs.merge_job + "\n");
  return jobs;
}

}  // namespace roofsim
