// run_sweep_parallel: sweep points in forked worker processes. SystemC keeps one simulation
// per process at a time, so parallel simulations need processes; each worker runs its share of
// the grid with run_sweep and writes every finished point as one line of JSON to a pipe, which
// the parent reads as points arrive (progress, cancellation) and sorts back into grid order.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.hpp"
#include "experiment/whatif.hpp"

namespace roofsim {

namespace {

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::string pending;  // bytes after the last complete line
};

// In the child: run this worker's share and stream its points; never returns.
[[noreturn]] void worker_main(int fd, const Experiment& base, const HardwareDocument& hw, const std::vector<SweepAxis>& axes,
                              int shard, int shards, const std::vector<std::string>& keys) {
  FILE* out = ::fdopen(fd, "w");
  int status = 0;
  try {
    run_sweep(base, hw, axes, shard, shards, RunControl{}, [&](const SweepPoint& p) {
      std::fputs((point_json(p, keys).dump() + "\n").c_str(), out);
      std::fflush(out);
    });
  } catch (const std::exception& e) {
    std::fputs((nlohmann::json{{"fatal", e.what()}}.dump() + "\n").c_str(), out);
    status = 3;
  }
  std::fclose(out);
  ::_exit(status);  // no destructors or atexit handlers of the parent's state
}

void stop_all(std::vector<Worker>& workers) {
  for (Worker& w : workers) {
    if (w.pid > 0) ::kill(w.pid, SIGKILL);
  }
  for (Worker& w : workers) {
    if (w.pid > 0) ::waitpid(w.pid, nullptr, 0);
    if (w.fd >= 0) ::close(w.fd);
    w.pid = -1;
    w.fd = -1;
  }
}

}  // namespace

SweepResult run_sweep_parallel(const Experiment& base, const HardwareDocument& hw, const std::vector<SweepAxis>& axes,
                               int shard, int shards, int jobs, const RunControl& control) {
  if (jobs <= 1) return run_sweep(base, hw, axes, shard, shards, control);
  SweepResult out;
  out.grid_points = check_sweep(hw, axes, shard, shards);  // bad axes fail here, before any fork
  out.shard = shard;
  out.shards = shards;
  for (const SweepAxis& a : axes) out.keys.push_back(a.key);
  std::size_t total = 0;
  for (std::size_t i = static_cast<std::size_t>(shard); i < out.grid_points; i += static_cast<std::size_t>(shards)) ++total;
  std::fflush(nullptr);  // nothing buffered in this process may be written twice

  // Worker w takes every jobs-th point of this shard: shard + w * shards of shards * jobs.
  std::vector<Worker> workers(static_cast<std::size_t>(jobs));
  for (int w = 0; w < jobs; ++w) {
    int fds[2];
    if (::pipe(fds) != 0) {
      stop_all(workers);
      throw InputError("cannot start sweep workers (pipe failed)");
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      stop_all(workers);
      throw InputError("cannot start sweep workers (fork failed)");
    }
    if (pid == 0) {
      ::close(fds[0]);
      for (int v = 0; v < w; ++v) ::close(workers[static_cast<std::size_t>(v)].fd);
      worker_main(fds[1], base, hw, axes, shard + w * shards, shards * jobs, out.keys);
    }
    ::close(fds[1]);
    workers[static_cast<std::size_t>(w)] = {pid, fds[0], ""};
  }

  std::string fatal;
  std::size_t open = workers.size();
  while (open > 0) {
    if (control.stop_requested()) {
      stop_all(workers);
      throw Cancelled();
    }
    std::vector<pollfd> polled;
    for (const Worker& w : workers) {
      if (w.fd >= 0) polled.push_back({w.fd, POLLIN, 0});
    }
    if (::poll(polled.data(), polled.size(), 200) < 0) continue;  // interrupted: poll again
    for (const pollfd& pf : polled) {
      if (!(pf.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Worker& w = *std::find_if(workers.begin(), workers.end(), [&](const Worker& x) { return x.fd == pf.fd; });
      char buffer[65536];
      const ssize_t n = ::read(w.fd, buffer, sizeof buffer);
      if (n <= 0) {
        ::close(w.fd);
        w.fd = -1;
        --open;
        continue;
      }
      w.pending.append(buffer, static_cast<std::size_t>(n));
      for (std::size_t end; (end = w.pending.find('\n')) != std::string::npos;) {
        const nlohmann::json j = nlohmann::json::parse(w.pending.substr(0, end));
        w.pending.erase(0, end + 1);
        if (j.contains("fatal")) {
          fatal = j["fatal"].get<std::string>();
          continue;
        }
        out.points.push_back(point_from_json(j, axes.size()));
        std::string label;
        for (std::size_t a = 0; a < axes.size(); ++a) {
          label += (a ? ", " : "") + axes[a].key + "=" + nlohmann::json(out.points.back().values[a]).dump();
        }
        control.report(out.points.size(), total, label);
      }
    }
  }
  bool failed = false;
  for (Worker& w : workers) {
    int status = 0;
    ::waitpid(w.pid, &status, 0);
    failed = failed || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  if (!fatal.empty()) throw InputError("a sweep worker failed: " + fatal);
  if (failed || out.points.size() != total) throw std::runtime_error("a sweep worker died before finishing its points");
  std::sort(out.points.begin(), out.points.end(), [](const SweepPoint& a, const SweepPoint& b) { return a.index < b.index; });
  return out;
}

}  // namespace roofsim
