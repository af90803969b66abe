#include "sim/processes.hpp"

#include <algorithm>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.hpp"

extern char** environ;

namespace roofsim {

std::string self_path() {
  char self[4096];
  const ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);
  return len > 0 ? std::string(self, static_cast<std::size_t>(len)) : "/proc/self/exe";
}

// Runs the commands, `jobs` at a time, their standard output discarded and their standard
// error kept in `logs[i]`; returns the indices of those that failed.
std::vector<std::size_t> run_processes(const std::vector<std::vector<std::string>>& commands,
                                       const std::vector<std::string>& logs, int jobs) {
  std::map<pid_t, std::size_t> running;
  std::vector<std::size_t> failed;
  auto wait_one = [&] {
    int status = 0;
    const pid_t pid = ::wait(&status);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed.push_back(running[pid]);
    running.erase(pid);
  };
  for (std::size_t i = 0; i < commands.size(); ++i) {
    while (static_cast<int>(running.size()) >= jobs) wait_one();
    std::vector<char*> argv;
    for (const auto& a : commands[i]) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t io;
    posix_spawn_file_actions_init(&io);
    posix_spawn_file_actions_addopen(&io, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&io, STDERR_FILENO, logs[i].c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, argv[0], &io, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&io);
    if (rc != 0) throw InputError("cannot start " + commands[i][0]);
    running[pid] = i;
  }
  while (!running.empty()) wait_one();
  std::sort(failed.begin(), failed.end());
  return failed;
}

// Runs the processes; on a failure removes `dir` and throws with the first failed one's errors.
void run_all(const std::vector<std::vector<std::string>>& commands, const std::vector<std::string>& logs, int jobs,
             const std::string& dir, const std::function<std::string(std::size_t)>& what) {
  const std::vector<std::size_t> failed = run_processes(commands, logs, jobs);
  if (failed.empty()) return;
  std::ifstream log(logs[failed.front()]);
  std::stringstream text;
  text << log.rdbuf();
  std::filesystem::remove_all(dir);
  throw InputError(what(failed.front()) + " failed: " + text.str());
}


}  // namespace roofsim
