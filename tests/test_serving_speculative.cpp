// Serving: speculative decoding, disaggregated prefill and decode, prefix caching, chunked prefill
// and the requests a machine cannot serve. Most cases use a 4-layer Llama-3-8B.
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
  s.disaggregation.routing = "round_robin";
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
  s.kv.admission = "on_demand";
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
