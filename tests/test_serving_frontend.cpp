// The API server in front of the engine (serving/frontend.hpp): what it adds to one request,
// and that its one thread caps what a saturated server streams.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "serving/frontend.hpp"
#include "serving/serving.hpp"
#include "tests/serving_test_util.hpp"

using namespace roofsim;
using namespace roofsim::test;

TEST_CASE("the API server serves responses before requests and in the order they come", "[systemc][serving]") {
  Frontend f({1e-3, 1e-6, 1e-4});
  CHECK(f.take_in(0.5, 1000) == Approx(0.502));  // 1 ms + 1000 x 1 us
  CHECK(f.respond(0.501) == Approx(0.5021));     // behind the request being taken in
  CHECK(f.respond(0.501) == Approx(0.5022));
  CHECK(f.intake_start(0.5015) == Approx(0.5022));  // a later request waits for the thread
  CHECK(f.respond(0.6) == Approx(0.6001));          // an idle thread starts at once
  CHECK(f.busy_share(1.0) == Approx(0.0023));
}

TEST_CASE("one request through the API server: its TTFT grows by taking it in and one response", "[systemc][serving]") {
  ServingSetup s = serving_setup(1, 1, "200", "4");
  const ServingResult bare = run_serving(s);
  s.frontend.request_s = 2e-3;
  s.frontend.prompt_token_s = 5e-6;
  s.frontend.response_s = 1e-4;
  const ServingResult served = run_serving(s);
  const RequestRecord& a = bare.requests.front();
  const RequestRecord& b = served.requests.front();
  // Taken in: 2 ms + 200 x 5 us; the first token's response 0.1 ms.
  CHECK(b.ttft_s() == Approx(a.ttft_s() + 3e-3 + 1e-4).epsilon(1e-9));
  // Each later token is streamed as it comes: the engine is not slowed, the gaps stay.
  CHECK(b.tpot_s() == Approx(a.tpot_s()).epsilon(1e-9));
}

TEST_CASE("a saturated API server caps the tokens streamed at one per response time", "[systemc][serving]") {
  ServingSetup s = serving_setup(64, 32, "64", "32");
  const ServingResult bare = run_serving(s);
  // 2 ms a response: at most 500 responses (tokens) a second, far below what the engine makes.
  REQUIRE(bare.summary.output_tok_s > 2000);
  s.frontend.response_s = 2e-3;
  const ServingResult served = run_serving(s);
  CHECK(served.summary.output_tok_s <= 500 * 1.001);
  CHECK(served.summary.output_tok_s > 400);
  CHECK(served.frontend_busy_share > 0.9);
  CHECK(served.summary.ttft_s.mean > bare.summary.ttft_s.mean);
  // The engine waits on the thread: the chips idle most of the time.
  double engine_s = 0;
  for (const IterationRecord& it : served.iterations) engine_s += it.seconds;
  CHECK(engine_s < 0.5 * served.simulated_s);
}

TEST_CASE("the API server is refused where it is not modelled, and out of range", "[systemc][serving]") {
  ServingSetup s = serving_setup(4, 2, "100", "10");
  s.frontend.response_s = 1e-4;
  s.disaggregation.enabled = true;
  CHECK_THROWS_WITH(run_serving(s), Catch::Contains("frontend_response_us") && Catch::Contains("disaggregation"));
  s = serving_setup(4, 2, "100", "10");
  s.frontend.request_s = -1e-3;
  CHECK_THROWS_WITH(run_serving(s), Catch::Contains("frontend_request_us"));
}

