// Serving with expert parallelism: attention data parallel over the EP ranks, each request
// pinned to one, and the busiest rank's work simulated, its MoE layers sending tokens to their
// experts and back by all-to-all.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/error.hpp"
#include "serving/pool.hpp"
#include "serving/report.hpp"
#include "serving/scheduler.hpp"
#include "serving/serving.hpp"
#include "tests/serving_test_util.hpp"
#include "tests/test_util.hpp"

using namespace roofsim;
using namespace roofsim::test;

namespace {

// Mixtral-8x7B's layer, 2 of them: 8 experts, top 2.
ServingSetup moe_setup(std::int64_t tp, std::int64_t ep) {
  static const std::string model =
      write_temp(replace_once(preset_text("models", "mixtral-8x7b"), "layers = 32", "layers = 2"), "model");
  ServingSetup s = serving_setup(96, 32, "512", "32");
  s.machine.model = model;
  s.machine.tp = tp;
  s.machine.ep = ep;
  return s;
}

}  // namespace

TEST_CASE("expert parallelism pins each request to the rank holding the fewest, and the busiest rank's work is simulated", "[systemc][serving]") {
  KvBlockPool pool(100000, 16);
  SchedulerConfig c;
  Scheduler scheduler(c, "reserve", pool);
  // Four requests on two ranks: 0 and 2 on rank 0, 1 and 3 on rank 1 (the fewest requests,
  // then the fewest prompt tokens, then the lower rank).
  EpRanks ranks(2);
  for (std::int64_t i = 0; i < 4; ++i) CHECK(ranks.rank_of(i, 100) == i % 2);
  CHECK(ranks.rank_of(3, 100) == 1);  // placed once: a request keeps its rank
  // Request 1 finishes: rank 1 holds one; the next new request goes there, and then, with the
  // ranks holding two each, the next to the one with fewer prompt tokens.
  ranks.release(1);
  CHECK(ranks.rank_of(5, 4000) == 1);
  CHECK(ranks.rank_of(6, 10) == 0);
  // An iteration: a 512-token chunk of request 7 (new: rank 1, the fewer requests) beside the
  // decodes of 0, 2, 3, 5 and 6. Rank 1 runs the chunk and its own decodes (3 and 5), not
  // decodes moved away from it: its 514 tokens are the busiest.
  const std::vector<ScheduledWork> work{{0, 7, 512, 512, true}, {1, 0, 1, 900, false}, {2, 2, 1, 900, false},
                                        {3, 3, 1, 900, false},   {4, 5, 1, 900, false},  {5, 6, 1, 900, false}};
  const std::vector<ScheduledWork> busiest = ranks.busiest(work, scheduler);
  REQUIRE(busiest.size() == 3);
  CHECK(busiest[0].record == 7);
  CHECK(busiest[1].record == 3);
  CHECK(busiest[2].record == 5);
  // One rank: the whole iteration.
  EpRanks one(1);
  CHECK(one.busiest(work, scheduler).size() == work.size());
}

TEST_CASE("serving with expert parallelism: every rank's KV cache, the experts spread, all-to-all in every MoE layer", "[systemc][serving]") {
  const ServingResult ep = run_serving(moe_setup(1, 4));
  const ServingResult tp = run_serving(moe_setup(4, 1));
  CHECK(ep.chips == 4);
  CHECK(serving_json(ep)["ep"] == 4);
  // Each EP rank holds a quarter of the experts and every other weight; TP 4 a quarter of all.
  CHECK(ep.weights_bytes > tp.weights_bytes);
  // Each EP rank's iteration holds about a quarter of the sequences: at concurrency 32 no
  // simulated shape has more than 8 decodes plus a prefill chunk.
  std::int64_t most = 0;
  bool alltoall = false;
  for (const IterationShape& s : ep.shapes) {
    std::int64_t n = 0;
    for (const SequenceGroup& g : s.groups) n += g.count;
    most = std::max(most, n);
    alltoall = alltoall || s.outcome.comm_s > 0;
  }
  CHECK(most <= 32 / 4 + 1);
  CHECK(alltoall);  // the dispatch and combine all-to-alls take time on the links
  // The busiest rank's tokens: at least an even share and at most all of them; a prompt's chunk
  // lands on one rank, so over the run the busiest holds more than an even share. TP has one.
  for (const IterationRecord& it : ep.iterations) {
    CHECK(it.busiest_rank_tokens * 4 >= it.tokens);
    CHECK(it.busiest_rank_tokens <= it.tokens);
  }
  CHECK(ep.summary.ep_imbalance > 1.05);
  CHECK(ep.summary.ep_imbalance <= 4.0);
  CHECK(tp.summary.ep_imbalance == 1.0);
  CHECK(serving_json(ep)["summary"]["ep_imbalance"] == ep.summary.ep_imbalance);
  CHECK(ep.summary.requests == 96);
  // Deterministic: the same setup gives the same result.
  const ServingResult again = run_serving(moe_setup(1, 4));
  CHECK(requests_csv(again) == requests_csv(ep));
  CHECK(iterations_csv(again) == iterations_csv(ep));
}

