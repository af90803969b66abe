#include "workloads/moe_routing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace roofsim {

namespace {

// Rank r holds experts [first(r), first(r + 1)): contiguous blocks, as the benchmark's
// view(ep, experts / ep) (an uneven split leaves the last experts to no rank, as flooring does).
std::int64_t first_expert(const MoeRoutingShape& s, std::int64_t rank) { return rank * (s.experts / s.ep); }

std::vector<std::int64_t> rank_slice(const std::vector<std::int64_t>& load, const MoeRoutingShape& s, std::int64_t rank) {
  return {load.begin() + first_expert(s, rank), load.begin() + first_expert(s, rank + 1)};
}

// `q` copies added to (step +1: each to the least loaded expert below `cap`) or taken from
// (step -1: each from the most loaded expert above 0) one rank's experts, one at a time, the
// first such expert on ties (torch.argmin / argmax). Worked out in closed form, so that
// millions of copies cost no more than a few: the loads pass a level L (below it raised to it,
// or above it lowered to it), and what is left moves the first experts at L by one each.
// Fewer than q are placed when every expert is full (or empty).
void water_fill(std::int64_t* v, std::int64_t n, std::int64_t q, std::int64_t step, std::int64_t cap) {
  // Copies moved to bring every expert to level L (clamped to [0, cap]).
  const auto moved = [&](std::int64_t level) {
    std::int64_t sum = 0;
    for (std::int64_t e = 0; e < n; ++e) sum += step > 0 ? std::max<std::int64_t>(0, level - v[e]) : std::max<std::int64_t>(0, v[e] - level);
    return sum;
  };
  // The furthest level reachable with q copies: binary search between the start and the bound.
  std::int64_t lo = step > 0 ? *std::min_element(v, v + n) : 0, hi = step > 0 ? cap : *std::max_element(v, v + n);
  if (step > 0) {
    while (lo < hi) {  // the highest L with moved(L) <= q
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (moved(mid) <= q) lo = mid; else hi = mid - 1;
    }
  } else {
    while (lo < hi) {  // the lowest L with moved(L) <= q
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (moved(mid) <= q) hi = mid; else lo = mid + 1;
    }
  }
  const std::int64_t level = lo;
  std::int64_t placed = moved(level);
  for (std::int64_t e = 0; e < n; ++e) v[e] = step > 0 ? std::max(v[e], level) : std::min(v[e], level);
  const bool room = step > 0 ? level < cap : level > 0;
  for (std::int64_t e = 0; e < n && placed < q && room; ++e) {
    if (v[e] != level) continue;
    v[e] += step;
    ++placed;
  }
}

}  // namespace

// A rank takes one copy per round while it has room, so its share is min(rounds, room) plus
// one in the last, partial round; within the rank, water_fill places them.
void deal_round_robin(std::vector<std::int64_t>& load, const MoeRoutingShape& s, std::int64_t remaining, std::int64_t step) {
  std::vector<std::int64_t> room(static_cast<std::size_t>(s.ep), 0);
  for (std::int64_t r = 0; r < s.ep; ++r) {
    for (std::int64_t e = first_expert(s, r); e < first_expert(s, r + 1); ++e) {
      room[static_cast<std::size_t>(r)] += step > 0 ? s.tokens - load[static_cast<std::size_t>(e)] : load[static_cast<std::size_t>(e)];
    }
  }
  const auto dealt_in = [&](std::int64_t rounds) {
    std::int64_t sum = 0;
    for (std::int64_t c : room) sum += std::min(rounds, c);
    return sum;
  };
  std::int64_t lo = 0, hi = *std::max_element(room.begin(), room.end());
  while (lo < hi) {  // the most complete rounds that `remaining` pays for
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (dealt_in(mid) <= remaining) lo = mid; else hi = mid - 1;
  }
  std::int64_t last_round = remaining - dealt_in(lo);
  for (std::int64_t r = 0; r < s.ep; ++r) {
    std::int64_t share = std::min(lo, room[static_cast<std::size_t>(r)]);
    if (last_round > 0 && room[static_cast<std::size_t>(r)] > lo) {
      ++share;
      --last_round;
    }
    const std::int64_t first = first_expert(s, r);
    water_fill(load.data() + first, first_expert(s, r + 1) - first, share, step, s.tokens);
  }
}

std::vector<std::int64_t> balanced_rank0_loads(const MoeRoutingShape& s) {
  std::vector<std::int64_t> load(static_cast<std::size_t>(s.experts), 0);
  const std::int64_t stride = (s.experts + s.topk - 1) / s.topk;
  if (s.tokens >= stride) {
    // Copy j of tokens 0..tokens-1 runs round the experts from j x stride: every expert gets
    // tokens / experts of them, and the tokens % experts experts from that start one more.
    std::vector<std::int64_t> extra(static_cast<std::size_t>(s.experts) + 1, 0);  // difference array
    for (std::int64_t j = 0; j < s.topk; ++j) {
      const std::int64_t start = j * stride % s.experts, rest = s.tokens % s.experts;
      const std::int64_t end = start + rest;
      ++extra[static_cast<std::size_t>(start)];
      --extra[static_cast<std::size_t>(std::min(end, s.experts))];
      if (end > s.experts) {
        ++extra[0];
        --extra[static_cast<std::size_t>(end - s.experts)];
      }
    }
    std::int64_t run = 0;
    for (std::size_t e = 0; e < load.size(); ++e) {
      run += extra[e];
      load[e] = s.topk * (s.tokens / s.experts) + run;
    }
  } else {
    // Fewer tokens than the stride (so no more copies than about one per expert): the
    // benchmark computes t x stride / tokens in floating point and truncates the sum, which is
    // the quotient's floor plus j x stride.
    for (std::int64_t t = 0; t < s.tokens; ++t) {
      for (std::int64_t j = 0; j < s.topk; ++j) ++load[static_cast<std::size_t>((t * stride / s.tokens + j * stride) % s.experts)];
    }
  }
  return rank_slice(load, s, 0);
}

