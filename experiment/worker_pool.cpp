#include "experiment/worker_pool.hpp"

#include <csignal>
#include <cstdio>
#include <optional>
#include <poll.h>
#include <string>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "core/error.hpp"

namespace roofsim {

namespace {

struct WorkerProcess {
  pid_t pid = -1;
  int to = -1, from = -1;         // task numbers in, results out
  std::optional<std::size_t> task;  // what it is running
  std::string pending;              // bytes after the last complete line
};

bool write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// In the child: read task numbers, run them, write results; never returns.
[[noreturn]] void worker_main(int in, int out, const std::function<nlohmann::json(std::size_t)>& work) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed parent leaves no orphans simulating
  FILE* tasks = ::fdopen(in, "r");
  char line[64];
  int status = 0;
  while (std::fgets(line, sizeof line, tasks)) {
    const std::size_t task = std::stoull(line);
    nlohmann::json reply;
    try {
      reply = {{"task", task}, {"result", work(task)}};
    } catch (const std::exception& e) {
      reply = {{"task", task}, {"fatal", e.what()}};
      status = 3;
    }
    if (!write_all(out, reply.dump() + "\n") || status) break;
  }
  ::_exit(status);  // no destructors or atexit handlers of the parent's state
}

void stop_all(std::vector<WorkerProcess>& workers) {
  for (WorkerProcess& w : workers) {
    if (w.pid > 0) ::kill(w.pid, SIGKILL);
  }
  for (WorkerProcess& w : workers) {
    if (w.pid > 0) ::waitpid(w.pid, nullptr, 0);
    if (w.to >= 0) ::close(w.to);
    if (w.from >= 0) ::close(w.from);
    w = WorkerProcess{};
  }
}

}  // namespace

void run_in_workers(std::size_t tasks, int jobs, const std::function<nlohmann::json(std::size_t)>& work,
                    const std::function<void(std::size_t, const nlohmann::json&)>& on_result, const RunControl& control,
                    const std::function<bool(std::size_t)>& take) {
  if (jobs <= 1 || tasks <= 1) {
    for (std::size_t t = 0; t < tasks; ++t) {
      if (control.stop_requested()) throw Cancelled();
      if (take && !take(t)) continue;
      on_result(t, work(t));
    }
    return;
  }
  std::fflush(nullptr);  // nothing buffered in this process may be written twice
  // A worker gone mid-write must not kill this process with SIGPIPE: the write fails instead.
  struct sigaction ignore{}, previous{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);
  std::vector<WorkerProcess> workers(static_cast<std::size_t>(std::min<std::size_t>(static_cast<std::size_t>(jobs), tasks)));
  auto cleanup = [&] {
    stop_all(workers);
    ::sigaction(SIGPIPE, &previous, nullptr);
  };
  for (WorkerProcess& w : workers) {
    int down[2], up[2];
    if (::pipe(down) != 0) {
      cleanup();
      throw InputError("cannot start worker processes (pipe failed)");
    }
    if (::pipe(up) != 0) {
      ::close(down[0]);
      ::close(down[1]);
      cleanup();
      throw InputError("cannot start worker processes (pipe failed)");
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
      for (int fd : {down[0], down[1], up[0], up[1]}) ::close(fd);
      cleanup();
      throw InputError("cannot start worker processes (fork failed)");
    }
    if (pid == 0) {
      ::close(down[1]);
      ::close(up[0]);
      for (const WorkerProcess& other : workers) {  // the others' pipes are the parent's business
        if (other.to >= 0) ::close(other.to);
        if (other.from >= 0) ::close(other.from);
      }
      worker_main(down[0], up[1], work);
    }
    ::close(down[0]);
    ::close(up[1]);
    w.pid = pid;
    w.to = down[1];
    w.from = up[0];
  }

  std::size_t next = 0, done = 0;
  auto assign = [&](WorkerProcess& w) {
    while (next < tasks && take && !take(next)) {  // skipped: counted done, never sent
      ++next;
      ++done;
    }
    if (next < tasks && write_all(w.to, std::to_string(next) + "\n")) {
      w.task = next++;
    } else {
      ::close(w.to);  // no more work: the worker exits when it reads the end
      w.to = -1;
      w.task.reset();
    }
  };
  for (WorkerProcess& w : workers) assign(w);
  try {
    while (done < tasks) {
      if (control.stop_requested()) throw Cancelled();
      std::vector<pollfd> polled;
      for (const WorkerProcess& w : workers) {
        if (w.from >= 0) polled.push_back({w.from, POLLIN, 0});
      }
      if (polled.empty()) throw std::runtime_error("the workers stopped before every task finished");
      if (::poll(polled.data(), polled.size(), 200) < 0) continue;  // interrupted: poll again
      for (const pollfd& pf : polled) {
        if (!(pf.revents & (POLLIN | POLLHUP | POLLERR))) continue;
        WorkerProcess& w = *std::find_if(workers.begin(), workers.end(), [&](const WorkerProcess& x) { return x.from == pf.fd; });
        char buffer[65536];
        const ssize_t n = ::read(w.from, buffer, sizeof buffer);
        if (n <= 0) {
          ::close(w.from);
          w.from = -1;
          if (w.task) throw std::runtime_error("a worker process died while running task " + std::to_string(*w.task));
          continue;
        }
        w.pending.append(buffer, static_cast<std::size_t>(n));
        for (std::size_t end; (end = w.pending.find('\n')) != std::string::npos;) {
          const nlohmann::json reply = nlohmann::json::parse(w.pending.substr(0, end));
          w.pending.erase(0, end + 1);
          if (reply.contains("fatal")) throw std::runtime_error(reply["fatal"].get<std::string>());
          ++done;
          on_result(reply.at("task").get<std::size_t>(), reply.at("result"));
          assign(w);
        }
      }
    }
  } catch (...) {
    cleanup();
    throw;
  }
  for (WorkerProcess& w : workers) {
    if (w.to >= 0) ::close(w.to);
    w.to = -1;
  }
  for (WorkerProcess& w : workers) {
    ::waitpid(w.pid, nullptr, 0);
    if (w.from >= 0) ::close(w.from);
    w = WorkerProcess{};
  }
  ::sigaction(SIGPIPE, &previous, nullptr);
}

}  // namespace roofsim
