// Serving on pipeline stages: micro-batches under way at once, each stage taking one at a time,
// and the scheduler keeping a request in one of them. Runs use a 4-layer Llama-3-8B.
#include <catch2/catch.hpp>

#include <cmath>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "experiment/inference.hpp"
#include "serving/scheduler.hpp"
#include "serving/serving.hpp"
#include "tests/serving_test_util.hpp"
#include "tests/test_util.hpp"

using namespace roofsim;
using namespace roofsim::test;

namespace {

std::set<std::int64_t> records(const std::vector<ScheduledWork>& work) {
  std::set<std::int64_t> out;
  for (const ScheduledWork& w : work) out.insert(w.record);
  return out;
}

ServingSetup pipelined(std::int64_t pp, std::int64_t micro_batches, const std::string& prompt, const std::string& output) {
  ServingSetup s = serving_setup(64, 16, prompt, output);
  s.machine.pp = pp;
  s.scheduler.micro_batches = micro_batches;
  return s;
}

}  // namespace

TEST_CASE("micro-batches: a request in flight is not planned again, max_batch limits each, and they complete in any order", "[systemc][serving]") {
  SchedulerConfig c;
  c.max_batch = 2;
  c.micro_batches = 2;
  KvBlockPool pool(1000, 16);
  Scheduler s(c, "reserve", pool);
  for (int i = 0; i < 5; ++i) s.arrive({i, 100, 100, 4, 0, 0, 0});
  const std::vector<ScheduledWork> first = s.plan(), second = s.plan();
  CHECK(records(first) == std::set<std::int64_t>{0, 1});
  CHECK(records(second) == std::set<std::int64_t>{2, 3});  // the first two are in flight
  CHECK(s.running().size() == 4);                           // max_batch x micro_batches
  CHECK(s.plan().empty());                                  // everyone running is in flight; no room for the fifth
  CHECK(s.waiting() == 1);
  // The second completes first; then the first, planned before it, still finds its requests.
  s.complete(second);
  CHECK(s.find(2)->cached == 100);
  CHECK(s.find(0)->cached == 0);
  const std::vector<ScheduledWork> third = s.plan();
  CHECK(records(third) == std::set<std::int64_t>{2, 3});  // decodes of the requests not in flight
  s.complete(first);
  CHECK(s.find(0)->cached == 100);
  CHECK(s.find(0)->generated == 1);
  CHECK(records(s.plan()) == std::set<std::int64_t>{0, 1});
}

TEST_CASE("a pass on pipeline stages gives each stage's part: one after the other, the last ending with the pass", "[systemc][serving]") {
  Experiment e;
  e.model = small_serving_model();
  e.pp = 2;
  const PassSimulator sim(e);
  const PassOutcome o = sim.simulate(mixed_pass({{2, 512, 512, true}, {8, 1, 900, false}}));
  REQUIRE(o.stages.size() == 2);
  CHECK(o.stages[0].begin_s >= 0);
  CHECK(o.stages[0].end_s > o.stages[0].begin_s);
  CHECK(o.stages[1].begin_s >= o.stages[0].end_s);  // the activations come after the first stage is done
  CHECK(o.stages[1].end_s == Approx(o.seconds).epsilon(1e-9));
  // Two layers each (the first stage has the embedding, the last the LM head): neither does most of the pass.
  for (const PassOutcome::StageSpan& st : o.stages) CHECK(st.end_s - st.begin_s < 0.7 * o.seconds);
  Experiment one = e;
  one.pp = 1;
  const PassOutcome single = PassSimulator(one).simulate(mixed_pass({{2, 512, 512, true}, {8, 1, 900, false}}));
  REQUIRE(single.stages.size() == 1);
  CHECK(single.stages[0].end_s == Approx(single.seconds).epsilon(1e-9));
}

