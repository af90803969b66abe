// Serving workloads: trace files, written and read, CSV and JSON Lines (serving/workload.hpp).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "serving/workload.hpp"
#include "tests/serving_workload_util.hpp"

using namespace roofsim;
using namespace roofsim::test_workload;

TEST_CASE("a written trace reads back identically", "[serving]") {
  TempDir dir;
  WorkloadSpec w = closed(300, "lognormal:1000:700", "normal:200:100", 9);
  w.arrivals.kind = Arrivals::Kind::poisson;
  w.arrivals.rate_per_s = 7.3;
  auto requests = generate_requests(w);
  // Four prefixes of 100 tokens on the prompts long enough for them (one prefix, one length).
  for (std::size_t i = 0; i < requests.size(); i += 3) {
    if (requests[i].prompt_tokens < 100) continue;
    requests[i].prefix_id = static_cast<std::int64_t>(i % 4);
    requests[i].prefix_tokens = 100;
  }
  requests[1].prefix_id = 9;  // a prefix id with no tokens
  requests[1].prefix_tokens = 0;
  const std::string path = (dir.path / "round.csv").string();
  write_trace(path, requests);
  const auto back = read_trace(path);
  CHECK(same(requests, back));

  // Bursts (equal times) and a time with no short decimal form too.
  WorkloadSpec b = closed(7, "uniform:1:16777216", "3");
  b.arrivals.kind = Arrivals::Kind::burst;
  b.arrivals.burst_size = 3;
  b.arrivals.burst_interval_s = 0.1;
  auto bursts = generate_requests(b);
  bursts.back().arrival_s = 1.0 / 3.0;
  write_trace(path, bursts);
  CHECK(same(bursts, read_trace(path)));

  // A trace workload reads the file and leaves the length distributions alone.
  WorkloadSpec t = closed(5, "normal:10:1", "normal:10:1");
  t.arrivals.kind = Arrivals::Kind::trace;
  t.trace_path = path;
  CHECK(same(generate_requests(t), bursts));
}

TEST_CASE("write_trace refuses what it cannot write", "[serving]") {
  TempDir dir;
  const auto closed_loop = generate_requests(closed(3, "10", "10"));
  CHECK_THAT(refusal([&] { write_trace((dir.path / "c.csv").string(), closed_loop); }),
             Catch::Contains("a trace needs arrival times"));
  CHECK_FALSE(fs::exists(dir.path / "c.csv"));
  CHECK_THAT(refusal([&] { write_trace((dir.path / "e.csv").string(), {}); }), Catch::Contains("no requests"));

  WorkloadSpec w = closed(3, "10", "10");
  w.arrivals.kind = Arrivals::Kind::poisson;
  const auto ok = generate_requests(w);
  const std::string missing = (dir.path / "no" / "such" / "folder" / "t.csv").string();
  CHECK_THAT(refusal([&] { write_trace(missing, ok); }), Catch::StartsWith(missing + ": cannot write"));
  if (fs::exists("/dev/full")) {  // the write succeeds, the flush at close fails
    CHECK_THAT(refusal([&] { write_trace("/dev/full", ok); }), Catch::StartsWith("/dev/full: cannot write"));
  }
  auto unsorted = ok;
  std::swap(unsorted[0].arrival_s, unsorted[2].arrival_s);
  CHECK_THAT(refusal([&] { write_trace((dir.path / "u.csv").string(), unsorted); }), Catch::Contains("arrives before"));
}

