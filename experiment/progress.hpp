#pragma once
// How long work reports progress and is stopped: whatever runs many simulations (sweeps,
// what-ifs, the validation suite) or one long one takes a RunControl.
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

namespace roofsim {

struct RunControl {
  // After each finished unit of work (a sweep point, a variant, a validation item, a phase of
  // an inference run): units done, units in all, what just finished.
  std::function<void(std::size_t done, std::size_t total, const std::string& what)> progress;
  // Polled between units; returning true stops the work, which then throws Cancelled.
  std::function<bool()> cancelled;
  // An inference run keeps every simulated step's op records (ExperimentResult::ops), not only
  // its first steps': `run --csv` writes them all. Memory then grows with the steps.
  bool keep_every_op = false;

  void report(std::size_t done, std::size_t total, const std::string& what) const {
    if (progress) progress(done, total, what);
  }
  bool stop_requested() const { return cancelled && cancelled(); }
};

class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled") {}
};

}  // namespace roofsim
