#pragma once
// The requests a serving run receives: when each arrives and how many prompt and output tokens
// it has. Open loop (Poisson arrivals at a rate, or bursts), closed loop (a fixed number of
// clients, each sending its next request when the previous one finishes, as trtllm-bench and
// vLLM's benchmark_serving do at a set concurrency), or a trace file. Everything random is
// drawn from one seeded generator with roofsim's own transforms (not <random>'s distributions,
// whose output differs between standard libraries), so a seed gives the same requests anywhere.
#include <cstdint>
#include <string>
#include <vector>

#include "core/limits.hpp"

namespace roofsim {

// A length distribution in tokens. Draws are rounded to whole tokens and clamped to [min, max].
struct LengthDistribution {
  enum class Kind { fixed, uniform, normal, lognormal };
  Kind kind = Kind::fixed;
  double mean = 1024;   // fixed: the value; uniform: (min + max) / 2 is used instead
  double stddev = 0;    // normal and lognormal: of the lengths themselves (not of their log)
  std::int64_t min = 1, max = 1 << 24;
};

// Parses "1024", "uniform:512:1536", "normal:1000:200", "lognormal:1000:400" (mean, stddev in
// tokens; optional ":MIN:MAX" after normal/lognormal). Throws InputError naming `what` (a flag
// or a key, written ${name}) and saying what is expected.
LengthDistribution parse_length_distribution(const std::string& text, const std::string& what);
std::string describe(const LengthDistribution& d);  // "lognormal mean 1000 sd 400 [1, 4096]"
// As parse_length_distribution reads it: "lognormal:1024:512" (":MIN:MAX" after a normal or
// lognormal whose bounds are not the defaults).
std::string length_form(const LengthDistribution& d);

// The latest arrival a workload may have: 1e6 s (11.6 days). The serving clock is a double in
// seconds; beyond this, sums such as arrival + TTFT lose the microseconds the latencies are
// made of, and the results would be silently wrong.
constexpr double kMaxArrivalS = 1e6;
// Most requests in a workload or trace (a request's lengths: kMaxTokens, core/limits.hpp).
constexpr std::int64_t kMaxWorkloadRequests = 10'000'000;

struct Arrivals {
  enum class Kind { closed_loop, poisson, burst, trace };
  Kind kind = Kind::closed_loop;
  std::int64_t concurrency = 8;  // closed loop: clients, each with one request outstanding
  // Closed loop: the clients' first requests spread evenly over this time (client i sends at
  // i x ramp_s / concurrency) instead of all at 0, so that completions do not come in waves.
  double ramp_s = 0;
  double rate_per_s = 1;         // poisson: mean arrivals per second
  std::int64_t burst_size = 1;   // burst: requests that arrive together...
  double burst_interval_s = 1;   // ...every this many seconds
};

// One request. Closed-loop requests have no arrival time of their own: arrival_s is -1 and the
// engine sends request i when a client is free (clients take requests in index order).
struct RequestSpec {
  std::int64_t id = 0;
  double arrival_s = -1;
  std::int64_t prompt_tokens = 0;
  std::int64_t output_tokens = 0;
  // Requests with the same prefix id share their first prefix_tokens prompt tokens (prefix
  // caching); -1: none.
  std::int64_t prefix_id = -1;
  std::int64_t prefix_tokens = 0;
  long line = 0;  // its line in the trace file (0: generated)
};

struct WorkloadSpec {
  Arrivals arrivals;
  std::int64_t requests = 100;
  LengthDistribution prompt, output;
  std::uint64_t seed = 1;
  std::string trace_path;  // Arrivals::Kind::trace: CSV or JSONL (see read_trace)
};

// What a serving run serves when it is not told otherwise (`roofsim serve` without arrival or
// length flags, the Python module's serve(), the web page): Poisson arrivals at
// kDefaultServingRate requests per second, prompts lognormal with mean 1024 and sd 512 tokens,
// outputs lognormal with mean 128 and sd 64, 100 requests. Llama-3-8B on one H100 saturates near
// 29 requests/s at these lengths (a closed loop of 256 clients: `roofsim serve --concurrency 256
// --requests 1000 --prompt lognormal:1024:512 --output lognormal:128:64`), so the default load is
// about 70% of it: requests queue now and then, and p99 differs from p50.
inline constexpr double kDefaultServingRate = 20;
WorkloadSpec default_serving_workload();
// Requests in all when none are asked for: ten per client in a closed loop, else the default
// workload's.
std::int64_t default_request_count(const Arrivals& a);

// The requests of a workload, in id order (open loop: in arrival order too). Throws InputError
// for impossible settings (no requests, a rate <= 0, ...).
std::vector<RequestSpec> generate_requests(const WorkloadSpec& w);

// A trace file: CSV with a header, or JSON Lines (one object per line), with the columns / keys
//   arrival_s (or arrival_ms), prompt_tokens, output_tokens, and optionally prefix_id,
//   prefix_tokens.
// Times must be in [0, kMaxArrivalS] and not decreasing; lengths >= 1. Errors name PATH:LINE: column.
std::vector<RequestSpec> read_trace(const std::string& path);

// Writes requests as a trace CSV that read_trace reads back identically.
void write_trace(const std::string& path, const std::vector<RequestSpec>& requests);

}  // namespace roofsim
