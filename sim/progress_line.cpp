#include "sim/progress_line.hpp"

#include <iostream>
#include <unistd.h>

#include "core/format.hpp"

namespace roofsim {

ProgressLine::ProgressLine(std::string what, std::string units, bool show_item)
    : what_(std::move(what)), units_(std::move(units)), show_item_(show_item), start_(std::chrono::steady_clock::now()), last_(start_),
      terminal_(::isatty(STDERR_FILENO) != 0) {}

RunControl ProgressLine::control() {
  RunControl c;
  c.progress = [this](std::size_t done, std::size_t total, const std::string& item) { report(done, total, item); };
  return c;
}

void ProgressLine::report(std::size_t done, std::size_t total, const std::string& item) {
  done_ = done;
  total_ = total;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double interval = std::chrono::duration<double>(now - last_).count();
  if (elapsed < 1.0 || interval < 1.0) return;
  const double recent = done > last_done_ ? static_cast<double>(done - last_done_) / interval : 0.0;
  last_ = now;
  last_done_ = done;
  shown_ = true;
  const double rate = static_cast<double>(done) / elapsed;
  const double pace = recent > 0 ? recent : rate;
  const std::string eta = eta_text(done, total, pace);
  std::cerr << (terminal_ ? "\r" : "") << "  " << what_ << ": " << done << "/" << total << " " << units_ << ", "
            << format_fixed(rate, rate < 10 ? 2 : 0) << "/s, ETA " << eta
            << (show_item_ && !item.empty() ? " (last: " + item + ")" : "") << (terminal_ ? "          " : "\n");
  std::cerr.flush();
}

std::string eta_text(std::size_t done, std::size_t total, double pace) {
  if (!(pace > 0) || 100 * done < total || done > total) return "estimating";
  return format_fixed(static_cast<double>(total - done) / pace, 0) + " s";
}

void ProgressLine::finish() {
  if (!shown_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::cerr << (terminal_ ? "\r" : "") << "  " << what_ << ": " << done_ << "/" << total_ << " " << units_ << " in "
            << format_fixed(elapsed, 1) << " s" << (terminal_ ? "          \n" : "\n");
}

}  // namespace roofsim
