#include "core/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace roofsim {

namespace {

// Edit distance with transpositions (optimal string alignment): insertions, deletions,
// substitutions and swaps of neighbours ("modle" is one from "model"), letters without case.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  auto same = [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y)); };
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1])) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string closest_name(const std::string& typed, const std::vector<std::string>& known) {
  auto begins = [&](const std::string& name) {
    return name.size() > typed.size() && std::equal(typed.begin(), typed.end(), name.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
  };
  if (typed.size() >= 3 && std::count_if(known.begin(), known.end(), begins) == 1) return *std::find_if(known.begin(), known.end(), begins);
  std::string best;
  std::size_t best_distance = 0;
  for (const std::string& name : known) {
    const std::size_t d = edit_distance(typed, name);
    if (d * 3 > std::max(typed.size(), name.size())) continue;
    if (best.empty() || d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace roofsim
