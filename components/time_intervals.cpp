#include "components/time_intervals.hpp"

#include <algorithm>

namespace roofsim {

double exposed_time(std::vector<std::pair<Picoseconds, Picoseconds>> comm,
                    std::vector<std::pair<Picoseconds, Picoseconds>> compute) {
  auto merge = [](std::vector<std::pair<Picoseconds, Picoseconds>>& v) {
    std::sort(v.begin(), v.end());
    std::vector<std::pair<Picoseconds, Picoseconds>> out;
    for (const auto& iv : v) {
      if (!out.empty() && iv.first <= out.back().second) {
        out.back().second = std::max(out.back().second, iv.second);
      } else {
        out.push_back(iv);
      }
    }
    v = out;
  };
  merge(comm);
  merge(compute);
  Picoseconds exposed = 0;
  std::size_t j = 0;
  for (const auto& [a, b] : comm) {
    Picoseconds covered = 0;
    while (j < compute.size() && compute[j].second <= a) ++j;
    for (std::size_t k = j; k < compute.size() && compute[k].first < b; ++k) {
      covered += std::min(b, compute[k].second) - std::max(a, compute[k].first);
    }
    exposed += (b - a) - covered;
  }
  return to_seconds(exposed);
}

}  // namespace roofsim