TEST_CASE("scheduling ahead: a request that reaches the engine while an iteration runs starts one iteration later", "[systemc][serving]") {
  // One long request decoding, a second sent while it runs: with the batch of each iteration
  // formed when the one before starts (an overlapped loop), the second misses the iteration that
  // starts after it arrives and prefills in the one after.
  const double second_s = 0.004321;
  ServingSetup s = serving_setup(2, 2, "64", "48");
  s.workload.arrivals.kind = Arrivals::Kind::trace;
  s.workload.trace_path = write_temp("arrival_s,prompt_tokens,output_tokens\n0,64,48\n" + std::to_string(second_s) + ",64,48\n", "trace");
  const ServingResult now = run_serving(s);
  s.scheduler.schedule_ahead = true;
  const ServingResult ahead = run_serving(s);
  // The first request is alone when it comes: taken at once, as before.
  CHECK(ahead.requests[0].first_token_s == Approx(now.requests[0].first_token_s).epsilon(1e-12));
  auto second_prefill = [](const ServingResult& r) {
    for (const IterationRecord& it : r.iterations) {
      if (it.prefill_sequences > 0 && it.start_s > 0) return it;
    }
    FAIL("no second prefill");
    return IterationRecord{};
  };
  // Without: the first iteration that starts after it arrives prefills it.
  std::size_t after = 0;
  while (now.iterations[after].start_s < second_s) ++after;
  CHECK(second_prefill(now).start_s == Approx(now.iterations[after].start_s).epsilon(1e-12));
  // Ahead: that iteration runs without it (its batch was formed before), the next one prefills it.
  after = 0;
  while (ahead.iterations[after].start_s < second_s) ++after;
  CHECK(ahead.iterations[after].prefill_sequences == 0);
  CHECK(second_prefill(ahead).start_s == Approx(ahead.iterations[after + 1].start_s).epsilon(1e-12));
  CHECK(ahead.requests[1].first_token_s > now.requests[1].first_token_s);
  // The overlap scheduler implies it.
  s.scheduler.schedule_ahead = false;
  s.overlap_host = true;
  CHECK(s.schedule_ahead());
  // Disaggregated, it is the decode instances' loop (the prefill ones have their own flag).
  s.disaggregation.enabled = true;
  CHECK(s.schedule_ahead());
}

TEST_CASE("scheduling ahead, disaggregated: a KV cache that reaches a busy decode instance starts decoding one iteration later", "[systemc][serving]") {
  // One request decoding on the decode instance, a second whose prompt the prefill instance
  // finishes while the first decodes: its KV cache reaches the decode instance mid-iteration.
  ServingSetup s = serving_setup(2, 2, "256", "40");
  s.disaggregation.enabled = true;
  s.workload.arrivals.kind = Arrivals::Kind::trace;
  s.workload.trace_path = write_temp("arrival_s,prompt_tokens,output_tokens\n0,256,40\n0.0123,256,40\n", "trace");
  const ServingResult now = run_serving(s);
  s.scheduler.schedule_ahead = true;
  const ServingResult ahead = run_serving(s);
  REQUIRE(ahead.requests.size() == 2);
  // The first request reaches idle instances: taken at once, as before (its decoding then
  // shares iterations with the second at other times).
  CHECK(ahead.requests[0].kv_arrival_s == Approx(now.requests[0].kv_arrival_s).epsilon(1e-12));
  auto first_decode = [](const ServingResult& r) {
    for (const IterationRecord& it : r.iterations) {
      if (it.worker == 1) return it.start_s;
    }
    return -1.0;
  };
  CHECK(first_decode(ahead) == Approx(now.requests[0].kv_arrival_s).epsilon(1e-12));
  CHECK(first_decode(now) == Approx(now.requests[0].kv_arrival_s).epsilon(1e-12));
  CHECK(ahead.requests[1].kv_arrival_s == Approx(now.requests[1].kv_arrival_s).epsilon(1e-12));
  // The decode instance's first iteration holding the second request: the one after the first
  // that starts once its KV cache is there.
  auto first_with_two = [](const ServingResult& r) {
    for (const IterationRecord& it : r.iterations) {
      if (it.worker == 1 && it.decode_sequences == 2) return it.start_s;
    }
    FAIL("no decode iteration of both requests");
    return 0.0;
  };
  auto decode_starts_after = [](const ServingResult& r, double t) {
    std::vector<double> starts;
    for (const IterationRecord& it : r.iterations) {
      if (it.worker == 1 && it.start_s >= t) starts.push_back(it.start_s);
    }
    return starts;
  };
  const double kv = now.requests[1].kv_arrival_s;
  CHECK(first_with_two(now) == Approx(decode_starts_after(now, kv).at(0)).epsilon(1e-12));
  CHECK(first_with_two(ahead) == Approx(decode_starts_after(ahead, kv).at(1)).epsilon(1e-12));
  CHECK(ahead.requests[1].finish_s > now.requests[1].finish_s);
  // The prefill instances keep taking prompts as they come unless asked: no prefill iteration moved.
  for (const ServingResult* r : {&now, &ahead}) CHECK(r->requests[1].first_token_s == Approx(now.requests[1].first_token_s).epsilon(1e-12));
}

TEST_CASE("scheduling ahead: an engine holding no requests takes the next one at once", "[systemc][serving]") {
  // One client: each request is alone, so the loop waits on its queue and takes it as it comes.
  ServingSetup s = serving_setup(3, 1, "64", "4");
  const ServingResult plain = run_serving(s);
  s.scheduler.schedule_ahead = true;
  const ServingResult ahead = run_serving(s);
  REQUIRE(ahead.requests.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(ahead.requests[i].first_token_s == Approx(plain.requests[i].first_token_s).epsilon(1e-12));
}
