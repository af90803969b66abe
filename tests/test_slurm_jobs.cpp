// The Slurm job scripts of `roofsim sweep --slurm`: what they run (checked by running them with
// bash against a stand-in roofsim that prints its arguments), paths with spaces and quotes,
// the options refused, and the submission through a stand-in sbatch. tests/slurm_test.sh runs
// them on a real (single-node) Slurm.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/error.hpp"
#include "experiment/slurm_jobs.hpp"
#include "tests/test_util.hpp"

using namespace roofsim;
using roofsim::test::read_file;
namespace fs = std::filesystem;

namespace {

// A fresh directory under /tmp (named `name`, which may hold spaces), removed at the end.
struct SlurmTempDir {
  fs::path path;
  explicit SlurmTempDir(const std::string& name = "slurm") {
    static int counter = 0;
    path = fs::temp_directory_path() / ("roofsim_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path / name);
    path /= name;
  }
  ~SlurmTempDir() { fs::remove_all(path.parent_path()); }
  std::string operator/(const std::string& leaf) const { return (path / leaf).string(); }
};

void write_executable(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
}

// Options for a sweep in `t`: a stand-in roofsim that prints each argument on a line of its own.
SlurmOptions options_in(const SlurmTempDir& t) {
  SlurmOptions o;
  o.dir = t / "jobs";
  o.roofsim = t / "roofsim";
  o.sweep_file = t / "sweep.toml";
  write_executable(o.roofsim, "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n");
  std::ofstream(o.sweep_file) << "[base]\n";
  return o;
}

// The refusal's message with settings named as the CLI names them (--array-size).
std::string refusal(const SlurmOptions& o) {
  try {
    write_slurm_jobs(o);
  } catch (const InputError& e) {
    return render_setting_names(e.raw(), SettingNames::flag);
  }
  return "";
}

// Runs a script with bash (SLURM_ARRAY_TASK_ID = task when task >= 0); returns its output.
std::string run_script(const std::string& script, int task) {
  if (task >= 0) setenv("SLURM_ARRAY_TASK_ID", std::to_string(task).c_str(), 1);
  ProcessOutput r = run_process({"bash", script});
  unsetenv("SLURM_ARRAY_TASK_ID");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("the array script runs shard i of N into its own store", "[slurm]") {
  SlurmTempDir t;
  SlurmOptions o = options_in(t);
  o.array_size = 4;
  o.cpus_per_task = 2;
  o.time_limit = "2-00:30:00";
  SlurmJobs jobs = write_slurm_jobs(o);
  CHECK(jobs.array_script == t / "jobs/array.sbatch");
  CHECK(jobs.merge_script == t / "jobs/merge.sbatch");
  CHECK(jobs.array_job.empty());
  CHECK(fs::is_directory(t / "jobs/logs"));

  const std::string text = read_file(jobs.array_script);
  CHECK(text.rfind("#!/bin/bash\n", 0) == 0);
  CHECK(has_line(text, "#SBATCH --array=0-3"));
  CHECK(has_line(text, "#SBATCH --job-name=roofsim-sweep"));
  CHECK(has_line(text, "#SBATCH --cpus-per-task=2"));
  CHECK(has_line(text, "#SBATCH --time=2-00:30:00"));
  CHECK(has_line(text, "#SBATCH --output=\"" + t / "jobs/logs/array-%A_%a.out\""));
  CHECK(text.find("--partition") == std::string::npos);  // the cluster's default partition

  // What task 2 runs, argument by argument.
  CHECK(run_script(jobs.array_script, 2) == "sweep\n" + o.sweep_file + "\n--shard\n2/4\n--store\n" +
                                                 t / "jobs/shard-2.db" + "\n-j\n2\n--quiet\n");
}

TEST_CASE("the merge script merges every shard store and exports the CSV", "[slurm]") {
  SlurmTempDir t;
  SlurmOptions o = options_in(t);
  o.array_size = 3;
  o.partition = "gpu,debug";
  SlurmJobs jobs = write_slurm_jobs(o);
  const std::string text = read_file(jobs.merge_script);
  CHECK(has_line(text, "#SBATCH --job-name=roofsim-sweep-merge"));
  CHECK(has_line(text, "#SBATCH --partition=gpu,debug"));
  CHECK(has_line(text, "#SBATCH --time=01:00:00"));
  CHECK(has_line(text, "#SBATCH --output=\"" + t / "jobs/logs/merge-%j.out\""));
  CHECK(has_line(read_file(jobs.array_script), "#SBATCH --partition=gpu,debug"));

  // A results.db of an earlier merge is rebuilt from the shards, not merged into.
  std::ofstream(t / "jobs/results.db") << "old";
  CHECK(run_script(jobs.merge_script, -1) == "sweep\n" + o.sweep_file +
                                                 "\n--merge\nshard-0.db\nshard-1.db\nshard-2.db\n"
                                                 "--store\nresults.db\n--export-csv\nresults.csv\n");
  CHECK_FALSE(fs::exists(t / "jobs/results.db"));
}

TEST_CASE("paths with spaces, quotes and % reach roofsim unchanged", "[slurm]") {
  SlurmTempDir t("it's a dir, 100% $HOME `x`");
  SlurmOptions o = options_in(t);
  o.dir = t / "jobs 2";
  SlurmJobs jobs = write_slurm_jobs(o);
  CHECK(jobs.array_script == t / "jobs 2/array.sbatch");
  // sbatch reads %% in --output as one %.
  const std::string output = "#SBATCH --output=\"" + t / "jobs 2/logs/array-%A_%a.out\"";
  std::string doubled = output;
  doubled.replace(doubled.find("100%"), 4, "100%%");
  CHECK(has_line(read_file(jobs.array_script), doubled));

  CHECK(run_script(jobs.array_script, 0) == "sweep\n" + o.sweep_file + "\n--shard\n0/4\n--store\n" +
                                                 t / "jobs 2/shard-0.db" + "\n-j\n1\n--quiet\n");
  CHECK(run_script(jobs.merge_script, -1).find("\nshard-3.db\n--store\n") != std::string::npos);
}

TEST_CASE("shell_quote makes one shell word of anything", "[slurm]") {
  CHECK(shell_quote("") == "''");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  ProcessOutput r = run_process({"sh", "-c", "printf '%s|' " + shell_quote("a 'b' $c \"d\"") + " " + shell_quote("")});
  CHECK(r.out == "a 'b' $c \"d\"||");
}

TEST_CASE("Slurm's time limit formats are accepted, others refused", "[slurm]") {
  for (const char* t : {"30", "30:00", "01:00:00", "2-12", "2-12:30", "2-12:30:00", "UNLIMITED", "infinite"}) {
    INFO(t);
    CHECK(is_slurm_time_limit(t));
  }
  for (const char* t : {"", "1h", "1:2:3:4", "-1", "2-", "01:00:00 ", "1.5", "01:00:00\n#SBATCH --x"}) {
    INFO(t);
    CHECK_FALSE(is_slurm_time_limit(t));
  }
}

TEST_CASE("bad options are refused naming their flag", "[slurm]") {
  SlurmTempDir t;
  SlurmOptions o = options_in(t);
  SlurmOptions bad = o;

  bad.array_size = 0;
  CHECK_THAT(refusal(bad), Catch::StartsWith("--array-size 0: expected from 1 to 100000"));
  bad.array_size = 100001;
  CHECK_THAT(refusal(bad), Catch::StartsWith("--array-size 100001:"));
  bad = o;
  bad.cpus_per_task = 0;
  CHECK_THAT(refusal(bad), Catch::StartsWith("--cpus-per-task 0: expected from 1 to 1024"));
  bad.cpus_per_task = 1025;
  CHECK_THAT(refusal(bad), Catch::StartsWith("--cpus-per-task 1025:"));
  bad = o;
  bad.time_limit = "1h";
  CHECK_THAT(refusal(bad), Catch::StartsWith("--time-limit '1h': expected a time Slurm accepts"));
  bad = o;
  bad.partition = "gpu debug";
  CHECK_THAT(refusal(bad), Catch::StartsWith("--partition 'gpu debug':"));
  bad = o;
  bad.dir = "";
  CHECK_THAT(refusal(bad), Catch::StartsWith("--slurm: expected a directory"));
  bad.dir = t / "a\nb";
  CHECK_THAT(refusal(bad), Catch::StartsWith("--slurm ") && Catch::Contains("a control character"));
  bad.dir = t / "a\"b";
  CHECK_THAT(refusal(bad), Catch::Contains("a double quote"));
  bad.dir = t / "sweep.toml/jobs";  // under a file: cannot be created
  CHECK_THAT(refusal(bad), Catch::StartsWith("--slurm ") && Catch::Contains("cannot create it"));
  bad = o;
  bad.sweep_file = t / "missing.toml";
  CHECK(refusal(bad) == t / "missing.toml" + ": no such file");
  bad = o;
  bad.job_name = "a b";
  CHECK_THAT(refusal(bad), Catch::StartsWith("job name 'a b'"));
  // None of them wrote anything.
  CHECK_FALSE(fs::exists(t / "jobs"));
}

TEST_CASE("a relative directory is made absolute", "[slurm]") {
  SlurmTempDir t;
  SlurmOptions o = options_in(t);
  const fs::path was = fs::current_path();
  fs::current_path(t.path);
  o.dir = "rel/jobs/";
  SlurmJobs jobs = write_slurm_jobs(o);
  fs::current_path(was);
  CHECK(jobs.array_script == t / "rel/jobs/array.sbatch");
  CHECK(read_file(jobs.array_script).find("dir='" + t / "rel/jobs" + "'\n") != std::string::npos);
}

// A stand-in sbatch on PATH: logs its arguments, answers like `sbatch --parsable` or refuses.
struct FakeSbatch {
  SlurmTempDir bin{"bin"};
  std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  explicit FakeSbatch(const std::string& body) {
    write_executable(bin / "sbatch", "#!/bin/sh\necho \"$*\" >>\"$(dirname \"$0\")/calls\"\n" + body);
    setenv("PATH", (bin.path.string() + ":" + old_path).c_str(), 1);
  }
  ~FakeSbatch() { setenv("PATH", old_path.c_str(), 1); }
  std::string calls() const { return read_file(bin / "calls"); }
};

TEST_CASE("submitting: the array, then the merge after it, ids recorded", "[slurm]") {
  SlurmTempDir t;
  SlurmOptions o = options_in(t);
  // The first call answers a plain id, the second "id;cluster" (a multi-cluster site).
  FakeSbatch sbatch("if [ -e \"$(dirname \"$0\")/second\" ]; then echo '43;cluster'; else touch \"$(dirname \"$0\")/second\"; echo 42; fi\n");
  SlurmJobs jobs = submit_slurm_jobs(o);
  CHECK(jobs.array_job == "42");
  CHECK(jobs.merge_job == "43");
  CHECK(sbatch.calls() == "--parsable " + jobs.array_script + "\n--parsable --dependency=afterok:42 " + jobs.merge_script + "\n");
  CHECK(read_file(t / "jobs/jobs.txt") == "array_job=42\nmerge_job=43\n");
}

TEST_CASE("sbatch's refusal is an InputError with its message", "[slurm]") {
  SlurmTempDir t;
  SlurmOptions o = options_in(t);
  FakeSbatch sbatch("echo 'sbatch: error: invalid partition specified: nope' >&2; exit 1\n");
  try {
    submit_slurm_jobs(o);
    FAIL("no refusal");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("sbatch refused " + t / "jobs/array.sbatch" + " (exit 1)") &&
                             Catch::EndsWith("sbatch: error: invalid partition specified: nope"));
  }
  CHECK_FALSE(fs::exists(t / "jobs/jobs.txt"));
}

TEST_CASE("a missing sbatch is an InputError that says so", "[slurm]") {
  SlurmTempDir t;
  SlurmOptions o = options_in(t);
  SlurmTempDir empty{"empty"};
  const std::string old_path = std::getenv("PATH");
  setenv("PATH", empty.path.c_str(), 1);
  std::string msg;
  try {
    submit_slurm_jobs(o);
  } catch (const InputError& e) {
    msg = e.what();
  }
  setenv("PATH", old_path.c_str(), 1);
  CHECK_THAT(msg, Catch::StartsWith("cannot run sbatch: not found on PATH") && Catch::Contains("login node"));
}

TEST_CASE("run_process returns the output, the error and the exit code", "[slurm]") {
  ProcessOutput r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"});
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
  CHECK(r.exit_code == 3);
  // Large output on both pipes at once does not deadlock.
  r = run_process({"sh", "-c", "head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2"});
  CHECK(r.out.size() == 300000);
  CHECK(r.err.size() == 300000);
}
