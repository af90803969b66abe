#include "serving/serving_cases_plot.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <locale>
#include <map>

#include "core/error.hpp"
#include "experiment/plot.hpp"

namespace roofsim {

namespace {

// One panel's quantity of a row: measured and simulated.
struct Quantity {
  const char* label;
  double (*measured)(const ServingCaseResult&);
  double (*simulated)(const ServingCaseResult&);
};

const Quantity kQuantities[] = {
    {"TTFT (ms)", [](const ServingCaseResult& r) { return r.c.ttft_s * 1e3; }, [](const ServingCaseResult& r) { return r.ttft_s * 1e3; }},
    {"TPOT (ms)", [](const ServingCaseResult& r) { return r.c.tpot_s * 1e3; }, [](const ServingCaseResult& r) { return r.tpot_s * 1e3; }},
    {"requests/s", [](const ServingCaseResult& r) { return r.c.requests_per_s(); },
     [](const ServingCaseResult& r) { return r.requests_per_s(); }},
};

constexpr std::array<std::int64_t, 5> kBandTops = {4, 16, 64, 256, 1024};  // clients at most, per band

}  // namespace

void write_serving_cases_plot(const std::string& path, const std::string& title, const std::vector<ServingCaseResult>& results) {
  const std::string terminal = plot_terminal(path, 1500, 560);
  if (results.empty()) throw InputError("${plot} " + path + ": no simulated row to chart");
  // Rows coloured by concurrency band (1-4, 5-16, ... by fours, then above the last): a legend of
  // six entries, not one per concurrency the files hold (62 in the shared ones).
  std::map<std::size_t, std::vector<const ServingCaseResult*>> by_concurrency;  // band -> rows
  for (const ServingCaseResult& r : results) {
    std::size_t band = 0;
    while (band < kBandTops.size() && r.c.concurrency > kBandTops[band]) ++band;
    by_concurrency[band].push_back(&r);
  }
  const std::filesystem::path dir = plot_dir();
  const std::filesystem::path data = dir / "cases.dat", script = dir / "cases.gp";
  // Columns: measured and simulated of each quantity in turn; a gnuplot index per concurrency.
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {0, 0, 0};
  {
    std::ofstream d(data);
    d.imbue(std::locale::classic());
    d.precision(10);
    bool first = true;
    for (const auto& [band, rows] : by_concurrency) {
      if (!first) d << "\n\n";
      first = false;
      for (const ServingCaseResult* r : rows) {
        for (int q = 0; q < 3; ++q) {
          const double m = kQuantities[q].measured(*r), s = kQuantities[q].simulated(*r);
          d << m << " " << s << (q < 2 ? " " : "\n");
          lo[q] = std::min({lo[q], m, s});
          hi[q] = std::max({hi[q], m, s});
        }
      }
    }
  }
  static const char* colours[] = {"red", "orange", "dark-green", "blue", "dark-violet", "black", "brown", "cyan"};
  const std::string file = gnuplot_quoted(data.string());
  {
    std::ofstream g = open_gnuplot_script(script, terminal, path);
    g << "set multiplot layout 1,3 title " << gnuplot_quoted(title) << "\n"
      << "set logscale xy\nset grid\nunset key\nset samples 200\nset size ratio -1\n";
    for (int q = 0; q < 3; ++q) {
      const double a = lo[q] / 1.3, b = hi[q] * 1.3;
      // One legend, in the first panel's upper left (few rows are simulated 10x slow), its text
      // after its samples so that it stays clear of the axis' numbers.
      g << (q == 0 ? "set key top left Left reverse samplen 2 spacing 0.9 font ',10'\n" : "unset key\n");
      g << "set title " << gnuplot_quoted(kQuantities[q].label) << "\n"
        << "set xrange [" << a << ":" << b << "]\nset yrange [" << a << ":" << b << "]\n"
        << "set xlabel 'measured'\nset ylabel 'simulated'\n"
        << "plot x title 'simulated = measured' lw 2 lc rgb 'gray', \\\n"
        << "     1.15 * x title '+-15%' dashtype 2 lc rgb 'gray', 0.85 * x notitle dashtype 2 lc rgb 'gray'";
      int i = 0;
      for (const auto& [band, rows] : by_concurrency) {
        const std::string label = band == kBandTops.size() ? "above " + std::to_string(kBandTops.back())
                                  : std::to_string(band == 0 ? 1 : kBandTops[band - 1] + 1) + "-" + std::to_string(kBandTops[band]);
        g << ", \\\n     " << file << " index " << i << " using " << 2 * q + 1 << ":" << 2 * q + 2 << " title "
          << gnuplot_quoted("concurrency " + label) << " with points pt 7 ps 0.7 lc rgb '"
          << colours[i % 8] << "'";
        ++i;
      }
      g << "\n";
    }
    g << "unset multiplot\n";
  }
  run_gnuplot(script, dir);
}

}  // namespace roofsim