TEST_CASE("scheduler limits are each rank's where the stack's ranks schedule apart (TensorRT-LLM, vLLM) and the instance's where they share (SGLang)", "[systemc][serving]") {
  // Eight clients arrive together; an iteration starts one prompt (as trtllm-1.x) and holds 2
  // sequences. Shared by the 4 ranks: the first iteration prefills one prompt. Each rank's:
  // four, one per rank, and the batch holds 8.
  ServingSetup s = moe_setup(1, 4);
  s.workload.requests = 16;
  s.workload.arrivals.concurrency = 8;
  s.scheduler.max_prompts = 1;
  s.scheduler.max_batch = 2;
  const ServingResult shared = run_serving(s);
  s.scheduler.limits_per_rank = true;
  const ServingResult per_rank = run_serving(s);
  REQUIRE(!shared.iterations.empty());
  REQUIRE(!per_rank.iterations.empty());
  CHECK(shared.iterations.front().prefill_sequences == 1);
  CHECK(per_rank.iterations.front().prefill_sequences == 4);
  std::int32_t most_shared = 0, most_per_rank = 0;
  for (const IterationRecord& it : shared.iterations) most_shared = std::max(most_shared, it.prefill_sequences + it.decode_sequences);
  for (const IterationRecord& it : per_rank.iterations) most_per_rank = std::max(most_per_rank, it.prefill_sequences + it.decode_sequences);
  CHECK(most_shared == 2);
  CHECK(most_per_rank == 8);
  // The clients wait less for a first token when every rank takes prompts.
  CHECK(per_rank.summary.ttft_s.mean < shared.summary.ttft_s.mean);
  CHECK(serving_json(per_rank)["limits_per_rank"] == true);
}

TEST_CASE("attention-DP balancing starts prompts when every rank has one: fewer prefill iterations, longer waits for a first token", "[systemc][serving]") {
  // 32 clients over 4 ranks with varied outputs, so that requests end on one rank at a time.
  ServingSetup s = moe_setup(1, 4);
  s.workload.requests = 96;
  s.workload.output = parse_length_distribution("uniform:16:48", "output");
  s.scheduler.limits_per_rank = true;
  s.scheduler.max_batch = 8;
  const ServingResult free = run_serving(s);
  s.scheduler.adp_balance_timeout_iters = 60;
  const ServingResult balanced = run_serving(s);
  auto prefill_iterations = [](const ServingResult& r) {
    std::int64_t n = 0;
    for (const IterationRecord& it : r.iterations) n += it.prefill_sequences > 0 ? 1 : 0;
    return n;
  };
  CHECK(balanced.summary.requests == free.summary.requests);
  CHECK(prefill_iterations(balanced) < prefill_iterations(free) / 2);
  CHECK(balanced.summary.ttft_s.mean > 1.3 * free.summary.ttft_s.mean);  // 1.55x here
  CHECK(balanced.summary.tpot_s.mean < free.summary.tpot_s.mean);
  CHECK(serving_json(balanced)["adp_balance_timeout_iters"] == 60);
  // Without attention DP (one rank) the setting does nothing.
  ServingSetup one = moe_setup(4, 1);
  one.workload.requests = 48;
  const ServingResult plain = run_serving(one);
  one.scheduler.adp_balance_timeout_iters = 60;
  CHECK(iterations_csv(run_serving(one)) == iterations_csv(plain));
}

