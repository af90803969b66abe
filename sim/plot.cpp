#include "sim/plot.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/error.hpp"

namespace roofsim {

namespace fs = std::filesystem;

void write_roofline_plot(const std::string& path, const std::string& title, const Roofline& rl,
                         const std::vector<RooflinePoint>& pts, const Knee& knee) {
  const std::string ext = fs::path(path).extension().string();
  std::string terminal;
  if (ext == ".png") {
    terminal = "pngcairo size 1000,700 noenhanced";
  } else if (ext == ".svg") {
    terminal = "svg size 1000,700 noenhanced";
  } else {
    throw InputError("--plot " + path + ": expected a .png or .svg file name");
  }
  const fs::path dir = fs::temp_directory_path() / ("roofsim_plot_" + std::to_string(::getpid()));
  fs::create_directories(dir);
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
    std::ofstream g(script);
    g.precision(10);
    g << "set terminal " << terminal << "\n"
      << "set output '" << path << "'\n"
      << "set title '" << title << "'\n"
      << "set logscale xy\n"
      << "set xrange [" << lo / 2 << ":" << hi * 2 << "]\n"
      << "set xlabel 'arithmetic intensity (FLOP/byte)'\n"
      << "set ylabel 'TFLOP/s'\n"
      << "set grid\n"
      << "set key top left\n"
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
      << "set samples 400\n"
      << "plot roof(x) title 'analytic roofline' lw 2 lc rgb 'black', \\\n"
      << "     '" << data.string() << "' using 1:2 title 'simulated ops' with linespoints pt 7 lc rgb 'red'\n";
  }
  const std::string cmd = "gnuplot '" + script.string() + "' 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) throw InputError("--plot: cannot run gnuplot");
  std::string messages;
  char buf[256];
  while (std::fgets(buf, sizeof buf, pipe)) messages += buf;
  const int rc = ::pclose(pipe);
  fs::remove_all(dir);
  if (rc != 0) {
    throw InputError("--plot: gnuplot failed (is gnuplot installed? scripts/install-deps.sh installs it): " + messages);
  }
}

}  // namespace roofsim
