// Serving: requests over time, continuous batching, the KV cache and the iteration shapes, on
// the simulated chip. Most cases use a 4-layer Llama-3-8B so that each runs in about a second.
#include <catch2/catch.hpp>
#include <filesystem>

#include <set>

#include "core/error.hpp"
#include "experiment/inference.hpp"
#include "serving/case_models.hpp"
#include "serving/harness_recipes.hpp"
#include "serving/report.hpp"
#include "serving/scheduler.hpp"
#include "serving/serving.hpp"
#include "serving/serving_cases.hpp"
#include "tests/serving_test_util.hpp"
#include "tests/test_util.hpp"
#include "workloads/transformer.hpp"

using namespace roofsim;
using namespace roofsim::test;


TEST_CASE("a mixed pass does the FLOPs of its parts and reads the weights once", "[systemc][serving]") {
  const ModelConfig m = load_model("llama-3-8b");
  const Precision p;
  const OpGraph prefill = build_forward(m, prefill_pass(1, 512), p, AttentionImpl::fused);
  const OpGraph decode = build_forward(m, decode_pass(8, 1000, 23), p, AttentionImpl::fused);
  const ForwardPass dec = decode_pass(8, 1000, 23);
  const OpGraph mixed =
      build_forward(m, mixed_pass({{1, 512, 512, true}, {8, 1, dec.context, false}}), p, AttentionImpl::fused);
  CHECK(mixed.total_flops() == Approx(prefill.total_flops() + decode.total_flops()).epsilon(1e-9));
  // The weights (about 16 GB) are read by each pass alone, once by the mixed one.
  CHECK(mixed.total_bytes() < prefill.total_bytes() + decode.total_bytes() - 14e9);
  CHECK(mixed.total_bytes() > std::max(prefill.total_bytes(), decode.total_bytes()));
  // A chunk of a prompt attends to the earlier tokens: more work than the same tokens alone.
  const OpGraph chunk = build_forward(m, mixed_pass({{1, 256, 512, true}}), p, AttentionImpl::fused);
  const OpGraph alone = build_forward(m, mixed_pass({{1, 256, 256, true}}), p, AttentionImpl::fused);
  CHECK(chunk.total_flops() > alone.total_flops());
  CHECK_THROWS_AS(mixed_pass({{1, 512, 100, true}}), InputError);  // context shorter than the chunk
  CHECK_THROWS_AS(mixed_pass({}), InputError);
}

TEST_CASE("bucketing rounds to about 32 values per doubling", "[systemc][serving]") {
  CHECK(bucket_tokens(17, 32) == 17);
  CHECK(bucket_tokens(1000, 0) == 1000);
  for (std::int64_t v : {33, 100, 1000, 1023, 1025, 4097, 123457}) {
    const std::int64_t b = bucket_tokens(v, 32);
    INFO(v << " -> " << b);
    CHECK(std::abs(static_cast<double>(b - v)) <= 0.016 * static_cast<double>(v) + 0.5);
  }
  CHECK(bucket_tokens(1000, 32) == bucket_tokens(1001, 32));  // neighbours share a bucket
}

TEST_CASE("the scheduler keeps to the token budget, the batch limit and first come first served", "[systemc][serving]") {
  SchedulerConfig c;
  c.max_tokens = 2048;
  c.max_batch = 3;
  KvBlockPool pool(1000, 16);
  Scheduler s(c, KvCacheConfig::Admission::reserve, pool);
  for (int i = 0; i < 5; ++i) s.arrive({i, 1000, 1000, 4, 0, 0, 0});
  std::vector<ScheduledWork> w = s.plan();
  REQUIRE(w.size() == 2);  // two whole prompts fit 2048 tokens, a third does not
  CHECK(pool.used() == 2 * pool.blocks_for(1004));  // prompt and output reserved
  s.complete(w);
  w = s.plan();  // two decodes, and the third prompt (2 + 1000 tokens); the batch is then full
  REQUIRE(w.size() == 3);
  CHECK(!w[0].prefill);
  CHECK(w[2].prefill);
  CHECK(s.running().size() == 3);
  CHECK(s.waiting() == 2);
}

TEST_CASE("a prompt limit starts at most that many new requests per iteration", "[systemc][serving]") {
  // Three 1000-token prompts, which the default budget of 8192 tokens could start together;
  // the first two iterations' work under a limit.
  auto two_iterations = [](std::int64_t max_prompts) {
    SchedulerConfig config;
    config.max_prompts = max_prompts;
    KvBlockPool blocks(1000, 16);
    Scheduler scheduler(config, KvCacheConfig::Admission::reserve, blocks);
    for (int id = 0; id < 3; ++id) scheduler.arrive({id, 1000, 1000, 4, 0, 0, 0});
    std::vector<std::vector<ScheduledWork>> planned{scheduler.plan()};
    scheduler.complete(planned[0]);
    planned.push_back(scheduler.plan());
    return planned;
  };
  const auto one = two_iterations(1);
  REQUIRE(one[0].size() == 1);
  CHECK(one[0][0].prefill);
  REQUIRE(one[1].size() == 2);  // the first request's decode, then the second prompt
  CHECK_FALSE(one[1][0].prefill);
  CHECK(one[1][1].prefill);
  CHECK(two_iterations(0)[0].size() == 3);  // no limit: all three start at once
}

TEST_CASE("batch waiting holds new prompts while decodes run, until enough tokens wait or the iterations run out", "[systemc][serving]") {
  // One request decoding, then a 100-token prompt arrives; the budget is 1000 tokens. Returns the
  // number of plans before the prompt starts (0: at once).
  auto plans_before_prompt = [](std::int64_t iters, double ratio, std::int64_t prompt, bool with_decode) {
    SchedulerConfig config;
    config.max_tokens = 1000;
    config.batch_wait_iters = iters;
    config.batch_wait_tokens_ratio = ratio;
    KvBlockPool blocks(1000, 16);
    Scheduler scheduler(config, KvCacheConfig::Admission::reserve, blocks);
    if (with_decode) {
      scheduler.arrive({0, 50, 50, 1000, 0, 0, 0});
      scheduler.complete(scheduler.plan());  // its prompt, alone: nothing decodes yet, nothing is held
    }
    scheduler.arrive({1, prompt, prompt, 4, 0, 0, 0});
    for (int held = 0; held < 100; ++held) {
      const std::vector<ScheduledWork> w = scheduler.plan();
      const bool started = std::any_of(w.begin(), w.end(), [](const ScheduledWork& x) { return x.record == 1 && x.prefill; });
      if (with_decode) REQUIRE(std::any_of(w.begin(), w.end(), [](const ScheduledWork& x) { return !x.prefill; }));
      scheduler.complete(w);
      if (started) return held;
    }
    return -1;
  };
  CHECK(plans_before_prompt(3, 0.9, 100, true) == 3);    // held three iterations, started in the fourth
  CHECK(plans_before_prompt(20, 0.9, 100, true) == 20);
  CHECK(plans_before_prompt(3, 0.9, 900, true) == 0);    // 900 + 1 decode reach 0.9 x 1000: no wait
  CHECK(plans_before_prompt(3, 0.9, 100, false) == 0);   // nothing decoding: no wait (TensorRT-LLM's dead-wait guard)
  CHECK(plans_before_prompt(0, 0.9, 100, true) == 0);    // off
  CHECK(plans_before_prompt(3, 0.0, 100, true) == 0);    // the ratio alone, or the iterations alone, hold nothing
}

TEST_CASE("on-demand admission preempts the newest request when the cache runs out, and recomputes it", "[systemc][serving]") {
  SchedulerConfig c;
  KvBlockPool pool(6, 16);
  Scheduler s(c, KvCacheConfig::Admission::on_demand, pool);
  s.arrive({0, 32, 32, 100, 0, 0, 0});
  s.arrive({1, 32, 32, 100, 0, 0, 0});
  std::vector<ScheduledWork> w = s.plan();
  REQUIRE(w.size() == 2);
  CHECK(pool.used() == 4);
  s.complete(w);
  std::size_t steps = 0;
  while (s.preempted().empty() && steps++ < 100) s.complete(s.plan());
  REQUIRE(s.preempted().size() == 1);
  CHECK(s.preempted()[0] == 1);  // the newer one gave way
  CHECK(s.running().size() == 1);
  CHECK(s.waiting() == 1);
}

TEST_CASE("swap preemption copies a preempted request's cache out and back, and never recomputes it", "[systemc][serving]") {
  SchedulerConfig c;
  KvBlockPool pool(6, 16);
  Scheduler s(c, KvCacheConfig::Admission::on_demand, pool, false, KvCacheConfig::Preemption::swap);
  // 72 tokens each (5 blocks of 16): one fits the 6 blocks, both do not.
  s.arrive({0, 32, 32, 40, 0, 0, 0});
  s.arrive({1, 32, 32, 40, 0, 0, 0});
  std::size_t steps = 0;
  while (s.preempted().empty() && steps++ < 100) s.complete(s.plan());
  REQUIRE(s.preempted().size() == 1);
  // Request 1 had its 32 prompt tokens and its output so far cached: all go out.
  const Scheduler::SwapTraffic out = s.take_swap_traffic();
  CHECK(out.out_tokens >= 33);
  CHECK(out.out_blocks == pool.blocks_for(out.out_tokens));
  CHECK(out.in_tokens == 0);
  // Once request 0 finishes, request 1 comes back as a decode (no prefill), with the same tokens.
  Scheduler::SwapTraffic back;
  bool prefilled_again = false;
  for (steps = 0; steps < 300 && s.running().size() + s.waiting() > 0; ++steps) {
    const std::vector<ScheduledWork> w = s.plan();
    for (const ScheduledWork& x : w) prefilled_again = prefilled_again || x.prefill;
    const Scheduler::SwapTraffic t = s.take_swap_traffic();
    back.in_tokens += t.in_tokens;
    back.out_tokens += t.out_tokens;
    s.complete(w);
  }
  CHECK(s.running().size() + s.waiting() == 0);  // both finished
  CHECK_FALSE(prefilled_again);
  CHECK(back.in_tokens == out.out_tokens + back.out_tokens);
}

