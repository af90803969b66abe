#pragma once
// Roofline charts drawn by gnuplot: log-log, analytic roofs as lines, simulated ops as points.
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "validation/analytic.hpp"
#include "validation/knee.hpp"

namespace roofsim {

// For charts drawn elsewhere (serving/serving_trace.cpp). The gnuplot terminal for FILE.png or
// FILE.svg at a size in pixels; throws InputError (naming ${plot}) for any other extension, so
// a command can check a chart's name before it runs.
std::string plot_terminal(const std::string& path, int width = 1000, int height = 700);
// A scratch folder for a chart's data and script, under the temporary folder.
std::filesystem::path plot_dir();
// Runs gnuplot on `script` and removes `dir`; throws InputError with gnuplot's messages if
// gnuplot is missing or fails.
void run_gnuplot(const std::filesystem::path& script, const std::filesystem::path& dir);

// Text for a gnuplot script: a single-quoted string (a quote inside doubled), and lines as one
// double-quoted string ("\n" between them; \ and " escaped).
std::string gnuplot_quoted(const std::string& s);
std::string gnuplot_lines(const std::vector<std::string>& lines);

// Opens a gnuplot script (numbers in the C locale, 10 digits) and writes its first lines: the
// terminal and the chart's file.
std::ofstream open_gnuplot_script(const std::filesystem::path& script, const std::string& terminal, const std::string& path);

// Writes FILE.png or FILE.svg (by extension). Throws InputError if gnuplot is missing or fails.
void write_roofline_plot(const std::string& path, const std::string& title, const Roofline& analytic,
                         const std::vector<RooflinePoint>& simulated, const Knee& knee);

// One line of a sweep chart: the points that share the values of the other swept keys
// ("hbm.bandwidth_gb_per_s = 6700"; "" when one key is swept).
struct SweepSeries {
  std::string label;
  std::vector<double> x, y1, y2;
};

// A two-axis line chart over a (log-scaled) swept parameter: each series a solid line on the
// left axis (y1) and a dashed one of the same colour on the right (y2, 0-100), with a legend.
void write_sweep_plot(const std::string& path, const std::string& title, const std::string& x_label, const std::string& y1_label,
                      const std::string& y2_label, const std::vector<SweepSeries>& series);

// Several chips' rooflines on one log-log chart, with each chip's simulated ops as points.
struct RooflineSeries {
  std::string name;
  double peak_flops = 0, bandwidth = 0;
  std::vector<RooflinePoint> ops;
  // A chip's near-memory units: their own roof, drawn dashed in the series' colour (0: none).
  double near_peak_flops = 0, near_bandwidth = 0;
  // The FLOP/s its power limit allows the matrix units (hardware energy.tdp_w): a third roof,
  // drawn dotted where it is below the compute roof (0: none).
  double power_flops = 0;
};
void write_variant_rooflines_plot(const std::string& path, const std::string& title,
                                  const std::vector<RooflineSeries>& series);

// Simulated against measured times, log-log, one point series per family, with the line of
// perfect agreement and +-20% lines: where a family sits off the diagonal is its bias.
struct MeasuredSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (measured s, simulated s)
};
void write_measured_vs_simulated_plot(const std::string& path, const std::string& title,
                                      const std::vector<MeasuredSeries>& series);

}  // namespace roofsim