TEST_CASE("trace errors name the file, the line and the column", "[serving]") {
  TempDir dir;
  const std::string header = "arrival_s,prompt_tokens,output_tokens\n";
  struct Case {
    std::string name, text, expected;
  };
  const std::vector<Case> cases = {
      {"letters.csv", header + "0,10,10\n0.5,abc,10\n", ":3: prompt_tokens: expected an integer"},
      {"zero.csv", header + "0,0,10\n", ":2: prompt_tokens: expected a positive integer"},
      {"fraction.csv", header + "0,10,2.5\n", ":2: output_tokens: expected an integer"},
      {"huge.csv", header + "0,16777217,10\n", ":2: prompt_tokens: 16777217 is not between 1 and 16777216"},
      {"negative_time.csv", header + "-1,10,10\n", ":2: arrival_s: must be a finite time >= 0"},
      {"late_time.csv", header + "0,10,10\n1e300,10,10\n", ":3: arrival_s: 1e+300 is beyond the latest arrival roofsim simulates, 1e+06 s"},
      {"late_ms.csv", "arrival_ms,prompt_tokens,output_tokens\n1000000001,10,10\n", ":2: arrival_ms: 1000000001 is beyond"},
      {"nan_time.csv", header + "nan,10,10\n", ":2: arrival_s: expected a time"},
      {"inf_time.csv", header + "inf,10,10\n", ":2: arrival_s: expected a time"},
      {"junk_time.csv", header + "1.5s,10,10\n", ":2: arrival_s: expected a time"},
      {"empty_time.csv", header + ",10,10\n", ":2: arrival_s: expected a time"},
      {"unsorted.csv", header + "0,10,10\n# a comment\n2,10,10\n1.5,10,10\n",
       ":5: arrival_s: 1.5 s is before the previous request's 2 s (line 4)"},
      {"unsorted_ms.csv", "arrival_ms,prompt_tokens,output_tokens\n2000,10,10\n1000,10,10\n",
       ":3: arrival_ms: 1 s is before the previous request's 2 s (line 2)"},
      {"cells.csv", header + "0,10,10\n1,10\n", ":3: 2 cells, the header has 3"},
      {"both_times.csv", "arrival_s,arrival_ms,prompt_tokens,output_tokens\n0,0,10,10\n", "both arrival_s and arrival_ms"},
      {"no_time.csv", "prompt_tokens,output_tokens\n10,10\n", "missing column 'arrival_s' or 'arrival_ms'"},
      {"no_output.csv", "arrival_s,prompt_tokens\n0,10\n", "missing column 'output_tokens'"},
      {"unknown.csv", "arrival_s,prompt_tokens,output_tokens,prefix_tokenz\n0,10,10,5\n", "unknown column 'prefix_tokenz'"},
      {"prefix_long.csv", "arrival_s,prompt_tokens,output_tokens,prefix_id,prefix_tokens\n0,10,10,1,11\n",
       ":2: prefix_tokens: 11 is not between 0 and the prompt's 10 tokens"},
      {"prefix_alone.csv", "arrival_s,prompt_tokens,output_tokens,prefix_tokens\n0,10,10,5\n",
       ":2: prefix_tokens: 5 without a prefix_id"},
      {"prefix_no_length.csv", "arrival_s,prompt_tokens,output_tokens,prefix_id\n0,10,10,1\n",
       ":2: prefix_id: 1 without prefix_tokens"},
      {"prefix_two_lengths.csv", "arrival_s,prompt_tokens,output_tokens,prefix_id,prefix_tokens\n0,100,10,1,50\n0.1,100,10,1,60\n",
       ":3: prefix_tokens: 60 for prefix 1, which line 2 gave 50 tokens"},
      {"prefix_id.csv", "arrival_s,prompt_tokens,output_tokens,prefix_id\n0,10,10,-2\n", ":2: prefix_id: -2"},
      {"prefix_id_text.csv", "arrival_s,prompt_tokens,output_tokens,prefix_id\n0,10,10,x\n", ":2: prefix_id: expected an integer"},
      {"header_only.csv", header, "no requests"},
      {"empty.csv", "", "empty trace file"},
      {"blank.csv", "  \n\n \n", "empty trace file"},
      {"bom.csv", "\xEF\xBB\xBF" + header + "0,1,1\n", ":1: starts with a byte order mark"},
      {"array.json", "[{\"arrival_s\": 0, \"prompt_tokens\": 1, \"output_tokens\": 1}]\n", ":1: a JSON array"},
      {"bad_json.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": 1, \"output_tokens\": 1}\n{\"arrival_s\": 1,\n",
       ":2: not a JSON object"},
      {"not_object.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": 1, \"output_tokens\": 1}\n\n42\n",
       ":3: expected a JSON object"},
      {"missing_key.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": 1}\n", ":1: output_tokens: missing"},
      {"missing_time.jsonl", "{\"prompt_tokens\": 1, \"output_tokens\": 1}\n", ":1: arrival_s: missing"},
      {"both_times.jsonl", "{\"arrival_s\": 0, \"arrival_ms\": 0, \"prompt_tokens\": 1, \"output_tokens\": 1}\n",
       ":1: arrival_s and arrival_ms: give one of them"},
      {"string_length.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": \"12\", \"output_tokens\": 1}\n",
       ":1: prompt_tokens: expected a whole number, got \"12\""},
      {"fraction.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": 12.5, \"output_tokens\": 1}\n",
       ":1: prompt_tokens: expected a whole number, got 12.5"},
      {"zero.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": 12, \"output_tokens\": 0}\n",
       ":1: output_tokens: 0 is not between 1 and 16777216"},
      {"string_time.jsonl", "{\"arrival_s\": \"0\", \"prompt_tokens\": 12, \"output_tokens\": 1}\n",
       ":1: arrival_s: expected a time"},
      {"unknown.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": 12, \"output_tokens\": 1, \"text\": \"hi\"}\n",
       ":1: text: unknown key"},
      {"unsorted.jsonl",
       "{\"arrival_s\": 3, \"prompt_tokens\": 12, \"output_tokens\": 1}\n{\"arrival_s\": 2.5, \"prompt_tokens\": 12, "
       "\"output_tokens\": 1}\n",
       ":2: arrival_s: 2.5 s is before the previous request's 3 s (line 1)"},
      {"empty.jsonl", "\n\n", "empty trace file"},
      {"empty_object.jsonl", "  {}\n", ":1: arrival_s: missing"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string path = dir.write(c.name, c.text);
    const std::string msg = refusal([&] { read_trace(path); });
    CHECK_THAT(msg, Catch::StartsWith(path));
    CHECK_THAT(msg, Catch::Contains(c.expected));
  }
  CHECK_THAT(refusal([&] { read_trace((dir.path / "nothing.csv").string()); }), Catch::Contains("cannot open"));
  CHECK_THAT(refusal([&] { read_trace(dir.path.string()); }), Catch::Contains("a folder"));
}

TEST_CASE("JSON Lines traces are read, and the format is found without an extension", "[serving]") {
  TempDir dir;
  const std::string text =
      "{\"arrival_ms\": 0, \"prompt_tokens\": 100, \"output_tokens\": 10}\r\n"
      "\n"
      "{\"arrival_ms\": 1500, \"prompt_tokens\": 200.0, \"output_tokens\": 20, \"prefix_id\": null}\n"
      "  {\"arrival_s\": 1.5, \"output_tokens\": 30, \"prompt_tokens\": 300, \"prefix_id\": 7, \"prefix_tokens\": 64}\n"
      "{\"arrival_s\": 2, \"prompt_tokens\": 16777216, \"output_tokens\": 1, \"prefix_id\": -1}";
  for (const char* name : {"t.jsonl", "t.json", "t_no_extension", "t.txt"}) {
    INFO(name);
    const auto r = read_trace(dir.write(name, text));
    REQUIRE(r.size() == 4);
    CHECK(r[0].id == 0);
    CHECK(r[0].arrival_s == 0);
    CHECK(r[0].prompt_tokens == 100);
    CHECK(r[0].output_tokens == 10);
    CHECK(r[1].arrival_s == 1.5);
    CHECK(r[1].prompt_tokens == 200);
    CHECK(r[1].prefix_id == -1);
    CHECK(r[2].id == 2);
    CHECK(r[2].arrival_s == 1.5);
    CHECK(r[2].output_tokens == 30);
    CHECK(r[2].prefix_id == 7);
    CHECK(r[2].prefix_tokens == 64);
    CHECK(r[3].id == 3);
    CHECK(r[3].prompt_tokens == 16777216);
    CHECK(r[3].prefix_id == -1);
  }
  // The same content as CSV, found by its first character; arrival_ms converted to seconds.
  const auto c = read_trace(dir.write("c_no_extension", "arrival_ms,prompt_tokens,output_tokens\r\n250,5,6\r\n"));
  REQUIRE(c.size() == 1);
  CHECK(c[0].arrival_s == 0.25);
  CHECK(c[0].prompt_tokens == 5);
  // A .csv extension wins over the first character.
  CHECK_THAT(refusal([&] { read_trace(dir.write("x.csv", text)); }), Catch::EndsWith("x.csv:1: a JSON object in a .csv file: name a JSON Lines trace .jsonl"));
}

TEST_CASE("the shipped example traces read and match the generator", "[serving]") {
  const std::string dir = std::string(ROOFSIM_CONFIG_DIR) + "/traces/";
  for (const char* name : {"chat.csv", "code.csv", "shared_prefix.csv"}) {
    INFO(name);
    const auto r = read_trace(dir + name);
    CHECK(r.size() == 1000);
    CHECK(fs::file_size(dir + name) < 100000);
  }
  // scripts/make_traces.py re-implements the generator in Python; chat.csv and code.csv are what
  // generate_requests gives for the same settings (the script's SIMPLE list).
  struct Setting {
    const char* name;
    std::uint64_t seed;
    double rate;
    const char *prompt, *output;
  };
  for (const Setting& s : {Setting{"chat.csv", 1, 5.5, "lognormal:1000:1000:16:8192", "lognormal:250:250:1:2048"},
                           Setting{"code.csv", 2, 2.6, "lognormal:2000:1500:16:8192", "lognormal:20:20:1:512"}}) {
    INFO(s.name);
    WorkloadSpec w = closed(1000, s.prompt, s.output, s.seed);
    w.arrivals.kind = Arrivals::Kind::poisson;
    w.arrivals.rate_per_s = s.rate;
    const auto generated = generate_requests(w);
    const auto file = read_trace(dir + s.name);
    REQUIRE(file.size() == generated.size());
    CHECK(prompts_of(file) == prompts_of(generated));
    CHECK(outputs_of(file) == outputs_of(generated));
    std::size_t matching = 0;
    for (std::size_t i = 0; i < file.size(); ++i) matching += std::fabs(file[i].arrival_s - generated[i].arrival_s) <= 1e-9;
    CHECK(matching == file.size());
  }
}
