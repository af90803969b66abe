#pragma once
// Progress of long work on standard error: units done, rate and ETA, at most once a second
// and only once the work has taken a second (quick runs stay quiet). The ETA comes from the pace
// since the report before (work that speeds up as it goes, as serve's does once its iteration
// shapes are simulated, is not judged by its slow start) and is shown once 1% is done. On a terminal the line
// is rewritten in place; in a log each report is a line of its own. With `show_item`, the line
// also names what was done last (search: the layout and concurrency just simulated).
#include <chrono>
#include <string>

#include "experiment/progress.hpp"

namespace roofsim {

// What the line says of the time left: `done` of `total` at `pace` units a second, "N s", or
// "estimating" before 1% is done or while nothing has moved.
std::string eta_text(std::size_t done, std::size_t total, double pace);

class ProgressLine {
 public:
  ProgressLine(std::string what, std::string units, bool show_item = false);
  // A RunControl whose progress reports go to this line (the line must outlive the work).
  RunControl control();
  // Ends the line (a last report with the totals when any report was shown).
  void finish();

 private:
  void report(std::size_t done, std::size_t total, const std::string& item);
  std::string what_, units_;
  bool show_item_ = false;
  std::chrono::steady_clock::time_point start_, last_;
  bool shown_ = false, terminal_ = false;
  std::size_t done_ = 0, total_ = 0;
  std::size_t last_done_ = 0;  // done at the report before
};

}  // namespace roofsim