TEST_CASE("pipeline stages serve micro-batches at once, each stage one at a time, faster than one batch through all stages", "[systemc][serving]") {
  const ServingResult two = run_serving(pipelined(2, 0, "1024", "16")), one = run_serving(pipelined(2, 1, "1024", "16"));
  // Prompts alone (one output token each: compute-bound passes, two layers a stage) keep both
  // stages busy with two micro-batches; with one through both stages each idles half the time.
  const ServingResult two_prefill = run_serving(pipelined(2, 0, "1024", "1")), one_prefill = run_serving(pipelined(2, 1, "1024", "1"));
  REQUIRE(two.summary.requests == 64);
  std::set<std::int32_t> micro_batches;
  bool overlapped = false;
  for (std::size_t i = 1; i < two.iterations.size(); ++i) {
    const IterationRecord &a = two.iterations[i - 1], &b = two.iterations[i];
    micro_batches.insert(b.micro_batch);
    overlapped = overlapped || b.start_s < a.start_s + a.seconds;
    // No stage takes b before it is done with a (the pass starts after the host's part).
    const PassOutcome &pa = two.shapes[static_cast<std::size_t>(a.shape)].outcome, &pb = two.shapes[static_cast<std::size_t>(b.shape)].outcome;
    for (std::size_t s = 0; s < 2; ++s) {
      const double a_done = a.start_s + (a.seconds - pa.seconds) + pa.stages[s].end_s;
      const double b_takes = b.start_s + (b.seconds - pb.seconds) + pb.stages[s].begin_s;
      CHECK(b_takes >= a_done - 1e-12);
    }
    // They end in the order they started, and never more than two are under way.
    CHECK(b.start_s + b.seconds >= a.start_s + a.seconds);
    if (i >= 2) CHECK(b.start_s >= two.iterations[i - 2].start_s + two.iterations[i - 2].seconds - 1e-12);
  }
  CHECK(overlapped);
  CHECK(micro_batches == std::set<std::int32_t>{0, 1});
  for (const IterationRecord& it : one.iterations) CHECK(it.micro_batch == 0);
  for (std::size_t i = 1; i < one.iterations.size(); ++i) {
    CHECK(one.iterations[i].start_s >= one.iterations[i - 1].start_s + one.iterations[i - 1].seconds);
  }
  INFO("requests/s: two micro-batches " << two_prefill.summary.requests_per_s << ", one " << one_prefill.summary.requests_per_s);
  CHECK(two_prefill.summary.requests_per_s > 1.5 * one_prefill.summary.requests_per_s);
  CHECK(two_prefill.summary.requests_per_s < 2.0 * one_prefill.summary.requests_per_s);  // two stages cannot do more
  CHECK(two.summary.output_tok_s > one.summary.output_tok_s);
  // Each micro-batch holds at most max_batch; all of them together up to max_batch x 2.
  ServingSetup capped = pipelined(2, 0, "256", "64");
  capped.scheduler.max_batch = 4;
  const ServingResult c = run_serving(capped);
  std::int32_t most = 0;
  for (const IterationRecord& it : c.iterations) most = std::max(most, it.prefill_sequences + it.decode_sequences);
  CHECK(most == 4);
}

TEST_CASE("one stage serves as before: micro-batches change nothing without pipeline stages", "[systemc][serving]") {
  const ServingResult a = run_serving(pipelined(1, 0, "512", "32")), b = run_serving(pipelined(1, 1, "512", "32"));
  REQUIRE(a.iterations.size() == b.iterations.size());
  CHECK(a.summary.ttft_s.mean == b.summary.ttft_s.mean);
  CHECK(a.summary.tpot_s.mean == b.summary.tpot_s.mean);
  for (std::size_t i = 1; i < a.iterations.size(); ++i) CHECK(a.iterations[i].start_s >= a.iterations[i - 1].start_s + a.iterations[i - 1].seconds);
}