TEST_CASE("swap preemption: no prompt is computed twice, and the iterations wait for exactly their copies", "[systemc][serving]") {
  ServingSetup s = serving_setup(24, 12, "uniform:300:600", "uniform:60:120");
  s.kv.admission = KvCacheConfig::Admission::on_demand;
  s.kv.blocks = 120;
  const ServingResult recompute = run_serving(s);
  s.kv.preemption = KvCacheConfig::Preemption::swap;
  const ServingResult swap = run_serving(s);
  REQUIRE(recompute.summary.preemptions > 0);
  REQUIRE(swap.summary.preemptions > 0);
  std::int64_t prompts = 0;
  for (const RequestRecord& q : swap.requests) prompts += q.spec.prompt_tokens;
  auto prefilled = [](const ServingResult& r) {
    std::int64_t n = 0;
    for (const IterationRecord& it : r.iterations) n += it.prefill_tokens;
    return n;
  };
  CHECK(prefilled(recompute) > prompts);  // recompute prefills the preempted again
  CHECK(prefilled(swap) == prompts);
  CHECK(swap.summary.swapped_out_tokens > 0);
  CHECK(swap.summary.swapped_in_tokens == swap.summary.swapped_out_tokens);
  CHECK(recompute.summary.swapped_out_tokens == 0);
  // The copies: their bytes at the host link's rate, plus a fixed cost per block of each layer's
  // keys and of its values, for between tokens / block_tokens and that plus two per preemption blocks.
  const HardwareSpec& hw = swap.hw;
  const double per_token = swap.kv_bytes_per_block / static_cast<double>(s.kv.block_tokens);
  const double tokens = static_cast<double>(swap.summary.swapped_out_tokens + swap.summary.swapped_in_tokens);
  double waited = 0;
  for (const IterationRecord& it : swap.iterations) waited += it.swap_seconds;
  const double copy_s = 2.0 * 4 * hw.host_link_latency_s;  // 4 layers, keys and values
  const double fixed = waited - tokens * per_token / hw.host_link_bandwidth;
  const double blocks = fixed / copy_s;
  CHECK(blocks >= tokens / static_cast<double>(s.kv.block_tokens) - 1e-6);
  CHECK(blocks <= tokens / static_cast<double>(s.kv.block_tokens) + 2.0 * static_cast<double>(swap.summary.preemptions) + 1e-6);
  CHECK(std::abs(blocks - std::round(blocks)) < 1e-6);
  // Refused where it cannot run.
  ServingSetup no_link = s;
  no_link.machine.hw = "a100_sxm4_80gb";
  CHECK_THROWS_WITH(run_serving(no_link), Catch::Contains("no host link") && Catch::Contains("host.link_gb_per_s"));
  ServingSetup static_batch = s;
  static_batch.scheduler.policy = SchedulerConfig::Policy::static_batch;
  CHECK_THROWS_WITH(run_serving(static_batch), Catch::Contains("static scheduler"));
}

TEST_CASE("continuous batching beats static batching on throughput for mixed lengths", "[systemc][serving]") {
  ServingSetup s = serving_setup(48, 16, "uniform:64:512", "uniform:8:128");
  const ServingResult continuous = run_serving(s);
  s.scheduler.policy = SchedulerConfig::Policy::static_batch;
  s.scheduler.max_batch = 16;
  const ServingResult static_batches = run_serving(s);
  INFO("continuous " << continuous.summary.output_tok_s << " tok/s, static " << static_batches.summary.output_tok_s);
  CHECK(continuous.summary.output_tok_s > 1.2 * static_batches.summary.output_tok_s);
  for (const ServingResult* r : {&continuous, &static_batches}) {
    CHECK(r->summary.requests == 48);
    // No iteration beats the analytic roofline bound of its pass.
    for (const IterationShape& shape : r->shapes) {
      CHECK(shape.outcome.bound_s > 0);
      CHECK(shape.outcome.seconds >= shape.outcome.bound_s);
    }
    CHECK(r->summary.roofline_share > 0.3);
    CHECK(r->summary.roofline_share <= 1.0);
    for (const RequestRecord& q : r->requests) {
      CHECK(q.first_token_s > q.arrival_s);
      CHECK(q.finish_s >= q.first_token_s);
    }
  }
}

TEST_CASE("a larger KV cache never lowers throughput", "[systemc][serving]") {
  ServingSetup s = serving_setup(40, 32, "uniform:128:512", "uniform:32:128");
  s.kv.admission = KvCacheConfig::Admission::on_demand;
  s.kv.block_tokens = 16;
  double previous = 0;
  std::int64_t previous_preemptions = -1;
  for (std::int64_t blocks : {48, 96, 192, 768, 4096}) {
    s.kv.blocks = blocks;
    const ServingResult r = run_serving(s);
    INFO(blocks << " blocks: " << r.summary.output_tok_s << " tok/s, " << r.summary.preemptions << " preemptions");
    CHECK(r.summary.output_tok_s >= previous);
    if (previous_preemptions >= 0) CHECK(r.summary.preemptions <= previous_preemptions);
    previous = r.summary.output_tok_s;
    previous_preemptions = r.summary.preemptions;
  }
  CHECK(previous_preemptions == 0);
}

TEST_CASE("the same seed gives byte-identical results, another seed does not", "[systemc][serving]") {
  ServingSetup s = serving_setup(30, 8, "normal:300:100", "lognormal:40:20");
  s.workload.arrivals.kind = Arrivals::Kind::poisson;
  s.workload.arrivals.rate_per_s = 20;
  const ServingResult a = run_serving(s), b = run_serving(s);
  CHECK(requests_csv(a) == requests_csv(b));
  CHECK(iterations_csv(a) == iterations_csv(b));
  s.workload.seed = 2;
  CHECK(requests_csv(run_serving(s)) != requests_csv(a));
}

TEST_CASE("bucketed iteration shapes stay within 2% of exact ones", "[systemc][serving]") {
  ServingSetup s = serving_setup(24, 8, "uniform:100:400", "uniform:16:48");
  const ServingResult bucketed = run_serving(s);
  s.buckets_per_octave = 0;
  const ServingResult exact = run_serving(s);
  INFO("shapes simulated: bucketed " << bucketed.shapes.size() << ", exact " << exact.shapes.size());
  CHECK(bucketed.shapes.size() < exact.shapes.size());
  CHECK(bucketed.summary.ttft_s.mean == Approx(exact.summary.ttft_s.mean).epsilon(0.02));
  CHECK(bucketed.summary.tpot_s.mean == Approx(exact.summary.tpot_s.mean).epsilon(0.02));
  CHECK(bucketed.summary.output_tok_s == Approx(exact.summary.output_tok_s).epsilon(0.02));
}

TEST_CASE("a pass sampled by layer takes what simulating every layer takes", "[systemc][serving]") {
  // Layer replay (components/layer_replay.hpp) is exact: the sampled pass is the simulated one
  // to the last bit. Checked on one chip and on two (collectives on the fabric), for a decode
  // pass and a mixed one.
  for (const std::int64_t tp : {1, 2}) {
    Experiment e;
    e.tp = tp;
    const PassSimulator sim(e);
    for (const ForwardPass& pass : {mixed_pass({{48, 1, 900, false}}), mixed_pass({{1, 700, 700, true}, {20, 1, 1300, false}})}) {
      const PassOutcome all = sim.simulate(pass), sampled = sim.simulate_sampled(pass);
      INFO("tp " << tp << ", " << pass.groups.size() << " groups");
      CHECK(sampled.seconds == all.seconds);
      CHECK(sampled.flops == all.flops);
      CHECK(sampled.bytes == all.bytes);
      CHECK(sampled.comm_s == all.comm_s);
      CHECK(sampled.events == all.events);
      CHECK(sampled.server_jobs == all.server_jobs);
      CHECK(sampled.bound_s == all.bound_s);
      CHECK(all.seconds >= all.bound_s);
      CHECK(all.bound_s > 0);
      CHECK((tp == 1 || sampled.comm_s > 0));
      CHECK(sampled.wall_s < all.wall_s);
    }
  }
}

TEST_CASE("a verifying decode group does k + 1 tokens' linear work and logits on one read of the weights", "[systemc][serving]") {
  const ModelConfig m = load_model("llama-3-8b");
  const Precision p;
  const OpGraph one = build_forward(m, mixed_pass({{8, 1, 1003, false}}), p, AttentionImpl::fused);
  const OpGraph four = build_forward(m, mixed_pass({{8, 4, 1003, false}}), p, AttentionImpl::fused);
  // Every op does the work of 4 tokens, logits included; attention reads the same keys for 4
  // queries and the weights are read once.
  CHECK(four.total_flops() == Approx(4.0 * one.total_flops()).epsilon(1e-12));
  CHECK(four.total_bytes() < 1.05 * one.total_bytes());
  CHECK_THROWS_AS(mixed_pass({{8, kMaxVerifyTokens + 1, 2000, false}}), InputError);
}

namespace {

std::int64_t target_decode_steps(const ServingResult& r) {
  std::int64_t steps = 0;
  for (const IterationRecord& it : r.iterations) steps += it.decode_sequences;
  return steps;
}

double target_seconds(const ServingResult& r) {
  double s = 0;
  for (const IterationRecord& it : r.iterations) s += it.seconds - it.draft_seconds;
  return s;
}

}  // namespace

TEST_CASE("speculative decoding: acceptance 0 is slower than none, acceptance 1 needs k + 1 times fewer target steps", "[systemc][serving]") {
  ServingSetup s = serving_setup(16, 8, "300", "65");
  const ServingResult plain = run_serving(s);
  s.speculative.tokens = 3;
  s.speculative.acceptance = 0;
  const ServingResult rejected = run_serving(s);
  s.speculative.acceptance = 1;
  const ServingResult accepted = run_serving(s);
  INFO("TPOT plain " << plain.summary.tpot_s.mean << ", acceptance 0 " << rejected.summary.tpot_s.mean << ", acceptance 1 "
                     << accepted.summary.tpot_s.mean);
  // Nothing accepted: the same steps, each with the drafts' passes and a 4-token verification.
  CHECK(target_decode_steps(rejected) == target_decode_steps(plain));
  CHECK(rejected.summary.tokens_per_step == 1.0);
  CHECK(rejected.summary.tpot_s.mean > 1.1 * plain.summary.tpot_s.mean);
  CHECK(rejected.summary.draft_share > 0.05);
  // Everything accepted: 64 tokens after the first in ceil(64 / 4) = 16 steps instead of 64.
  CHECK(target_decode_steps(plain) == 16 * 64);
  CHECK(target_decode_steps(accepted) == 16 * 16);
  CHECK(accepted.summary.tokens_per_step == 4.0);
  // The target's passes take well under half the time (4-token verifications cost a little
  // more than 1-token steps); the MTP head, as large as one of this 4-layer model's layers
  // plus the LM head, takes back part of the gain.
  CHECK(target_seconds(accepted) < 0.5 * target_seconds(plain));
  CHECK(accepted.summary.tpot_s.mean < 0.75 * plain.summary.tpot_s.mean);
  // Verifying 4 tokens per weight read moves decode right on the roofline.
  CHECK(accepted.summary.decode_intensity > 3.5 * plain.summary.decode_intensity);
  // The MTP head's layer takes memory from the KV cache.
  CHECK(accepted.kv_blocks < plain.kv_blocks);
}

