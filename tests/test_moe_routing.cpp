// MoE token routing (workloads/moe_routing.hpp): the distributions the public MoE kernel tables
// were measured with, checked against the benchmark's own procedure written out one copy at a
// time.
#include <catch2/catch.hpp>

#include <numeric>
#include <random>

#include "workloads/moe_routing.hpp"

using namespace roofsim;

namespace {
std::int64_t sum(const std::vector<std::int64_t>& v) { return std::accumulate(v.begin(), v.end(), std::int64_t{0}); }

// `_round_robin_adjust_per_rank` as the benchmark runs it: one copy per rank per round.
void deal_one_at_a_time(std::vector<std::int64_t>& load, const MoeRoutingShape& s, std::int64_t remaining, std::int64_t step) {
  const std::int64_t per_rank = s.experts / s.ep;
  while (remaining > 0) {
    bool progressed = false;
    for (std::int64_t r = 0; r < s.ep && remaining > 0; ++r) {
      std::int64_t pick = -1;
      for (std::int64_t e = r * per_rank; e < (r + 1) * per_rank; ++e) {
        const std::int64_t v = load[static_cast<std::size_t>(e)];
        if (step > 0 ? v >= s.tokens : v <= 0) continue;
        if (pick < 0 || (step > 0 ? v < load[static_cast<std::size_t>(pick)] : v > load[static_cast<std::size_t>(pick)])) pick = e;
      }
      if (pick < 0) continue;
      load[static_cast<std::size_t>(pick)] += step;
      --remaining;
      progressed = true;
    }
    if (!progressed) break;
  }
}
}  // namespace

TEST_CASE("MoE routing: dealing copies in closed form matches the benchmark's one at a time", "[moe][routing]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const std::int64_t ep = 1 + static_cast<std::int64_t>(rng() % 4), per_rank = 1 + static_cast<std::int64_t>(rng() % 6);
    MoeRoutingShape s{1 + static_cast<std::int64_t>(rng() % 12), ep * per_rank, 1, ep};
    std::vector<std::int64_t> load(static_cast<std::size_t>(s.experts));
    for (std::int64_t& v : load) v = static_cast<std::int64_t>(rng() % static_cast<unsigned>(s.tokens + 1));
    const std::int64_t step = trial % 2 ? 1 : -1, copies = static_cast<std::int64_t>(rng() % 40);
    std::vector<std::int64_t> closed = load, reference = load;
    deal_round_robin(closed, s, copies, step);
    deal_one_at_a_time(reference, s, copies, step);
    INFO("trial " << trial << ": " << s.experts << " experts over " << ep << " ranks, " << s.tokens << " tokens, "
                  << copies << " copies, step " << step);
    REQUIRE(closed == reference);
  }
}

TEST_CASE("MoE routing: balanced routing spreads each token's copies a stride apart", "[moe][routing]") {
  // 4 tokens x top-2 of 8 experts (stride 4): token t goes to t and t + 4; rank 0 of 2 holds
  // experts 0-3, one copy each.
  CHECK(balanced_rank0_loads({4, 8, 2, 2}) == std::vector<std::int64_t>{1, 1, 1, 1});
  // 1 token x top-8 of 256 (stride 32): experts 0, 32, ..., 224; rank 0 of 8 holds 0-31.
  std::vector<std::int64_t> one(32, 0);
  one[0] = 1;
  CHECK(balanced_rank0_loads({1, 256, 8, 8}) == one);
  // The closed form against the benchmark's double loop, many tokens (wrapping round the
  // experts) and few.
  for (const MoeRoutingShape& s : {MoeRoutingShape{1000, 60, 7, 3}, MoeRoutingShape{37, 16, 3, 4}, MoeRoutingShape{5, 128, 8, 2}}) {
    std::vector<std::int64_t> load(static_cast<std::size_t>(s.experts), 0);
    const std::int64_t stride = (s.experts + s.topk - 1) / s.topk;
    for (std::int64_t t = 0; t < s.tokens; ++t) {
      for (std::int64_t j = 0; j < s.topk; ++j) {
        const double e = s.tokens >= stride ? static_cast<double>(t + j * stride)
                                            : static_cast<double>(t) * static_cast<double>(stride) / static_cast<double>(s.tokens) +
                                                  static_cast<double>(j * stride);
        ++load[static_cast<std::size_t>(static_cast<std::int64_t>(e) % s.experts)];
      }
    }
    const std::vector<std::int64_t> rank0(load.begin(), load.begin() + s.experts / s.ep);
    CHECK(balanced_rank0_loads(s) == rank0);
  }
}

TEST_CASE("MoE routing: power-law draws keep every copy, cap each expert at the tokens, and are seeded", "[moe][routing]") {
  const MoeRoutingShape s{8192, 256, 8, 8};
  for (double alpha : {1.01, 1.2}) {
    const std::vector<std::int64_t> a = power_law_loads(s, alpha, 0);
    CHECK(sum(a) == 8192 * 8);
    CHECK(*std::max_element(a.begin(), a.end()) <= 8192);
    CHECK(power_law_loads(s, alpha, 0) == a);  // the same draw again
    CHECK(power_law_loads(s, alpha, 1) != a);  // another draw
    // The measured rank carries the most copies.
    const std::vector<std::int64_t> busiest = busiest_rank_loads(a, s);
    REQUIRE(busiest.size() == 32);
    for (std::int64_t r = 0; r < 8; ++r) {
      CHECK(sum(busiest) >= std::accumulate(a.begin() + r * 32, a.begin() + (r + 1) * 32, std::int64_t{0}));
    }
  }
  // A bounded power law over loads, not a share per load rank: 32 tokens x top-1 of 128
  // experts spreads over many experts (rank^-1.2 would give the hottest expert 9 of 32).
  const std::vector<std::int64_t> few = power_law_loads({32, 128, 1, 32}, 1.2, 0);
  CHECK(sum(few) == 32);
  CHECK(*std::max_element(few.begin(), few.end()) < 9);
  // Overflow beyond the cap is dealt out: 16 tokens x top-4 of 8 experts, steep law.
  const std::vector<std::int64_t> capped = power_law_loads({16, 8, 4, 2}, 3.0, 0);
  CHECK(sum(capped) == 64);
  CHECK(*std::max_element(capped.begin(), capped.end()) <= 16);
  // Millions of copies are dealt without a copy-by-copy loop (a hang otherwise).
  CHECK(sum(power_law_loads({1 << 22, 65536, 64, 1}, 2.0, 0)) == (std::int64_t{1} << 22) * 64);
}
