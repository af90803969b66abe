#include "validation/collective_bounds.hpp"

#include <algorithm>

namespace roofsim {

double ring_allreduce_s(int p, double n, double B, double alpha) {
  return 2.0 * (p - 1) / p * n / B + 2.0 * (p - 1) * alpha;
}

double bidirectional_ring_allreduce_s(int p, double n, double B, double alpha) {
  return 2.0 * (p - 1) / p * (n / 2) / B + 2.0 * (p - 1) * alpha;
}

double ring_gather_s(int p, double n, double B, double alpha) {
  return static_cast<double>(p - 1) / p * n / B + (p - 1) * alpha;
}

namespace {
// `rounds` 2: reduce-scatter then all-gather along each dimension; 1: one of them.
double torus_rounds_s(const std::vector<int>& dims, double n, double B, double alpha, bool split, int rounds) {
  const int parts = split ? static_cast<int>(dims.size()) : 1;
  double longest = 0;
  for (int part = 0; part < parts; ++part) {
    double bytes = n / (2.0 * parts);  // one direction's share
    double t = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      const int k = dims[(static_cast<std::size_t>(part) + i) % dims.size()];
      if (k == 1) continue;
      t += rounds * (k - 1) * (bytes / k / B + alpha);
      bytes /= k;
    }
    longest = std::max(longest, t);
  }
  return longest;
}
}  // namespace

double torus_allreduce_s(const std::vector<int>& dims, double n, double B, double alpha, bool split) {
  return torus_rounds_s(dims, n, B, alpha, split, 2);
}

double torus_gather_s(const std::vector<int>& dims, double n, double B, double alpha, bool split) {
  return torus_rounds_s(dims, n, B, alpha, split, 1);
}

double switch_oneshot_s(int p, double n, double B_port, double alpha, int phases) {
  return phases * (static_cast<double>(p - 1) / p * n / B_port + 2 * alpha);
}

double switch_reduce_s(double n, double B_port, double alpha) { return n / B_port + 2 * alpha; }

double switch_ring_s(int p, double n, double B_port, double alpha, int rounds) {
  return rounds * (p - 1) * (n / p / B_port + 2 * alpha);
}

double routed_send_s(int hops, double n, double B, double alpha) { return hops > 0 ? n / B + hops * alpha : 0.0; }

double busbw_factor_allreduce(int p) { return 2.0 * (p - 1) / p; }
double busbw_factor_gather(int p) { return static_cast<double>(p - 1) / p; }

}  // namespace roofsim