TEST_CASE("speculative decoding keeps drafts up to the first rejection, at the chances given", "[systemc][serving]") {
  ServingSetup s = serving_setup(24, 8, "200", "uniform:100:200");
  s.speculative.tokens = 3;
  s.speculative.acceptance = 0.6;
  const ServingResult rate = run_serving(s);
  // Positions independent: 1 + a + a^2 + a^3 tokens per step (the last steps of a request are
  // cut to what it still wants, a little less).
  const double expected = 1 + 0.6 + 0.36 + 0.216;
  CHECK(rate.summary.tokens_per_step == Approx(expected).epsilon(0.06));
  s.speculative.position_acceptance = {0.9, 0.5, 0.1};
  const ServingResult positions = run_serving(s);
  CHECK(positions.summary.tokens_per_step == Approx(1 + 0.9 + 0.45 + 0.045).epsilon(0.06));
  // Every request still gets exactly its tokens, and the same seed the same draws.
  std::int64_t outputs = 0, produced = 0;
  for (const RequestRecord& q : positions.requests) {
    CHECK(q.finish_s > q.first_token_s);
    outputs += q.spec.output_tokens;
  }
  for (const IterationRecord& it : positions.iterations) produced += it.decode_tokens;
  CHECK(produced + static_cast<std::int64_t>(positions.requests.size()) == outputs);  // first tokens come from prefill
  CHECK(requests_csv(run_serving(s)) == requests_csv(positions));
  s.speculative.position_acceptance = {0.9, 0.5};
  CHECK_THROWS_AS(run_serving(s), InputError);
}

TEST_CASE("disaggregation moves each prompt's KV cache over the links, from prefill to decode instances", "[systemc][serving]") {
  ServingSetup s = serving_setup(24, 8, "uniform:200:600", "uniform:8:40");
  s.buckets_per_octave = 0;  // transfers of the exact token counts
  s.disaggregation.enabled = true;
  s.disaggregation.prefill_tp = 2;  // heads split 2 ways, needed 4 ways: every prefill chip sends to two
  s.disaggregation.decode_tp = 4;
  s.disaggregation.decode_instances = 2;
  const ServingResult r = run_serving(s);
  CHECK(r.chips == 2 + 2 * 4);
  double expected = 0;
  for (const RequestRecord& q : r.requests) {
    expected += static_cast<double>(q.spec.prompt_tokens) * r.model.kv_bytes_per_token(s.machine.precision.kv);
    // The first token comes from the prefill instance; the rest after the KV cache arrived.
    CHECK(q.first_token_s > q.arrival_s);
    CHECK(q.kv_arrival_s > q.first_token_s);
    CHECK(q.finish_s > q.kv_arrival_s);
  }
  CHECK(r.kv_transfer_bytes == Approx(expected).epsilon(1e-9));
  CHECK(r.kv_link_bytes == Approx(2 * expected).epsilon(1e-9));  // up into the switch and down out of it
  CHECK(r.kv_transfers > 0);
  CHECK(r.kv_transfer_s > 0);
  // Prefill instances (workers 0) only prefill, decode instances (1 and 2) only decode, and both
  // decode instances get work.
  std::set<int> decoders;
  for (const IterationRecord& it : r.iterations) {
    if (it.worker == 0) {
      CHECK(it.decode_sequences == 0);
    } else {
      CHECK(it.prefill_sequences == 0);
      decoders.insert(it.worker);
    }
  }
  CHECK(decoders == std::set<int>{1, 2});
  CHECK(requests_csv(run_serving(s)) == requests_csv(r));
}

TEST_CASE("disaggregation as Dynamo serves it: instances in turn, the first token from the decode instance", "[systemc][serving]") {
  // Four clients, two decode instances of one slot each: two requests decode while two wait.
  ServingSetup s = serving_setup(24, 4, "512", "64");
  s.disaggregation.enabled = true;
  s.disaggregation.decode_instances = 2;
  s.scheduler.max_batch = 1;
  auto mean_ttft = [](const ServingResult& r) {
    double t = 0;
    for (const RequestRecord& q : r.requests) t += q.ttft_s();
    return t / static_cast<double>(r.requests.size());
  };
  const ServingResult from_prefill = run_serving(s);
  s.disaggregation.first_token = DisaggregationConfig::FirstToken::decode;
  const ServingResult from_decode = run_serving(s);
  // The same run; only when the client hears of it differs: the requests that wait for a decode
  // slot wait for their first token, about one request's decoding for half of them.
  REQUIRE(from_decode.requests.size() == from_prefill.requests.size());
  double decoding = 0;
  for (std::size_t i = 0; i < from_decode.requests.size(); ++i) {
    const RequestRecord &a = from_prefill.requests[i], &b = from_decode.requests[i];
    CHECK(b.finish_s == Approx(a.finish_s));
    CHECK(b.first_token_s >= a.first_token_s);
    CHECK(b.first_token_s >= b.kv_arrival_s);
    decoding += a.finish_s - a.kv_arrival_s;
  }
  decoding /= static_cast<double>(from_decode.requests.size());
  CHECK(mean_ttft(from_decode) > mean_ttft(from_prefill) + 0.3 * decoding);
  // A decode instance that first responds in its 10th iteration with a request: 9 steps later.
  s.disaggregation.decode_first_response = 10;
  const ServingResult tenth = run_serving(s);
  for (std::size_t i = 0; i < tenth.requests.size(); ++i) {
    // 63 decode steps after the prefill's token, one request per instance: back to back once it
    // has its slot, the first ending with the first token.
    const RequestRecord &q = tenth.requests[i], &p = from_decode.requests[i];
    const double step = (p.finish_s - p.first_token_s) / 62.0;
    CHECK(q.first_token_s - p.first_token_s == Approx(9 * step).epsilon(0.05));
  }
  // In turn: with one slot per instance, a request may land on the busy one while the other
  // idles, where the least loaded never waits behind a busy instance with an idle one beside it.
  s.disaggregation.decode_first_response = 1;
  s.workload.output = parse_length_distribution("uniform:16:112", "output");
  const ServingResult least = run_serving(s);
  s.disaggregation.routing = DisaggregationConfig::Routing::round_robin;
  const ServingResult turns = run_serving(s);
  CHECK(mean_ttft(turns) > mean_ttft(least));
  std::set<int> decoders;
  for (const IterationRecord& it : turns.iterations) {
    if (it.decode_sequences > 0) decoders.insert(it.worker);
  }
  CHECK(decoders == std::set<int>{1, 2});
}

TEST_CASE("disaggregation: the prefill instances keep their own batch and token limits", "[systemc][serving]") {
  ServingSetup s = serving_setup(16, 8, "256", "8");
  s.disaggregation.enabled = true;
  s.scheduler.max_batch = 8;
  s.disaggregation.prefill_max_batch = 2;
  const ServingResult r = run_serving(s);
  int most = 0;
  for (const IterationRecord& it : r.iterations) {
    if (it.worker == 0) most = std::max(most, static_cast<int>(it.prefill_sequences));
  }
  CHECK(most == 2);
  // A whole prompt must fit the prefill instances' budget when prompts are not chunked.
  s.disaggregation.prefill_max_tokens = 128;
  CHECK_THROWS_WITH(run_serving(s), Catch::Contains("prefill_max_tokens budget of 128"));
  // An iteration to respond in means nothing while the prefill instance gives the first token.
  s.disaggregation.prefill_max_tokens = 0;
  s.disaggregation.decode_first_response = 3;
  CHECK_THROWS_WITH(run_serving(s), Catch::Contains("first_token decode too"));
}

TEST_CASE("disaggregation sends a sliding-window model's capped cache and not every token's KV of every layer", "[systemc][serving]") {
  ServingSetup s = serving_setup(6, 2, "uniform:600:900", "uniform:4:8");
  // Llama-3-8B's layer, 4 of them, every second one sliding over 256 tokens.
  s.machine.model = write_temp(replace_once(replace_once(preset_text("models", "llama-3-8b"), "layers = 32", "layers = 4"),
                                            "[model]", "[model]\nsliding_window = 256\nglobal_every = 2"),
                               "model");
  s.buckets_per_octave = 0;
  s.disaggregation.enabled = true;
  const ServingResult r = run_serving(s);
  const DType kv = s.machine.precision.kv;
  double capped = 0, uncapped = 0;
  for (const RequestRecord& q : r.requests) {
    capped += r.model.kv_cache_bytes(kv, q.spec.prompt_tokens);
    uncapped += static_cast<double>(q.spec.prompt_tokens) * r.model.kv_bytes_per_token(kv);
  }
  REQUIRE(capped < 0.75 * uncapped);  // two of the four layers keep 256 of 600-900 tokens
  // Whole tokens of every layer's KV: at most one token's more per request.
  CHECK(r.kv_transfer_bytes >= capped);
  CHECK(r.kv_transfer_bytes <= capped + 6 * r.model.kv_bytes_per_token(kv));
}

namespace {

// 24 requests 50 ms apart, each of 3 prefixes of 256 tokens in turn, prompts of 300-369 tokens.
std::string shared_prefix_trace() {
  std::string csv = "arrival_s,prompt_tokens,output_tokens,prefix_id,prefix_tokens\n";
  for (int i = 0; i < 24; ++i) {
    csv += std::to_string(0.05 * i) + "," + std::to_string(300 + 3 * i) + ",16," + std::to_string(i % 3) + ",256\n";
  }
  return write_temp(csv, "trace.csv");
}

}  // namespace

TEST_CASE("prefix caching computes a shared prefix once and evicts unused prefixes when the cache is full", "[systemc][serving]") {
  ServingSetup s = serving_setup(24, 4, "300", "16");
  s.workload.arrivals.kind = Arrivals::Kind::trace;
  s.workload.trace_path = shared_prefix_trace();
  const ServingResult plain = run_serving(s);
  s.kv.prefix_caching = true;
  const ServingResult cached = run_serving(s);
  auto prefill_tokens = [](const ServingResult& r) {
    std::int64_t n = 0;
    for (const IterationRecord& it : r.iterations) n += it.prefill_tokens;
    return n;
  };
  std::int64_t prompts = 0;
  for (const RequestRecord& q : plain.requests) prompts += q.spec.prompt_tokens;
  CHECK(plain.prefix_hits == 0);
  CHECK(prefill_tokens(plain) == prompts);
  // Each prefix is computed by its first request; the other 21 reuse its 8 blocks of 32.
  CHECK(cached.prefix_hits == 21);
  CHECK(cached.prefix_tokens_reused == 21 * 256);
  CHECK(prefill_tokens(cached) == prompts - 21 * 256);
  CHECK(cached.summary.ttft_s.mean < plain.summary.ttft_s.mean);
  CHECK(cached.prefix_evictions == 0);
  // A cache of 20 blocks holds one request (11-12 blocks) and one other prefix (8) at most:
  // unused prefixes are evicted instead of refusing work, and every request still finishes.
  s.kv.blocks = 20;
  s.kv.admission = KvCacheConfig::Admission::on_demand;
  const ServingResult tight = run_serving(s);
  CHECK(tight.prefix_evictions > 0);
  CHECK(tight.prefix_hits < cached.prefix_hits);
  for (const RequestRecord& q : tight.requests) CHECK(q.finish_s > q.first_token_s);
  CHECK(requests_csv(run_serving(s)) == requests_csv(tight));
}

