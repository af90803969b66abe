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
  Scheduler s(c, "reserve", pool);
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
    Scheduler scheduler(config, "reserve", blocks);
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
    Scheduler scheduler(config, "reserve", blocks);
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
  Scheduler s(c, "on_demand", pool);
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
  Scheduler s(c, "on_demand", pool, false, "swap");
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
  s.kv.admission = "on_demand";
  s.kv.blocks = 120;
  const ServingResult recompute = run_serving(s);
  s.kv.preemption = "swap";
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
  static_batch.scheduler.policy = "static";
  CHECK_THROWS_WITH(run_serving(static_batch), Catch::Contains("static scheduler"));
}

TEST_CASE("continuous batching beats static batching on throughput for mixed lengths", "[systemc][serving]") {
  ServingSetup s = serving_setup(48, 16, "uniform:64:512", "uniform:8:128");
  const ServingResult continuous = run_serving(s);
  s.scheduler.policy = "static";
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
  s.kv.admission = "on_demand";
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
      // It replayed (how much faster that is belongs to bench/, not to a test).
      CHECK(sampled.replayed_segments > 0);
      CHECK(all.replayed_segments == 0);
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