TEST_CASE("speculative decoding on pipeline stages: the drafts hold the last stage after its part of the pass, and acceptance 1 needs k + 1 times fewer target steps", "[systemc][serving]") {
  // Two micro-batches of at most 8 requests, 64 tokens after the first each.
  ServingSetup base = pipelined(2, 0, "512", "65");
  base.workload.requests = 32;
  base.scheduler.max_batch = 8;
  ServingSetup s = base;
  s.speculative.tokens = 2;
  s.speculative.acceptance = 1;
  const ServingResult accepted = run_serving(s);
  s.speculative.acceptance = 0;
  const ServingResult rejected = run_serving(s);
  const ServingResult plain = run_serving(base);
  REQUIRE(accepted.summary.requests == 32);
  std::int64_t steps = 0;
  bool overlapped = false;
  for (std::size_t i = 0; i < accepted.iterations.size(); ++i) {
    const IterationRecord& b = accepted.iterations[i];
    steps += b.decode_sequences;
    if (b.decode_sequences > 0) CHECK(b.draft_seconds > 0);
    if (i == 0) continue;
    const IterationRecord& a = accepted.iterations[i - 1];
    overlapped = overlapped || b.start_s < a.start_s + a.seconds;
    // Each stage's part of b starts when that stage is done with a; the last stage is done
    // with a only after a's drafts, which end a.
    const PassOutcome &pa = accepted.shapes[static_cast<std::size_t>(a.shape)].outcome, &pb = accepted.shapes[static_cast<std::size_t>(b.shape)].outcome;
    const double a_pass = a.start_s + (a.seconds - pa.seconds - a.draft_seconds), b_pass = b.start_s + (b.seconds - pb.seconds - b.draft_seconds);
    CHECK(b_pass + pb.stages[0].begin_s >= a_pass + pa.stages[0].end_s - 1e-12);
    CHECK(b_pass + pb.stages[1].begin_s >= a.start_s + a.seconds - 1e-12);
  }
  CHECK(overlapped);  // the micro-batches still share the stages
  // Everything accepted: 64 tokens after the first in ceil(64 / 3) = 22 steps instead of 64.
  CHECK(steps == 32 * 22);
  INFO("TPOT plain " << plain.summary.tpot_s.mean << ", acceptance 0 " << rejected.summary.tpot_s.mean << ", acceptance 1 "
                     << accepted.summary.tpot_s.mean);
  // The drafts load the last stage only: on this 4-layer model each MTP pass (a layer and the
  // LM head) is almost as long as the stage's own part, so the stages no longer balance and
  // three times fewer target steps gain far less than without stages.
  CHECK(rejected.summary.tpot_s.mean > 1.5 * plain.summary.tpot_s.mean);
  CHECK(accepted.summary.tpot_s.mean < 0.95 * plain.summary.tpot_s.mean);
  // The MTP head's layer is on the chips.
  CHECK(accepted.weights_bytes > plain.weights_bytes);
  // A draft too large for the chips is named in the refusal.
  s.speculative.draft = "llama-3.1-405b";
  CHECK_THROWS_WITH(run_serving(s), Catch::Contains("with its draft Llama-3.1-405B does not fit"));
}

TEST_CASE("pipeline stages refuse what they do not model yet, naming the settings", "[systemc][serving]") {
  ServingSetup s = pipelined(2, 0, "256", "16");
  s.scheduler.policy = "static";
  CHECK_THROWS_WITH(run_serving(s), Catch::Contains("static scheduler") && Catch::Contains("pipeline stages"));
  s = pipelined(2, -1, "256", "16");
  CHECK_THROWS_WITH(run_serving(s), Catch::Contains("micro_batches must be between 0"));
  s = pipelined(1, 2, "256", "16");  // micro-batches without stages would only take turns on one
  CHECK_THROWS_WITH(run_serving(s), Catch::Contains("micro_batches 2") && Catch::Contains("one stage"));
}

TEST_CASE("swap preemption with pipeline stages: each stage's chips copy their own layers' blocks, all at once", "[systemc][serving]") {
  ServingSetup s = pipelined(2, 0, "uniform:300:600", "uniform:60:120");
  s.workload.requests = 24;
  s.workload.arrivals.concurrency = 12;
  s.kv.admission = "on_demand";
  s.kv.blocks = 120;
  s.kv.preemption = "swap";
  const ServingResult swap = run_serving(s);
  REQUIRE(swap.summary.preemptions > 0);
  CHECK(swap.summary.swapped_in_tokens == swap.summary.swapped_out_tokens);
  // A chip's bytes (its stage's layers, kv_bytes_per_block) at the link's rate, plus a fixed
  // cost per block of each of its stage's 2 layers' keys and values: a whole number of blocks.
  const HardwareSpec& hw = swap.hw;
  const double per_token = swap.kv_bytes_per_block / static_cast<double>(s.kv.block_tokens);
  const double tokens = static_cast<double>(swap.summary.swapped_out_tokens + swap.summary.swapped_in_tokens);
  double waited = 0;
  for (const IterationRecord& it : swap.iterations) waited += it.swap_seconds;
  const double blocks = (waited - tokens * per_token / hw.host_link_bandwidth) / (2.0 * 2 * hw.host_link_latency_s);
  CHECK(blocks >= tokens / static_cast<double>(s.kv.block_tokens) - 1e-6);
  CHECK(blocks <= tokens / static_cast<double>(s.kv.block_tokens) + 2.0 * static_cast<double>(swap.summary.preemptions) + 1e-6);
  CHECK(std::abs(blocks - std::round(blocks)) < 1e-6);
}
