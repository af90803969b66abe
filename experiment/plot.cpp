#include "experiment/plot.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <locale>
#include <unistd.h>

#include "core/error.hpp"

namespace roofsim {

namespace fs = std::filesystem;

std::string plot_terminal(const std::string& path, int width, int height) {
  const std::string ext = fs::path(path).extension().string();
  const std::string size = " size " + std::to_string(width) + "," + std::to_string(height) + " noenhanced";
  if (ext == ".png") return "pngcairo" + size;
  if (ext == ".svg") return "svg" + size;
  throw InputError("${plot} " + path + ": expected a .png or .svg file name");
}

void run_gnuplot(const fs::path& script, const fs::path& dir) {
  const std::string cmd = "gnuplot '" + script.string() + "' 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) throw InputError("${plot}: cannot run gnuplot");
  std::string messages;
  char buf[256];
  while (std::fgets(buf, sizeof buf, pipe)) messages += buf;
  const int rc = ::pclose(pipe);
  fs::remove_all(dir);
  if (rc != 0) {
    throw InputError("${plot}: gnuplot failed (is gnuplot installed? scripts/install-deps.sh installs it): " + messages);
  }
}

namespace {

// A log-log roofline chart's script over intensities [lo, hi], opened with its first lines.
std::ofstream roofline_script(const fs::path& script, const std::string& terminal, const std::string& path,
                              const std::string& title, double lo, double hi) {
  std::ofstream g = open_gnuplot_script(script, terminal, path);
  g << "set title '" << title << "'\n"
    << "set logscale xy\n"
    << "set xrange [" << lo << ":" << hi << "]\n"
    << "set xlabel 'arithmetic intensity (FLOP/byte)'\n"
    << "set ylabel 'TFLOP/s'\n"
    << "set grid\n"
    << "set samples 400\n";
  return g;
}

}  // namespace

fs::path plot_dir() {
  const fs::path dir = fs::temp_directory_path() / ("roofsim_plot_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

void write_sweep_plot(const std::string& path, const std::string& title, const std::string& x_label, const std::string& y1_label,
                      const std::string& y2_label, const std::vector<SweepSeries>& series) {
  const std::string terminal = plot_terminal(path);
  const fs::path dir = plot_dir();
  const fs::path data = dir / "sweep.dat", script = dir / "sweep.gp";
  {
    // One data block per series (gnuplot's `index`), two blank lines apart.
    std::ofstream d(data);
    d.imbue(std::locale::classic());
    d.precision(10);
    for (const SweepSeries& s : series) {
      for (std::size_t i = 0; i < s.x.size(); ++i) d << s.x[i] << " " << s.y1[i] << " " << s.y2[i] << "\n";
      d << "\n\n";
    }
  }
  {
    std::ofstream g = open_gnuplot_script(script, terminal, path);
    g << "set title " << gnuplot_quoted(title) << "\n"
      << "set logscale x\n"
      << "set xlabel " << gnuplot_quoted(x_label) << "\n"
      << "set ylabel " << gnuplot_quoted(y1_label) << "\n"
      << "set y2label " << gnuplot_quoted(y2_label) << "\n"
      << "set y2range [0:100]\n"
      << "set ytics nomirror\n"
      << "set y2tics\n"
      << "set grid\n"
      << "set key top left font ',9'\n";
    // Red and blue for one series, as before; a colour per series when there are more.
    g << "plot ";
    for (std::size_t i = 0; i < series.size(); ++i) {
      const std::string suffix = series[i].label.empty() ? "" : ", " + series[i].label;
      const std::string y1_colour = series.size() == 1 ? "rgb 'red'" : std::to_string(i + 1);
      const std::string y2_colour = series.size() == 1 ? "rgb 'blue'" : std::to_string(i + 1);
      g << (i ? ", \\\n     " : "") << gnuplot_quoted(data.string()) << " index " << i << " using 1:2 title "
        << gnuplot_quoted(y1_label + suffix) << " with linespoints pt 7 lc " << y1_colour << ", \\\n     "
        << gnuplot_quoted(data.string()) << " index " << i << " using 1:3 axes x1y2 title " << gnuplot_quoted(y2_label + suffix)
        << " with linespoints pt 5 lc " << y2_colour << " dashtype 2";
    }
    g << "\n";
  }
  run_gnuplot(script, dir);
}

void write_variant_rooflines_plot(const std::string& path, const std::string& title,
                                  const std::vector<RooflineSeries>& series) {
  const std::string terminal = plot_terminal(path);
  const fs::path dir = plot_dir();
  const fs::path script = dir / "variants.gp";
  double lo = 1e30, hi = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    std::ofstream d(dir / ("v" + std::to_string(i) + ".dat"));
    d.precision(10);
    for (const auto& p : series[i].ops) {
      if (p.intensity <= 0 || p.flops <= 0) continue;
      d << p.intensity << " " << p.flops / 1e12 << "\n";
      lo = std::min(lo, p.intensity);
      hi = std::max(hi, p.intensity);
    }
  }
  if (hi <= 0) {
    lo = 0.5;
    hi = 1000;
  }
  static const char* colours[] = {"black", "red", "blue", "dark-green", "orange", "purple"};
  std::ofstream g = roofline_script(script, terminal, path, title, lo / 4, std::max(hi * 4, 1000.0));
  g << "set key bottom right\n";
  // The highest compute roof inside the frame, not along its top edge.
  double top = 0;
  for (const RooflineSeries& s : series) top = std::max(top, s.peak_flops);
  if (top > 0) g << "set yrange [*:" << 2.5 * top / 1e12 << "]\n";
  auto roof = [&](const std::string& name, double bandwidth, double peak) {
    g << name << "(x) = (" << bandwidth / 1e12 << " * x < " << peak / 1e12 << ") ? " << bandwidth / 1e12 << " * x : " << peak / 1e12 << "\n";
  };
  for (std::size_t i = 0; i < series.size(); ++i) {
    roof("roof" + std::to_string(i), series[i].bandwidth, series[i].peak_flops);
    if (series[i].near_peak_flops > 0) roof("near" + std::to_string(i), series[i].near_bandwidth, series[i].near_peak_flops);
  }
  g << "plot ";
  for (std::size_t i = 0; i < series.size(); ++i) {
    const char* c = colours[i % 6];
    g << (i ? ", \\\n     " : "") << "roof" << i << "(x) title " << gnuplot_quoted(series[i].name + " roofline") << " lw 2 lc rgb '" << c << "'";
    if (series[i].near_peak_flops > 0) {
      g << ", \\\n     near" << i << "(x) title " << gnuplot_quoted(series[i].name + " near-memory roof") << " lw 2 dashtype 2 lc rgb '" << c
        << "'";
    }
    if (series[i].power_flops > 0 && series[i].power_flops < series[i].peak_flops) {
      g << ", \\\n     " << series[i].power_flops / 1e12 << " title " << gnuplot_quoted(series[i].name + " power roof (TDP)")
        << " lw 2 dashtype 3 lc rgb '" << c << "'";
    }
    g << ", \\\n     " << gnuplot_quoted((dir / ("v" + std::to_string(i) + ".dat")).string()) << " using 1:2 title "
      << gnuplot_quoted(series[i].name + " ops") << " with points pt " << 5 + 2 * static_cast<int>(i) << " lc rgb '" << c << "'";
  }
  g << "\n";
  g.close();
  run_gnuplot(script, dir);
}

void write_roofline_plot(const std::string& path, const std::string& title, const Roofline& rl,
                         const std::vector<RooflinePoint>& pts, const Knee& knee) {
  const std::string terminal = plot_terminal(path);
  const fs::path dir = plot_dir();
  const fs::path data = dir / "points.dat", script = dir / "plot.gp";
  {
    std::ofstream d(data);
    d.precision(10);
    for (const auto& p : pts) d << p.intensity << " " << p.flops / 1e12 << "\n";
  }
  double lo = pts.front().intensity, hi = pts.front().intensity;
  for (const auto& p : pts) {
    lo = std::min(lo, p.intensity);
    hi = std::max(hi, p.intensity);
  }
  {
    std::ofstream g = roofline_script(script, terminal, path, title, lo / 2, hi * 2);
    g << "set key top left\n"
      << "peak = " << rl.peak_flops / 1e12 << "\n"
      << "bw = " << rl.bandwidth / 1e12 << "\n"
      << "roof(x) = (bw * x < peak) ? bw * x : peak\n"
      << "set arrow from " << rl.ridge() << ", graph 0 to " << rl.ridge()
      << ", graph 1 nohead dashtype 2 lc rgb 'gray'\n"
      << "set arrow from " << knee.ridge() << ", graph 0 to " << knee.ridge()
      << ", graph 1 nohead dashtype 3 lc rgb 'red'\n"
      << "set label 'analytic ridge " << static_cast<int>(rl.ridge() + 0.5) << "' at " << rl.ridge()
      << ", graph 0.05 offset 1,0\n"
      << "set label 'emergent ridge " << static_cast<int>(knee.ridge() + 0.5) << "' at " << knee.ridge()
      << ", graph 0.12 offset 1,0 tc rgb 'red'\n"
      << "plot roof(x) title 'analytic roofline' lw 2 lc rgb 'black', \\\n"
      << "     '" << data.string() << "' using 1:2 title 'simulated ops' with linespoints pt 7 lc rgb 'red'\n";
  }
  run_gnuplot(script, dir);
}

void write_measured_vs_simulated_plot(const std::string& path, const std::string& title,
                                      const std::vector<MeasuredSeries>& series) {
  const std::string terminal = plot_terminal(path);
  const fs::path dir = plot_dir();
  const fs::path script = dir / "measured.gp";
  double lo = 1e30, hi = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    std::ofstream d(dir / ("s" + std::to_string(i) + ".dat"));
    d.precision(10);
    for (const auto& [measured, simulated] : series[i].points) {
      if (measured <= 0 || simulated <= 0) continue;
      d << measured * 1e6 << " " << simulated * 1e6 << "\n";
      lo = std::min({lo, measured * 1e6, simulated * 1e6});
      hi = std::max({hi, measured * 1e6, simulated * 1e6});
    }
  }
  if (hi <= 0) {
    lo = 1;
    hi = 1000;
  }
  static const char* colours[] = {"red", "blue", "dark-green", "orange", "purple", "black", "brown", "cyan", "magenta", "olive", "dark-violet", "steelblue"};
  std::ofstream g = open_gnuplot_script(script, terminal, path);
  g << "set title '" << title << "'\n"
    << "set logscale xy\n"
    << "set xrange [" << lo / 1.5 << ":" << hi * 1.5 << "]\n"
    << "set yrange [" << lo / 1.5 << ":" << hi * 1.5 << "]\n"
    << "set xlabel 'measured (us)'\n"
    << "set ylabel 'simulated (us)'\n"
    << "set grid\n"
    << "set key top left\n"
    << "set samples 200\n"
    << "plot x title 'simulated = measured' lw 2 lc rgb 'gray', \\\n"
    << "     1.2 * x title '+-20%' dashtype 2 lc rgb 'gray', 0.8 * x notitle dashtype 2 lc rgb 'gray'";
  for (std::size_t i = 0; i < series.size(); ++i) {
    g << ", \\\n     '" << (dir / ("s" + std::to_string(i) + ".dat")).string() << "' using 1:2 title '" << series[i].name
      << "' with points pt 7 ps 0.5 lc rgb '" << colours[i % 12] << "'";
  }
  g << "\n";
  g.close();
  run_gnuplot(script, dir);
}

std::ofstream open_gnuplot_script(const fs::path& script, const std::string& terminal, const std::string& path) {
  std::ofstream g(script);
  g.imbue(std::locale::classic());
  g.precision(10);
  g << "set terminal " << terminal << "\n"
    << "set output " << gnuplot_quoted(path) << "\n";
  return g;
}

std::string gnuplot_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string gnuplot_lines(const std::vector<std::string>& lines) {
  std::string out = "\"";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i) out += "\\n";
    for (char c : lines[i]) {
      if (c == '\\' || c == '"') out += '\\';
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace roofsim