TEST_CASE("chunked prefill serves prompts longer than the token budget", "[systemc][serving]") {
  ServingSetup s = serving_setup(6, 3, "3000", "8");
  s.scheduler.max_tokens = 1024;
  CHECK_THROWS_WITH(run_serving(s), Catch::Contains("exceeds the max_tokens budget"));
  s.scheduler.chunked_prefill = true;
  const ServingResult r = run_serving(s);
  CHECK(r.summary.requests == 6);
  for (const IterationRecord& it : r.iterations) CHECK(it.prefill_tokens + it.decode_sequences <= 1024);
}

TEST_CASE("requests the machine cannot serve are refused with what is wrong", "[systemc][serving]") {
  ServingSetup s = serving_setup(4, 2, "1000", "100");
  s.kv.blocks = 10;
  CHECK_THROWS_WITH(run_serving(s), Catch::Contains("KV blocks") && Catch::Contains("request 0"));
  s = serving_setup(4, 2, "8000", "500");
  s.scheduler.max_tokens = 16384;
  CHECK_THROWS_WITH(run_serving(s), Catch::Contains("maximum context"));
  s = serving_setup(4, 2, "100", "10");
  s.warmup_requests = 4;
  CHECK_THROWS_WITH(run_serving(s), Catch::Contains("leaves none"));
}

TEST_CASE("measured TensorRT-LLM serving runs: every 16th row, TPOT within 8%, requests/s within 11% and TTFT at concurrency 8-32 within 50% mean absolute error", "[validation][serving]") {
  // validation/serving: Llama-3.1-8B on H100, concurrency 8-128, TP 1-8. Session 33 removed the
  // server slot held back from new requests (fitted on this file, it did not transfer to any
  // other group: docs/serving.md, "Every row runs"): at concurrency 8-32 these runs measure
  // one completion interval more TTFT than roofsim gives (TTFT 7.5% -> 44.6% on this sample).
  // Session 34 dropped the one prompt per iteration chosen on this file (TensorRT-LLM has no
  // such limit; over all 909 rows TTFT 64.9 -> 61.0%, TPOT 28.1 -> 27.6%): the TP 4-8 runs at
  // concurrency 128 now prefill several prompts per eager iteration and serve more requests/s
  // than measured (this sample: requests/s 5.4 -> 9.8%, TPOT 5.6 -> 7.7%; the gate on
  // requests/s moved from 8 to 11% with it, docs/serving.md).
  const std::vector<ServingCase> all = load_serving_cases(std::string(ROOFSIM_CONFIG_DIR) + "/../validation/serving/h100_llama31_8b_trtllm.csv");
  REQUIRE(all.size() == 177);
  std::vector<ServingCase> sample;
  for (std::size_t i = 0; i < all.size(); i += 16) sample.push_back(all[i]);
  double tpot_ape = 0, ttft_ape = 0, requests_ape = 0;
  int low_concurrency = 0;
  for (const ServingCaseResult& r : run_serving_cases(sample, ServingCaseSettings{})) {
    INFO(r.c.id << ": TPOT " << r.tpot_s << " s against " << r.c.tpot_s << ", TTFT " << r.ttft_s << " s against " << r.c.ttft_s);
    REQUIRE(r.failed.empty());
    CHECK(r.tpot_s > 0);
    tpot_ape += std::abs(r.tpot_error());
    requests_ape += std::abs(r.requests_error());
    if (r.c.concurrency <= 32) {
      ttft_ape += std::abs(r.ttft_error());
      ++low_concurrency;
    }
  }
  REQUIRE(low_concurrency >= 5);
  const double tpot_mape = tpot_ape / static_cast<double>(sample.size());
  const double ttft_mape = ttft_ape / low_concurrency;
  const double requests_mape = requests_ape / static_cast<double>(sample.size());
  INFO("TPOT mean absolute error " << tpot_mape << ", requests/s " << requests_mape << ", TTFT at concurrency 8-32 " << ttft_mape);
  // Session 34: 7.7%, 9.8% and 42.8% on this sample; session 44 (batches formed an iteration
  // ahead, as TensorRT-LLM's overlap scheduler does): 7.1%, 9.7% and 26.6%.
  CHECK(tpot_mape <= 0.08);
  CHECK(requests_mape <= 0.11);
  CHECK(ttft_mape <= 0.30);
}

TEST_CASE("serving cases: every 24th row of multi_stack.csv within what session 42 reached", "[validation][serving]") {
  // A regression guard, not the issue's target (TTFT 20%, TPOT 10%; docs/serving.md, "Every
  // row runs"): TensorRT-LLM, vLLM and SGLang rows, each on its stack's [serving] table, with
  // the lengths, token budgets and (disaggregated) recipes of the benchmark that measured it.
  // Session 39 on these 31 rows: TTFT 44.7%, TPOT 20.7%, requests/s 22.1% (all 909 rows: 49.1%,
  // 19.1%, 21.0%). Session 38: 50.1 / 23.5 / 19.2%; the five disaggregated rows here now run
  // their recipes' worker counts, which took TTFT and TPOT closer on three and requests/s
  // further on four (docs/serving.md, "Session 39"). Session 42 (batch waiting and fp8 KV caches
  // where InferenceMAX's scripts set them, its attention-DP balancing, vLLM's fp8-cache decode;
  // all 909 rows 43.8 / 19.4 / 19.2%): 34.4 / 17.9 / 19.0% on these rows. Session 44 (overlapped
  // loops form each batch an iteration ahead; all 909 rows 37.8 / 19.5 / 19.2%): 28.9 / 18.0 /
  // 19.0%, the limits a point or more above.
  const std::vector<ServingCase> all = load_serving_cases(std::string(ROOFSIM_CONFIG_DIR) + "/../validation/serving/multi_stack.csv");
  REQUIRE(all.size() == 732);
  std::vector<ServingCase> sample;
  for (std::size_t i = 0; i < all.size(); i += 24) sample.push_back(all[i]);
  ServingCaseSettings settings;
  settings.max_requests = 2000;  // as the report runs them (docs/serving.md)
  double tpot_ape = 0, ttft_ape = 0, requests_ape = 0;
  std::set<std::string> backends;
  for (const ServingCaseResult& r : run_serving_cases(sample, settings)) {
    INFO(r.c.id << ": TPOT " << r.tpot_s << " s against " << r.c.tpot_s << ", TTFT " << r.ttft_s << " s against " << r.c.ttft_s);
    REQUIRE(r.failed.empty());
    tpot_ape += std::abs(r.tpot_error());
    ttft_ape += std::abs(r.ttft_error());
    requests_ape += std::abs(r.requests_error());
    backends.insert(r.c.backend);
  }
  CHECK(backends.size() == 3);
  const double n = static_cast<double>(sample.size());
  INFO("TTFT mean absolute error " << ttft_ape / n << ", TPOT " << tpot_ape / n << ", requests/s " << requests_ape / n);
  CHECK(ttft_ape / n <= 0.30);
  CHECK(tpot_ape / n <= 0.19);
  CHECK(requests_ape / n <= 0.20);
}

TEST_CASE("both shared serving files: every row is set up, nothing refused", "[systemc][serving]") {
  // Loading only (no simulation): models by hub id, checkpoint formats, layouts, blank cells.
  const std::string dir = std::string(ROOFSIM_CONFIG_DIR) + "/../validation/serving/";
  std::size_t rows = 0;
  for (const char* file : {"h100_llama31_8b_trtllm.csv", "multi_stack.csv"}) {
    const std::string path = dir + file;
    for (const ServingCase& c : load_serving_cases(path)) {
      INFO(file << ":" << c.line << " " << c.id);
      CHECK(c.not_simulated.empty());
      ++rows;
    }
  }
  CHECK(rows == 177 + 732);
}