std::vector<std::int64_t> power_law_loads(const MoeRoutingShape& s, double alpha, std::uint64_t draw) {
  std::mt19937_64 rng(0x5eed0000u + draw);
  const std::int64_t copies = s.tokens * s.topk;
  const bool many = copies > s.experts;
  const double lo = many ? 1.0 : 0.01, hi = many ? 0.8 * static_cast<double>(s.tokens) : 2.0;
  const double a = std::pow(lo, 1 - alpha), b = std::pow(hi, 1 - alpha);
  std::vector<double> x(static_cast<std::size_t>(s.experts));
  double sum = 0;
  for (double& v : x) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1), 53 bits
    // The inverse CDF; at alpha = 1 (which the benchmark's formula divides by zero at) the
    // law's limit, log-uniform.
    v = std::abs(alpha - 1) < 1e-9 ? lo * std::pow(hi / lo, u) : std::pow((b - a) * u + a, 1 / (1 - alpha));
    sum += v;
  }
  std::vector<std::int64_t> load(x.size());
  std::int64_t overflow = 0, dealt = 0;
  for (std::size_t e = 0; e < x.size(); ++e) {
    // torch.round rounds half to even, as nearbyint does in the default rounding mode.
    const auto rounded = static_cast<std::int64_t>(std::nearbyint(x[e] / sum * static_cast<double>(copies)));
    overflow += std::max<std::int64_t>(0, rounded - s.tokens);
    load[e] = std::min(rounded, s.tokens);
    dealt += load[e];
  }
  if (overflow > 0) {
    deal_round_robin(load, s, overflow, 1);
    dealt = 0;  // what the redistribution placed (all of it unless every expert is full)
    for (std::int64_t v : load) dealt += v;
  }
  if (dealt < copies) deal_round_robin(load, s, copies - dealt, 1);
  if (dealt > copies) deal_round_robin(load, s, dealt - copies, -1);
  return load;
}

std::vector<std::int64_t> busiest_rank_loads(const std::vector<std::int64_t>& load, const MoeRoutingShape& s) {
  std::int64_t best = 0, best_sum = -1;
  for (std::int64_t r = 0; r < s.ep; ++r) {
    std::int64_t sum_r = 0;
    for (std::int64_t e = first_expert(s, r); e < first_expert(s, r + 1); ++e) sum_r += load[static_cast<std::size_t>(e)];
    if (sum_r > best_sum) {  // the first rank on ties, as argmax
      best_sum = sum_r;
      best = r;
    }
  }
  return rank_slice(load, s, best);
}

std::optional<MoeRouting> parse_moe_routing(const std::string& text) {
  if (text == "uniform") return MoeRouting{};
  if (text == "balanced") return MoeRouting{MoeRouting::Kind::balanced, 0};
  const std::string prefix = "power_law:";
  if (text.rfind(prefix, 0) != 0 || text.size() == prefix.size()) return std::nullopt;
  const std::string number = text.substr(prefix.size());
  char* end = nullptr;
  const double a = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !(a > 0 && a <= 10)) return std::nullopt;
  return MoeRouting{MoeRouting::Kind::power_law, a};
}

std::string moe_routing_name(const MoeRouting& r) {
  switch (r.kind) {
    case MoeRouting::Kind::uniform: return "uniform";
    case MoeRouting::Kind::balanced: return "balanced";
    case MoeRouting::Kind::power_law: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.6g", r.alpha);
      return std::string("power_law:") + buf;
    }
  }
  return "uniform";
}

std::vector<std::int64_t> routed_loads(const MoeRouting& r, const MoeRoutingShape& s, std::uint64_t draw) {
  if (r.kind == MoeRouting::Kind::power_law) return busiest_rank_loads(power_law_loads(s, r.alpha, draw), s);
  return balanced_rank0_loads(s);
}

GroupedRows grouped_rows(const std::vector<std::int64_t>& loads, std::int64_t tile_rows) {
  std::int64_t copies = 0, touched = 0, padded = 0;
  for (std::int64_t rows : loads) {
    if (rows == 0) continue;
    copies += rows;
    ++touched;
    padded += (rows + tile_rows - 1) / tile_rows * tile_rows;
  }
  if (touched == 0) return {1, 1, tile_rows};  // no copy lands here: the kernels still run, on nothing
  return {touched, copies, std::max((copies + touched - 1) / touched, padded / touched)};
}

}  // namespace roofsim
