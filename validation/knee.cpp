#include "validation/knee.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace roofsim {

namespace {
double median3(double a, double b, double c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); }
}  // namespace

Knee find_knee(std::vector<RooflinePoint> p) {
  if (p.size() < 6) throw InputError("finding a knee needs at least six points");
  std::sort(p.begin(), p.end(), [](const RooflinePoint& a, const RooflinePoint& b) { return a.intensity < b.intensity; });
  const std::size_t n = p.size();
  Knee k;
  k.bandwidth = median3(p[0].flops / p[0].intensity, p[1].flops / p[1].intensity, p[2].flops / p[2].intensity);
  k.peak_flops = median3(p[n - 1].flops, p[n - 2].flops, p[n - 3].flops);
  return k;
}

}  // namespace roofsim