TEST_CASE("serving cases: the benchmark a row's source names sets its lengths and, for InferenceMAX, its engines' token budgets", "[systemc][serving]") {
  using H = ServingCase::Harness;
  CHECK(serving_harness("source_file=2026-03-25.csv; model=DeepSeek-R1; silicon_concurrency=4; wip=False") == H::inferencemax);
  CHECK(serving_harness("db-dump/2026-04-27; config_id=81; silicon_concurrency=16; workflow_run_id=337") == H::inferencemax);
  CHECK(serving_harness("source_file=/Users/x/aic-auto-gap-analysis/data/h100_sxm/trtllm/1.0.0rc3/m.csv") == H::aiconfigurator);
  CHECK(serving_harness("") == H::unknown);
  CHECK(serving_harness("source_file=2026-03-25.csv.bak") == H::unknown);
  const std::string head =
      "id,silicon_data_source,backend,model_path,system,mode,isl,osl,gemm_quant_mode,batch_size,tp_size,silicon_ttft_ms,silicon_tpot_ms,"
      "silicon_concurrency\n";
  const std::string path = write_temp(head +
                                          "imax_vllm,source_file=2026-04-06.csv; model=Llama,vllm,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,8192,,8,1,50,5,8\n"
                                          "aic_vllm,source_file=/d/aic-auto-gap-analysis/x.csv,vllm,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,8192,,8,1,50,5,8\n"
                                          "imax_sglang,db-dump/2026-04-27; config_id=1,sglang,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,8192,1024,,8,1,50,5,8\n"
                                          "imax_trt,db-dump/2026-04-27; config_id=2,trtllm,deepseek-ai/DeepSeek-R1,h200_sxm,agg,8192,1024,fp8,64,8,50,5,64\n",
                                      "harness");
  const std::vector<ServingCase> cases = load_serving_cases(path);
  REQUIRE(cases.size() == 4);
  for (const ServingCase& c : cases) REQUIRE(c.not_simulated.empty());
  // InferenceMAX's client: uniform integers in [int(0.8 L), L], said on the row.
  const ServingSetup imax = serving_case_setup(cases[0], ServingCaseSettings{});
  CHECK(imax.workload.prompt.kind == LengthDistribution::Kind::uniform);
  CHECK((imax.workload.prompt.min == 819 && imax.workload.prompt.max == 1024));
  CHECK((imax.workload.output.min == 6553 && imax.workload.output.max == 8192));
  CHECK(cases[0].note().find("InferenceMAX") != std::string::npos);
  CHECK(imax.scheduler.max_tokens == 8192);  // --max-num-batched-tokens 8192
  CHECK(imax.machine.precision.kv == DType::fp8);  // kv-cache-dtype: fp8 (70b_fp8_h*_slurm.sh)
  // aiconfigurator's runs: fixed lengths and the generator's budget, batch + prompt + 1500.
  const ServingSetup aic = serving_case_setup(cases[1], ServingCaseSettings{});
  CHECK(aic.workload.prompt.kind == LengthDistribution::Kind::fixed);
  CHECK(aic.workload.output.mean == 8192);
  CHECK(aic.scheduler.max_tokens == 8 + 1024 + 1500);
  CHECK(aic.machine.precision.kv == DType::bf16);
  // SGLang as InferenceMAX launched it: 32768-token chunks, prefill batches alone.
  const ServingSetup sglang = serving_case_setup(cases[2], ServingCaseSettings{});
  CHECK(sglang.scheduler.max_tokens == 32768);
  CHECK(sglang.scheduler.priority == SchedulerConfig::Priority::prefill_first);
  CHECK(sglang.machine.precision.kv == DType::bf16);  // no --kv-cache-dtype
  // TensorRT-LLM DeepSeek-R1: batch + prompt + 64 rounded up to 64 (8320), at least 8192.
  CHECK(serving_case_setup(cases[3], ServingCaseSettings{}).scheduler.max_tokens == 8320);
  CHECK(serving_case_setup(cases[3], ServingCaseSettings{}).scheduler.batch_wait_iters == 0);
  // Overlapped loops (each batch formed an iteration ahead): vLLM's async scheduling, which
  // InferenceMAX's vLLM scripts turn on whatever the release; aiconfigurator's vLLM rows of
  // releases before 0.14, where it was off by default, run without it.
  CHECK(imax.schedule_ahead());
  CHECK(sglang.schedule_ahead());
  CHECK(serving_case_setup(cases[3], ServingCaseSettings{}).schedule_ahead());
  CHECK(aic.schedule_ahead());  // no version given: the newest vLLM's default
  ServingCase old_release = cases[1];
  old_release.backend_version = "0.12.0";
  CHECK_FALSE(serving_case_setup(old_release, ServingCaseSettings{}).schedule_ahead());
  ServingCase scripted = cases[0];
  scripted.backend_version = "0.11.2";
  CHECK(serving_case_setup(scripted, ServingCaseSettings{}).schedule_ahead());
}

TEST_CASE("serving cases: InferenceMAX's TensorRT-LLM Llama runs hold prompts back for batching where its script says so", "[systemc][serving]") {
  const std::string head =
      "id,silicon_data_source,backend,model_path,system,mode,isl,osl,gemm_quant_mode,batch_size,tp_size,silicon_ttft_ms,silicon_tpot_ms,"
      "silicon_concurrency\n";
  const std::vector<ServingCase> cases = load_serving_cases(write_temp(
      head + "tp4,source_file=2026-04-06.csv,trtllm,meta-llama/Llama-3.1-70B,h200_sxm,agg,1024,1024,fp8,16,4,200,9,16\n"
             "tp8,source_file=2026-04-06.csv,trtllm,meta-llama/Llama-3.1-70B,h200_sxm,agg,1024,1024,fp8,16,8,100,8,16\n"
             "long,source_file=2026-04-06.csv,trtllm,meta-llama/Llama-3.1-70B,h200_sxm,agg,1024,8192,fp8,16,4,100,9,16\n"
             "aic,source_file=/d/aic-auto-gap-analysis/x.csv,trtllm,meta-llama/Llama-3.1-70B,h200_sxm,agg,1024,1024,fp8,16,4,100,9,16\n",
      "batch_wait"));
  REQUIRE(cases.size() == 4);
  // 70b_fp8_h200_trt_slurm.sh: batch_wait_timeout_iters 20, batch_wait_max_tokens_ratio 0.9 at
  // 1k/1k below TP 8; said on the row.
  const SchedulerConfig tp4 = serving_case_setup(cases[0], ServingCaseSettings{}).scheduler;
  CHECK(tp4.batch_wait_iters == 20);
  CHECK(tp4.batch_wait_tokens_ratio == Approx(0.9));
  CHECK(tp4.max_tokens == 16384);
  CHECK(cases[0].note().find("holds prompts back for batching") != std::string::npos);
  for (std::size_t i = 1; i < cases.size(); ++i) {
    CHECK(serving_case_setup(cases[i], ServingCaseSettings{}).scheduler.batch_wait_iters == 0);
    CHECK(cases[i].note().find("batching") == std::string::npos);
  }
  // Held prompts wait for decode iterations: the same row's TTFT grows, its throughput barely moves.
  ServingCaseSettings quick;
  quick.max_requests = 48;
  ServingSetup held = serving_case_setup(cases[0], quick), free = held;
  free.scheduler.batch_wait_iters = 0;
  held.workload.output = free.workload.output = parse_length_distribution("uniform:48:64", "output");
  const ServingResult with_wait = run_serving(held), without = run_serving(free);
  CHECK(with_wait.summary.ttft_s.mean > without.summary.ttft_s.mean + 5 * without.summary.tpot_s.mean);
  // A malformed cell names its file, line and column.
  const std::string head2 =
      "framework,model_contains,isl,osl,tp_below,batch_wait_iters,batch_wait_tokens_ratio,adp_balance_timeout_iters,adp_batching_wait_iters,launch_script\n";
  CHECK(load_harness_scheduling(write_temp(head2 + "trtllm,Llama,1024,1024,8,20,0.9,0,0,s.sh\n", "sched")).size() == 1);
  CHECK_THROWS_WITH(load_harness_scheduling(write_temp(head2 + "trtllm,Llama,1024,1024,8,20,1.5,0,0,s.sh\n", "sched")),
                    Catch::Contains(":2: batch_wait_tokens_ratio"));
  CHECK_THROWS_WITH(load_harness_scheduling(write_temp(head2 + "trtllm,Llama,1024,1024,8,0,0.9,0,0,s.sh\n", "sched")),
                    Catch::Contains(":2: batch_wait_iters and batch_wait_tokens_ratio: set both or neither"));
  CHECK_THROWS_WITH(load_harness_scheduling(write_temp(head2 + "trtllm,DeepSeek,0,0,0,0,0,-60,0,s.sh\n", "sched")),
                    Catch::Contains(":2: adp_balance_timeout_iters"));
  CHECK_THROWS_WITH(load_harness_scheduling(write_temp(head2 + "trtllm,Llama,1024,1024,8,20,most,0,0,s.sh\n", "sched")),
                    Catch::Contains(":2: batch_wait_tokens_ratio: expected a number, got 'most'"));
}

TEST_CASE("harness recipes and budgets: the shipped tables load, and a malformed cell names its file, line and column", "[systemc][serving]") {
  const std::vector<HarnessRecipe>& shipped = inferencemax_disagg_recipes();
  CHECK(shipped.size() > 100);
  for (const HarnessRecipe& r : shipped) CHECK(r.recipe.find("recipes/") != std::string::npos);
  for (const HarnessRecipe& r : shipped) CHECK(std::find(r.models.begin(), r.models.end(), "deepseek-ai/DeepSeek-R1") != r.models.end());
  const std::string head =
      "models,framework,system,isl,osl,concurrency,mtp,prefill_workers,prefill_layout,prefill_gpus,prefill_max_batch,prefill_max_tokens,"
      "decode_workers,decode_layout,decode_gpus,decode_max_batch,decode_first_response,recipe\n";
  const std::string good = "a/M b/N,trtllm,h200_sxm,1024,1024,36,0,1,dep,8,8,8192,9,tep,8,256,100,r.yaml\n";
  const std::vector<HarnessRecipe> one = load_harness_recipes(write_temp(head + good, "recipe"));
  REQUIRE(one.size() == 1);
  CHECK(one.front().models == std::vector<std::string>{"a/M", "b/N"});
  CHECK(recipe_deployment(one, "a/M", "trtllm", "h200_sxm", 1024, 1024, 36, std::nullopt, std::nullopt, std::nullopt).has_value());
  CHECK_FALSE(recipe_deployment(one, "c/O", "trtllm", "h200_sxm", 1024, 1024, 36, std::nullopt, std::nullopt, std::nullopt).has_value());
  CHECK_THROWS_WITH(load_harness_recipes(write_temp(head + replace_once(good, "a/M b/N", ""), "recipe")), Catch::Contains(":2: models"));
  CHECK_THROWS_WITH(load_harness_recipes(write_temp(head + "# a comment\n" + good + replace_once(good, "tep", "ring"), "recipe")),
                    Catch::Contains(":4: decode_layout: expected tp, tep or dep, got 'ring'"));
  CHECK_THROWS_WITH(load_harness_recipes(write_temp(head + replace_once(good, ",36,", ",-36,"), "recipe")),
                    Catch::Contains(":2: concurrency"));
  // The launch scripts' token budgets: the first line for the framework whose model_contains
  // is in the model's name; a fixed budget, or round_up_64(concurrency + prompt + spare).
  const std::vector<HarnessBudget>& budgets = inferencemax_budgets();
  const HarnessBudget* dsr1 = harness_budget(budgets, "trtllm", "deepseek-ai/DeepSeek-R1");
  REQUIRE(dsr1 != nullptr);
  CHECK(budget_tokens(*dsr1, 64, 8192) == 8320);
  CHECK(budget_tokens(*dsr1, 4, 1024) == 8192);
  CHECK(dsr1->launch_script.find("dsr1_fp8_h200_trt.sh") != std::string::npos);
  CHECK(budget_tokens(*harness_budget(budgets, "vllm", "openai/gpt-oss-120b"), 512, 8192) == 8192);
  CHECK(harness_budget(budgets, "trtllm", "Qwen/Qwen3-32B") == nullptr);
  const std::string budget_head = "framework,model_contains,max_num_tokens,spare_tokens,kv_cache_dtype,overlap_loop,launch_script\n";
  CHECK_THROWS_WITH(load_harness_budgets(write_temp(budget_head + "trtllm,x,8192,-1,fp8,default,s.sh\n", "budget")),
                    Catch::Contains(":2: spare_tokens: expected 0 to"));
  CHECK_THROWS_WITH(load_harness_budgets(write_temp(budget_head + "trtllm,x,0,0,fp8,default,s.sh\n", "budget")), Catch::Contains(":2: max_num_tokens"));
  CHECK_THROWS_WITH(load_harness_budgets(write_temp(budget_head + "trtllm,x,8192,0,int8,default,s.sh\n", "budget")),
                    Catch::Contains(":2: kv_cache_dtype: expected fp8 or auto, got 'int8'"));
  CHECK_THROWS_WITH(load_harness_budgets(write_temp(budget_head + "vllm,x,8192,0,fp8,yes,s.sh\n", "budget")),
                    Catch::Contains(":2: overlap_loop: expected on or default, got 'yes'"));
  CHECK(harness_budget(budgets, "vllm", "openai/gpt-oss-120b")->overlap_loop);  // async-scheduling: true
  CHECK_FALSE(harness_budget(budgets, "sglang", "deepseek-ai/DeepSeek-R1")->overlap_loop);
  // The KV cache's dtype as the scripts set it: vLLM's Llama-70B scripts fp8, its gpt-oss ones the model's.
  CHECK(harness_budget(budgets, "vllm", "meta-llama/Llama-3.1-70B")->fp8_kv_cache);
  CHECK_FALSE(harness_budget(budgets, "vllm", "openai/gpt-oss-120b")->fp8_kv_cache);
}