TEST_CASE("serving refuses expert parallelism on a model without experts and EP degrees the experts do not divide", "[systemc][serving]") {
  ServingSetup dense = serving_setup(4, 2, "64", "4");
  dense.machine.ep = 2;
  CHECK_THROWS_WITH(run_serving(dense), Catch::Contains("has no experts"));
  ServingSetup three = moe_setup(1, 3);
  CHECK_THROWS_WITH(run_serving(three), Catch::Contains("must divide the 8 experts"));
}

TEST_CASE("speculative decoding with expert parallelism: the MTP head's experts spread as the target's, a draft model whole on each rank", "[systemc][serving]") {
  ServingSetup s = moe_setup(1, 2);
  s.workload.output = parse_length_distribution("31", "output");  // 30 after the first: 10 steps of 3
  const ServingResult plain = run_serving(s);
  s.speculative.tokens = 2;
  s.speculative.acceptance = 1;
  const ServingResult mtp = run_serving(s);
  // Every draft accepted: three tokens per target step, and faster per token than without.
  CHECK(mtp.summary.tokens_per_step == 3.0);
  CHECK(mtp.summary.tpot_s.mean < plain.summary.tpot_s.mean);
  CHECK(mtp.summary.draft_share > 0);
  // A dense draft of its own (Mixtral's vocabulary: Mistral-7B) runs on each rank's chips.
  s.speculative.draft = "mistral-7b";
  const ServingResult own = run_serving(s);
  CHECK(own.summary.requests == 96);
  CHECK(own.weights_bytes > mtp.weights_bytes);  // a whole 7B model on every chip
  CHECK(own.summary.draft_share > mtp.summary.draft_share);
}

TEST_CASE("swap preemption with expert parallelism: each rank's chips copy their share of the blocks", "[systemc][serving]") {
  ServingSetup s = moe_setup(1, 2);
  s.kv.admission = "on_demand";
  s.kv.blocks = 40;
  s.kv.preemption = "swap";
  const ServingResult swap = run_serving(s);
  REQUIRE(swap.summary.preemptions > 0);
  CHECK(swap.summary.requests == 96);
  CHECK(swap.summary.swapped_in_tokens == swap.summary.swapped_out_tokens);
  // Per iteration: half the swapped tokens (rounded up) on each rank's chip at the link's rate,
  // plus a fixed cost per copy of half the blocks (rounded up) for each of the 2 layers' keys
  // and values: a whole number of blocks, at least half the tokens' worth.
  const HardwareSpec& hw = swap.hw;
  const double per_token = swap.kv_bytes_per_block / static_cast<double>(s.kv.block_tokens);
  int swapping = 0;
  for (const IterationRecord& it : swap.iterations) {
    const double t = static_cast<double>(it.swap_out_tokens + it.swap_in_tokens);
    if (t == 0) continue;
    ++swapping;
    const double blocks = (it.swap_seconds - std::ceil(t / 2) * per_token / hw.host_link_bandwidth) / (2.0 * 2 * hw.host_link_latency_s);
    CHECK(std::abs(blocks - std::round(blocks)) < 1e-6);
    CHECK(blocks >= t / 2 / static_cast<double>(s.kv.block_tokens) - 1e-6);
  }
  CHECK(swapping > 0);
}

TEST_CASE("disaggregated instances with expert parallelism: each EP rank sends its prompts' KV at once", "[systemc][serving]") {
  auto split = [](std::int64_t ep) {
    ServingSetup s = moe_setup(1, ep);
    s.disaggregation.enabled = true;
    return run_serving(s);
  };
  const ServingResult one = split(1), two = split(2);
  CHECK(two.chips == 2 * one.chips);  // a prefill and a decode instance of 2 EP ranks each
  CHECK(two.summary.requests == 96);
  // The same prompts' KV crosses the fabric (bucketing aside), each rank half of it at once.
  REQUIRE(one.kv_transfers > 0);
  REQUIRE(two.kv_transfers > 0);
  CHECK(two.kv_transfer_bytes == Approx(one.kv_transfer_bytes).epsilon(0.03));
  CHECK(two.kv_transfer_s / static_cast<double>(two.kv_transfers) < one.kv_transfer_s / static_cast<double>(one.kv_transfers));
}