TEST_CASE("serving cases: InferenceMAX's disaggregated rows deploy as its recipes at their concurrency, where they agree", "[systemc][serving]") {
  const std::string head =
      "id,silicon_data_source,backend,model_path,system,mode,isl,osl,gemm_quant_mode,moe_quant_mode,prefill_num_workers,prefill_tp_size,"
      "prefill_moe_ep_size,decode_batch_size,decode_num_workers,decode_tp_size,decode_moe_ep_size,silicon_ttft_ms,silicon_tpot_ms,"
      "silicon_concurrency\n";
  const std::string src = "source_file=2026-03-25.csv; model=DeepSeek-R1";
  const std::string path = write_temp(
      head + "h100_c6," + src + ",trtllm,deepseek-ai/DeepSeek-R1,h100_sxm,disagg,1024,1024,fp8,fp8,,16,16,,,16,16,6900,8,6\n" +
          "h100_c462," + src + ",trtllm,deepseek-ai/DeepSeek-R1,h100_sxm,disagg,1024,1024,fp8,fp8,,16,16,,,16,16,21000,40,462\n" +
          "h200_c48," + src + ",trtllm,deepseek-ai/DeepSeek-R1,h200_sxm,disagg,8192,1024,fp8,fp8,,8,8,,,8,8,1500,20,48\n" +
          "h200_c48_d3," + src + ",trtllm,deepseek-ai/DeepSeek-R1,h200_sxm,disagg,8192,1024,fp8,fp8,1,8,8,16,3,8,8,1500,20,48\n" +
          "no_recipe," + src + ",trtllm,deepseek-ai/DeepSeek-R1,h200_sxm,disagg,1024,1024,fp8,fp8,,8,8,,,8,8,1300,6,13\n" +
          "sglang_dep," + src + ",sglang,deepseek-ai/DeepSeek-R1,h200_sxm,disagg,1024,1024,fp8,fp8,,8,1,,,8,8,700,12,128\n" +
          "other_model," + src + ",trtllm,moonshotai/Kimi-K2.5,h100_sxm,disagg,1024,1024,,,,16,16,,,16,16,6900,8,6\n",
      "recipes");
  const std::vector<ServingCase> cases = load_serving_cases(path);
  auto by_id = [&](const std::string& id) -> const ServingCase& {
    for (const ServingCase& c : cases) {
      if (c.id == id) return c;
    }
    throw std::runtime_error("no case " + id);
  };
  for (const ServingCase& c : cases) REQUIRE(c.not_simulated.empty());
  // H100, concurrency 6: one prefill and three decode workers of TP16, one request each, with or
  // without MTP alike; 6 clients, 3 slots: the limit is kept, the other clients queue.
  // The recipes are DeepSeek-R1's: another model at the same point is deployed from its columns.
  const ServingCase& other = by_id("other_model");
  CHECK(other.note().find("InferenceMAX's recipe") == std::string::npos);
  CHECK(other.deployment_assumed);  // worker counts blank: one prefill and one decode worker
  const ServingCase& c6 = by_id("h100_c6");
  CHECK((c6.prefill_instances == 1 && c6.decode_instances == 3));
  CHECK((c6.tp == 16 && c6.ep == 1 && c6.moe_tp == 1));  // tep16: experts spread over the TP group
  CHECK((c6.prefill_tp == 1 && c6.prefill_ep == 16));      // prefill dep16: attention data parallel
  CHECK((c6.prefill_max_batch == 2 && c6.prefill_max_tokens == 2048));
  CHECK(c6.batch == 1);
  CHECK_FALSE(c6.deployment_assumed);
  CHECK(c6.note().find("with or without MTP") != std::string::npos);  // MTP and STP recipes both fit
  CHECK(c6.note().find("ctx1_gen3_tep16_batch1_eplb0_mtp3.yaml and 1 more") != std::string::npos);
  const ServingSetup s6 = serving_case_setup(c6, ServingCaseSettings{});
  CHECK(s6.scheduler.max_batch == 1);
  CHECK(s6.disaggregation.decode_instances == 3);
  CHECK(s6.disaggregation.routing == DisaggregationConfig::Routing::round_robin);
  CHECK(s6.disaggregation.first_token == DisaggregationConfig::FirstToken::decode);
  CHECK(s6.disaggregation.decode_first_response == 100);  // the recipes' stream_interval
  CHECK(s6.disaggregation.prefill_max_batch == 2);
  // Concurrency 462: MTP's tep16 of 128 and STP's dep16 of 8 differ; roofsim runs no MTP, so STP's.
  const ServingCase& c462 = by_id("h100_c462");
  CHECK((c462.ep == 16 && c462.tp == 1 && c462.batch == 8));
  CHECK(c462.note().find("those without MTP") != std::string::npos);
  // H200 8k1k at 48: c8 x 6 decode workers or c16 x 3; the worker counts stay unknown ...
  const ServingCase& c48 = by_id("h200_c48");
  CHECK(c48.deployment_assumed);
  CHECK(c48.note().find("the recipes differ in decode workers") != std::string::npos);
  // ... unless the row gives them: 3 decode workers of at most 32 (the row's 16 is concurrency / 3).
  const ServingCase& c48_d3 = by_id("h200_c48_d3");
  CHECK((c48_d3.decode_instances == 3 && c48_d3.batch == 32));
  CHECK_FALSE(c48_d3.deployment_assumed);
  // A concurrency no recipe lists keeps the generic assumptions.
  const ServingCase& none = by_id("no_recipe");
  CHECK(none.deployment_assumed);
  CHECK(none.note().find("recipe") == std::string::npos);
  // SGLang: the row's expert-parallel decode picks the dep recipe; --max-running-requests 512 is
  // the worker's, 64 for each of its 8 attention-DP ranks.
  const ServingCase& sg = by_id("sglang_dep");
  CHECK((sg.decode_instances == 6 && sg.ep == 8 && sg.batch == 64));
  CHECK(serving_case_setup(sg, ServingCaseSettings{}).disaggregation.decode_first_response == 1);
}

TEST_CASE("serving cases: a model variant not shipped runs as a shipped variant of the same architecture, said on the row", "[systemc][serving]") {
  const std::string path = write_temp(
      "id,model_path,system,mode,isl,osl,batch_size,tp_size,silicon_ttft_ms,silicon_tpot_ms,silicon_concurrency\n"
      "thinking,Qwen/Qwen3-Next-80B-A3B-Thinking,h200_sxm,agg,1024,128,8,2,100,10,8\n"
      "base_fp8,meta-llama/Llama-4-Scout-17B-16E-FP8,h200_sxm,agg,1024,128,8,4,100,10,8\n",
      "cases");
  const std::vector<ServingCase> cases = load_serving_cases(path);
  REQUIRE(cases.size() == 2);
  const std::vector<std::string> shipped = {"Qwen/Qwen3-Next-80B-A3B-Instruct", "meta-llama/Llama-4-Scout-17B-16E-Instruct"};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const ServingCase& c = cases[i];
    INFO(c.id);
    CHECK(c.not_simulated.empty());
    bool said = false;
    for (const std::string& a : c.assumptions) said = said || a.find("read as " + shipped[i] + "'s layers") != std::string::npos;
    CHECK(said);
  }
  // The FP8 checkpoint's name gives its weights where the config read declares none.
  CHECK(cases[1].precision.weights == DType::fp8);
  CHECK(cases[0].precision.weights == DType::bf16);
}

TEST_CASE("serving cases: a backend version runs as the stack and release its behaviour is documented for, said where it is not its own", "[systemc][serving]") {
  auto run_as = [](const std::string& backend, const std::string& version) {
    std::vector<std::string> said;
    const std::string stack = case_rows::backend_stack(backend, version, said);
    return std::make_pair(stack, said.size());
  };
  CHECK(run_as("trtllm", "1.1.0rc2.post2") == std::make_pair(std::string("trtllm-1.x"), std::size_t{0}));
  CHECK(run_as("trtllm", "0.8.1.post1") == std::make_pair(std::string("trtllm-1.x"), std::size_t{1}));  // Dynamo's runtime version
  CHECK(run_as("vllm", "0.7.3") == std::make_pair(std::string("vllm"), std::size_t{1}));                 // the V0 engine
  CHECK(run_as("vllm", "0.8.0") == std::make_pair(std::string("vllm"), std::size_t{0}));
  CHECK(run_as("sglang", "0.5.9") == std::make_pair(std::string("sglang"), std::size_t{0}));
  CHECK(run_as("sglang", "0.6.0") == std::make_pair(std::string("sglang"), std::size_t{1}));
  CHECK(run_as("vllm", "") == std::make_pair(std::string("vllm"), std::size_t{0}));
  // The release a row's version selects: its own, none for labels the stack does not document.
  CHECK(case_rows::stack_release("trtllm", "1.0.0rc3") == "1.0.0rc3");
  CHECK(case_rows::stack_release("trtllm", "0.8.1.post1").empty());
  CHECK(case_rows::stack_release("vllm", "0.12.0") == "0.12.0");
  CHECK(case_rows::stack_release("sglang", "gpt-oss-dev").empty());
}

TEST_CASE("serving cases: the sources' other names for a backend or mode run as roofsim's, said on the row", "[systemc][serving]") {
  const std::string path = write_temp(
      "id,backend,model_path,system,mode,isl,osl,batch_size,tp_size,silicon_ttft_ms,silicon_tpot_ms,silicon_concurrency\n"
      "trt,trt,Qwen/Qwen3-32B,h200_sxm,agg,1024,128,8,2,100,10,8\n"
      "dynamo,Dynamo-SGLang,Qwen/Qwen3-32B,h200_sxm,Aggregated,1024,128,8,2,100,10,8\n"
      "odd,tgi,Qwen/Qwen3-32B,h200_sxm,pd,1024,128,8,2,100,10,8\n",
      "cases");
  const std::vector<ServingCase> cases = load_serving_cases(path);
  REQUIRE(cases.size() == 3);
  CHECK(cases[0].backend == "trtllm");
  CHECK(cases[0].note().find("backend 'trt' read as trtllm") != std::string::npos);
  CHECK(cases[1].backend == "sglang");
  CHECK(cases[1].mode == "agg");
  CHECK(cases[1].note().find("mode 'Aggregated' read as agg") != std::string::npos);
  CHECK(cases[0].not_simulated.empty());
  CHECK(cases[1].not_simulated.empty());
  CHECK(cases[2].not_simulated.find("backend 'tgi'") != std::string::npos);
}

TEST_CASE("serving cases of other systems, models, quantizations and layouts: mapped where roofsim models them, listed with the reason where not", "[systemc][serving]") {
  const std::string head =
      "id,model_path,system,mode,isl,osl,gemm_quant_mode,moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,"
      "moe_tp_size,moe_ep_size,prefill_num_workers,prefill_tp_size,prefill_batch_size,decode_num_workers,decode_tp_size,"
      "decode_batch_size,silicon_ttft_ms,silicon_tpot_ms,silicon_concurrency\n";
  const std::string path = write_temp(head +
                                          "moe_h200,Qwen/Qwen3-30B-A3B,h200_sxm,agg,1024,128,fp8,,16.0,2,1,,,,,,,,,,100,10,16\n"
                                          "moe_ep,Qwen/Qwen3-30B-A3B,h100_sxm,agg,1024,128,,,16,1,1,4,1,4,,,,,,,100,10,16\n"
                                          "block,meta-llama/Llama-3.1-70B-Instruct,b200_sxm,agg,1024,128,fp8_block,,8,4,1,,,,,,,,,,100,10,8\n"
                                          "disagg,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,disagg,1024,128,,,,,,,,,2,1,4,1,2,32,100,10,16\n"
                                          "model,acme/Foo-7B,h100_sxm,agg,1024,128,,,8,1,1,,,,,,,,,,100,10,8\n"
                                          "system,meta-llama/Llama-3.1-8B-Instruct,l40s,agg,1024,128,,,8,1,1,,,,,,,,,,100,10,8\n"
                                          "fp4,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,nvfp4,,8,1,1,,,,,,,,,,100,10,8\n"
                                          "mixed,Qwen/Qwen3-30B-A3B,h100_sxm,agg,1024,128,fp8,float16,8,1,1,,,,,,,,,,100,10,8\n"
                                          "tp_ep,Qwen/Qwen3-30B-A3B,h100_sxm,agg,1024,128,,,8,4,1,1,1,4,,,,,,,100,10,8\n"
                                          "layout,Qwen/Qwen3-30B-A3B,h100_sxm,agg,1024,128,,,8,2,1,2,1,8,,,,,,,100,10,8\n"
                                          "huge,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1000000000,128,,,8,1,1,,,,,,,,,,100,10,8\n"
                                          "tp_blank,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,,,8,,1,,,,,,,,,,100,10,8\n"
                                          "w4afp8,Qwen/Qwen3-30B-A3B,h200_sxm,agg,1024,128,fp8,w4afp8,8,1,1,,,,,,,,,,100,10,8\n"
                                          "mxfp8,openai/gpt-oss-120b,b200_sxm,agg,1024,128,,w4a8_mxfp4_mxfp8,8,1,1,,,,,,,,,,100,10,8\n",
                                      "cases");
  const std::vector<ServingCase> cases = load_serving_cases(path);
  REQUIRE(cases.size() == 14);
  auto by_id = [&](const std::string& id) -> const ServingCase& {
    for (const ServingCase& c : cases) {
      if (c.id == id) return c;
    }
    FAIL("no case " << id);
    return cases.front();
  };
  const ServingCase& h200 = by_id("moe_h200");
  CHECK(h200.not_simulated.empty());
  CHECK(h200.hw == "h200_sxm");
  CHECK(h200.model == "Qwen/Qwen3-30B-A3B");
  CHECK(h200.precision.weights == DType::fp8);
  CHECK(h200.precision.activations == DType::fp8);
  CHECK(h200.batch == 16);  // written as a float
  const ServingCase& ep = by_id("moe_ep");
  CHECK(ep.not_simulated.empty());
  CHECK(ep.tp == 1);
  CHECK(ep.ep == 4);
  // batch_size is each attention-DP rank's: TensorRT-LLM's ranks schedule apart (the pool
  // counts the limit once per rank), SGLang's share the instance's limit.
  const ServingSetup ep_trt = serving_case_setup(ep, ServingCaseSettings{});
  CHECK(ep_trt.scheduler.limits_per_rank);
  CHECK(ep_trt.scheduler.max_batch == 16);
  ServingCaseSettings on_sglang;
  on_sglang.stack = "sglang";
  const ServingSetup ep_sglang = serving_case_setup(ep, on_sglang);
  CHECK_FALSE(ep_sglang.scheduler.limits_per_rank);
  CHECK(ep_sglang.scheduler.max_batch == 16 * 4);
  const ServingCase& block = by_id("block");
  CHECK(block.not_simulated.empty());
  CHECK(block.model == "meta-llama/Llama-3.1-70B-Instruct");  // the instruction-tuned name, its base's layers
  CHECK(block.note().find("read as meta-llama/Llama-3.1-70B's layers") != std::string::npos);
  CHECK(block.hw == "b200");
  CHECK(block.precision.scale_block_k == 128);
  CHECK(block.precision.weights == DType::fp8);
  CHECK(serving_case_setup(block, ServingCaseSettings{}).machine.precision.scale_block_k == 128);
  CHECK(serving_case_setup(block, ServingCaseSettings{}).machine.precision.activations == DType::bf16);
  const ServingCase& disagg = by_id("disagg");
  CHECK(disagg.not_simulated.empty());
  CHECK(disagg.disaggregated);
  CHECK(disagg.prefill_instances == 2);
  CHECK(disagg.prefill_batch == 4);
  CHECK(disagg.decode_tp == 2);
  CHECK(disagg.batch == 32);
  const ServingSetup setup = serving_case_setup(disagg, ServingCaseSettings{});
  CHECK(setup.disaggregation.enabled);
  CHECK(setup.disaggregation.prefill_instances == 2);
  CHECK_FALSE(setup.frontend.enabled());
  CHECK(by_id("model").not_simulated.find("not in roofsim's catalog") != std::string::npos);
  CHECK(by_id("system").not_simulated.find("'l40s' has no hardware preset") != std::string::npos);
  // The source's 4-bit-weight, 8-bit-activation MoE labels: int4 or mxfp4 weights, fp8 MMAs.
  for (const char* id : {"w4afp8", "mxfp8"}) {
    const ServingCase& c = by_id(id);
    INFO(id);
    CHECK(c.not_simulated.empty());
    REQUIRE(c.precision.experts);
    CHECK(c.precision.experts->activations == DType::fp8);
  }
  CHECK(by_id("w4afp8").precision.experts->weights == DType::int4);
  CHECK(by_id("mxfp8").precision.experts->weights == DType::mxfp4);
  // A blank tensor-parallel size runs on one GPU, said on the row, not silently.
  const ServingCase& tp_blank = by_id("tp_blank");
  CHECK(tp_blank.not_simulated.empty());
  CHECK(tp_blank.tp == 1);
  CHECK(tp_blank.deployment_assumed);
  CHECK(tp_blank.note().find("tp_size blank: tensor parallel 1") != std::string::npos);
  // A whole number too large is said to be too large, not "expected a whole number".
  CHECK(by_id("huge").not_simulated.find("isl: 1000000000 is more than roofsim takes in a cell") != std::string::npos);
  // 4-bit weights on Hopper run weight-only, said on the row.
  const ServingCase& fp4 = by_id("fp4");
  CHECK(fp4.not_simulated.empty());
  CHECK(fp4.precision.weights == DType::nvfp4);
  CHECK(fp4.precision.activations == DType::bf16);
  CHECK(fp4.note().find("weight-only") != std::string::npos);
  // Dense layers and experts in different formats.
  const ServingCase& mixed = by_id("mixed");
  CHECK(mixed.not_simulated.empty());
  CHECK(mixed.precision.weights == DType::fp8);
  REQUIRE(mixed.precision.experts);
  CHECK(mixed.precision.experts->weights == DType::bf16);
  const ServingCase& tp_ep = by_id("tp_ep");  // attention TP 4, experts EP 4 inside the TP group
  CHECK(tp_ep.not_simulated.empty());
  CHECK(tp_ep.tp == 4);
  CHECK(tp_ep.moe_tp == 1);
  CHECK(serving_case_setup(tp_ep, ServingCaseSettings{}).machine.moe_tp == 1);
  // A layout roofsim has no form for runs as the nearest one, said on the row.
  const ServingCase& layout = by_id("layout");
  CHECK(layout.not_simulated.empty());
  // MoE TP 1 x EP 8 over attention TP 2 x DP 2: the experts' 8 GPUs, attention DP over 4.
  CHECK(layout.ep == 4);
  CHECK(layout.note().find("attention data parallel over 4") != std::string::npos);
  CHECK_THROWS_WITH(serving_case_setup(by_id("model"), ServingCaseSettings{}), Catch::Contains("not simulated"));
  // The framework: TensorRT-LLM's stack by default; vLLM and SGLang their own, with chunked
  // prefill in their token budget; another is not simulated.
  CHECK(serving_case_stack(h200, ServingCaseSettings{}) == "trtllm-1.x");
  CHECK_FALSE(serving_case_setup(h200, ServingCaseSettings{}).scheduler.chunked_prefill);
  // TensorRT-LLM rows free slots one step late (its overlap scheduler, chosen from the rows,
  // docs/serving.md) and, like vLLM and SGLang, start as many prompts as fit.
  CHECK(serving_case_setup(h200, ServingCaseSettings{}).scheduler.max_prompts == 0);
  CHECK(serving_case_setup(h200, ServingCaseSettings{}).scheduler.late_release);
  const std::vector<ServingCase> frameworks = load_serving_cases(
      write_temp("id,model_path,system,mode,isl,osl,batch_size,tp_size,pp_size,backend,backend_version,silicon_ttft_ms,silicon_tpot_ms,silicon_concurrency\n"
                 "v,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,1,vllm,0.12.0,100,10,8\n"
                 "va,meta-llama/Llama-3.1-8B-Instruct,a100_sxm,agg,1024,128,8,1,1,vllm,0.6.3,100,10,8\n"
                 "s,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,1,sglang,0.6.0,100,10,8\n"
                 "t,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,1,tgi,,100,10,8\n"
                 "s51,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,8000,128,8,1,1,sglang,0.5.1.post1,100,10,8\n"
                 "s53,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,1,sglang,0.5.3,100,10,8\n",
                 "cases"));
  REQUIRE(frameworks.size() == 6);
  // A version without a behaviour of its own runs as the nearest documented one, said on the row.
  CHECK(frameworks[0].note().find("version") == std::string::npos);
  CHECK(frameworks[1].note().find("V0 engine") != std::string::npos);
  CHECK(frameworks[2].note().find("piecewise CUDA graphs") != std::string::npos);
  const ServingSetup vllm = serving_case_setup(frameworks[0], ServingCaseSettings{});
  CHECK(serving_case_stack(frameworks[0], ServingCaseSettings{}) == "vllm");
  CHECK(vllm.machine.allreduce == "vllm_custom");
  CHECK(vllm.scheduler.chunked_prefill);
  // The token budgets aiconfigurator's generator deploys: vLLM's --max-num-batched-tokens
  // batch + prompt + 1500 (as TensorRT-LLM's max_num_tokens), on an A100 too; SGLang's
  // --max-prefill-tokens prompt + 1500 under its 8192-token chunks, with --enable-mixed-chunk
  // (decodes first in one iteration) from the 0.5.3 templates on, not on 0.5.1.post1's.
  CHECK(vllm.scheduler.max_tokens == 8 + 1024 + 1500);
  CHECK(vllm.scheduler.max_prompts == 0);
  CHECK_FALSE(vllm.scheduler.late_release);
  CHECK_FALSE(vllm.schedule_ahead());  // vLLM 0.12: async scheduling off by default (on from 0.14)
  CHECK(serving_case_setup(frameworks[1], ServingCaseSettings{}).scheduler.max_tokens == 8 + 1024 + 1500);
  CHECK(serving_case_stack(frameworks[2], ServingCaseSettings{}) == "sglang");
  const ServingSetup sglang = serving_case_setup(frameworks[2], ServingCaseSettings{});
  CHECK(sglang.scheduler.max_tokens == 1024 + 1500);
  CHECK(sglang.scheduler.priority == SchedulerConfig::Priority::decode_first);
  const ServingSetup sglang_051 = serving_case_setup(frameworks[4], ServingCaseSettings{});
  CHECK(sglang_051.scheduler.max_tokens == 8192);
  CHECK(sglang_051.scheduler.priority == SchedulerConfig::Priority::prefill_first);
  CHECK(serving_case_setup(frameworks[5], ServingCaseSettings{}).scheduler.priority == SchedulerConfig::Priority::decode_first);
  CHECK(frameworks[3].not_simulated.find("backend 'tgi'") != std::string::npos);
  ServingCaseSettings one_stack;
  one_stack.stack = "trtllm-1.x";  // --stack: every row on it
  CHECK(serving_case_stack(frameworks[0], one_stack) == "trtllm-1.x");
  // A malformed row is listed with its line and column; the rest of the file still loads.
  const std::vector<ServingCase> bad = load_serving_cases(write_temp(head +
      "x,meta-llama/Llama-3.1-8B,h100_sxm,agg,1024,128,,,8,two,1,,,,,,,,,,100,10,8\n"
      "blank,meta-llama/Llama-3.1-8B,h100_sxm,agg,1024,128,,,8,1,1,0,0,0,,,,,,,100,10,\n", "cases"));
  REQUIRE(bad.size() == 2);
  CHECK(bad[0].line == 2);
  CHECK(bad[0].not_simulated.find("tp_size") != std::string::npos);
  // A blank concurrency is the deployment's batch limit, said on the row; 0 cells are "not set".
  CHECK(bad[1].not_simulated.empty());
  CHECK(bad[1].concurrency == 8);
  CHECK(bad[1].note().find("concurrency blank") != std::string::npos);
  // A file without a required column is refused whole.
  CHECK_THROWS_WITH(load_serving_cases(write_temp("id,model_path,system,mode,isl,osl,silicon_ttft_ms\nx,a,b,agg,1,1,1\n", "cases")),
                    Catch::Contains("silicon_tpot_ms: required column missing"));
}

TEST_CASE("the overlap scheduler hides an iteration's host time under its pass where the iteration is a graph", "[systemc][serving]") {
  ServingSetup s = serving_setup(24, 8, "128", "24");
  s.sequence_overhead_s = 300e-6;  // 8 sequences: 2.4 ms of host time, against passes of a few tenths of one
  auto host_of = [&](const IterationRecord& it) { return s.sequence_overhead_s * (it.prefill_sequences + it.decode_sequences); };
  auto pass_of = [](const ServingResult& r, const IterationRecord& it) {
    return r.shapes[static_cast<std::size_t>(it.shape)].outcome.seconds;
  };
  const ServingResult serial = run_serving(s);
  s.overlap_host = true;
  const ServingResult overlapped = run_serving(s);
  bool host_bound = false, pass_bound = false;
  for (const IterationRecord& it : serial.iterations) CHECK(it.seconds == Approx(host_of(it) + pass_of(serial, it)).epsilon(1e-12));
  for (const IterationRecord& it : overlapped.iterations) {
    CHECK(it.seconds == Approx(std::max(host_of(it), pass_of(overlapped, it))).epsilon(1e-12));
    host_bound = host_bound || host_of(it) > pass_of(overlapped, it);
    pass_bound = pass_bound || host_of(it) < pass_of(overlapped, it);
  }
  CHECK(host_bound);  // decode steps of 8 sequences
  CHECK(pass_bound);  // prompts
  CHECK(overlapped.summary.tpot_s.mean < serial.summary.tpot_s.mean);
  CHECK(overlapped.summary.output_tok_s > serial.summary.output_tok_s);

  // Launched op by op, an iteration holding a prompt keeps its host time in series: the thread
  // that would overlap it is busy launching. Decode steps replayed as graphs still overlap.
  s.machine.launch = Launch::prefill_per_op;
  const ServingResult eager = run_serving(s);
  int prompts = 0;
  for (const IterationRecord& it : eager.iterations) {
    const double host = host_of(it), pass = pass_of(eager, it);
    if (it.prefill_sequences > 0) {
      ++prompts;
      CHECK(it.seconds == Approx(host + pass).epsilon(1e-12));
    } else {
      CHECK(it.seconds == Approx(std::max(host, pass)).epsilon(1e-12));
    }
  }
  CHECK(prompts > 0);
  // The setting reaches the JSON report.
  CHECK(serving_json(overlapped).at("overlap_scheduler") == true);
}

TEST_CASE("the overlap scheduler learns a finished request one step late: it holds its slot for one more step, whose token is dropped", "[systemc][serving]") {
  // One slot, two clients: the second request waits for the first's slot.
  ServingSetup s = serving_setup(2, 2, "64", "4");
  s.scheduler.max_batch = 1;
  const ServingResult prompt = run_serving(s);
  s.overlap_host = true;
  const ServingResult late = run_serving(s);
  auto decode_steps = [](const ServingResult& r) {
    int n = 0;
    for (const IterationRecord& it : r.iterations) n += it.prefill_sequences == 0 ? 1 : 0;
    return n;
  };
  // Each request: a prefill (its first token) and 3 decodes; late, one more decode step each
  // but the last (the run ends when its last token is out), that yields no token.
  REQUIRE(prompt.iterations.size() == 8);
  CHECK(late.iterations.size() == 9);
  CHECK(decode_steps(late) == decode_steps(prompt) + 1);
  std::int64_t tokens_prompt = 0, tokens_late = 0;
  for (const IterationRecord& it : prompt.iterations) tokens_prompt += it.decode_tokens;
  for (const IterationRecord& it : late.iterations) tokens_late += it.decode_tokens;
  CHECK(tokens_late == tokens_prompt);  // the extra step's token is dropped
  // The first request finishes as before; the second starts one step later.
  CHECK(late.requests[0].finish_s == Approx(prompt.requests[0].finish_s).epsilon(1e-9));
  CHECK(late.requests[1].first_token_s > prompt.requests[1].first_token_s);
  for (const RequestRecord& r : late.requests) CHECK(r.finish_s > 0);

  // The late release alone gives the same iterations, with the host time in series.
  s.overlap_host = false;
  s.scheduler.late_release = true;
  const ServingResult late_only = run_serving(s);
  CHECK(late_only.iterations.size() == late.iterations.size());
  CHECK(late_only.requests[1].first_token_s == Approx(late.requests[1].first_token_s).epsilon(1e-9));

  // Disaggregated, a prefill instance hands each request on with its KV cache: no extra step
  // there; the decode instances hold their finished requests' slots one step longer.
  ServingSetup d = serving_setup(8, 4, "128", "4");
  d.disaggregation.enabled = true;
  d.overlap_host = true;
  const ServingResult split = run_serving(d);
  int prefill_steps_decoding = 0, decode_instance_steps = 0;
  for (const IterationRecord& it : split.iterations) {
    if (it.worker < d.disaggregation.prefill_instances) prefill_steps_decoding += it.decode_sequences;
    else ++decode_instance_steps;
  }
  CHECK(prefill_steps_decoding == 0);
  CHECK(decode_instance_steps > 0);
  for (const RequestRecord& r : split.requests) CHECK(r.finish_s > r.first_token_s);
}

TEST_CASE("serving cases: a blank backend_version is read from the backend's own image tag, and runs that release", "[systemc][serving]") {
  const std::vector<ServingCase> cases = load_serving_cases(
      write_temp("id,model_path,system,mode,isl,osl,batch_size,tp_size,backend,backend_version,image,silicon_ttft_ms,silicon_tpot_ms,silicon_concurrency\n"
                 "old,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,vllm,,vllm/vllm-openai:v0.10.2,100,10,8\n"
                 "new,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,vllm,,vllm/vllm-openai:v0.18.0,100,10,8\n"
                 "dyn,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,trtllm,,nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1,100,10,8\n"
                 "own,meta-llama/Llama-3.1-8B-Instruct,h100_sxm,agg,1024,128,8,1,trtllm,,nvcr.io/nvidia/tensorrt-llm/release:1.1.0rc2.post2,100,10,8\n",
                 "cases"));
  REQUIRE(cases.size() == 4);
  CHECK(cases[0].backend_version == "0.10.2");
  CHECK(cases[0].note().find("image's tag") != std::string::npos);
  CHECK_FALSE(serving_case_setup(cases[0], ServingCaseSettings{}).schedule_ahead());  // before vLLM 0.14
  CHECK(cases[1].backend_version == "0.18.0");
  CHECK(serving_case_setup(cases[1], ServingCaseSettings{}).schedule_ahead());
  CHECK(cases[2].backend_version.empty());  // Dynamo's runtime is tagged with Dynamo's version
  CHECK(cases[3].backend_version == "1.1.0rc2.post2");
}
