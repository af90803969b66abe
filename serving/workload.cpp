#include "serving/workload.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/csv.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/parse.hpp"

namespace roofsim {

namespace {

// The streams: prompts use the seed itself, outputs and arrivals the seed xor a constant, so
// that changing one distribution (or the arrival process) leaves the other draws as they were.
constexpr std::uint64_t kOutputStream = 0x9E3779B97F4A7C15ull;
constexpr std::uint64_t kArrivalStream = 0xD1B54A32D192ED03ull;

// ---- random numbers: std::mt19937_64 for bits (its sequence is fixed by the standard), our own
// transforms for everything else.

// [0, 1) from the top 53 bits.
double uniform01(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

// (0, 1]: safe to take the log of.
double uniform01_open_low(std::mt19937_64& g) { return 1.0 - uniform01(g); }

// Exponential with mean 1 by inverse CDF.
double exponential1(std::mt19937_64& g) { return -std::log(uniform01_open_low(g)); }

// Standard normal by Box-Muller (the cosine branch; each draw takes two uniforms).
double standard_normal(std::mt19937_64& g) {
  const double u1 = uniform01_open_low(g);
  const double u2 = uniform01(g);
  constexpr double two_pi = 6.283185307179586476925286766559;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(two_pi * u2);
}

std::string kind_name(LengthDistribution::Kind k) {
  switch (k) {
    case LengthDistribution::Kind::fixed: return "fixed";
    case LengthDistribution::Kind::uniform: return "uniform";
    case LengthDistribution::Kind::normal: return "normal";
    case LengthDistribution::Kind::lognormal: return "lognormal";
  }
  return "?";
}

// sigma^2 of the underlying normal for lengths with this mean and sd.
double lognormal_sigma2(double mean, double sd) {
  const double ratio = sd / mean;
  return std::log1p(ratio * ratio);
}

// The checks every distribution passes before anything is drawn from it. `what` names it.
void check_distribution(const LengthDistribution& d, const std::string& what) {
  const std::string max_text = std::to_string(kMaxTokens);
  if (d.min < 1 || d.min > kMaxTokens) {
    throw InputError(what + ": min " + std::to_string(d.min) + " is not between 1 and " + max_text + " tokens");
  }
  if (d.max < 1 || d.max > kMaxTokens) {
    throw InputError(what + ": max " + std::to_string(d.max) + " is not between 1 and " + max_text + " tokens");
  }
  if (d.min > d.max) {
    throw InputError(what + ": min " + std::to_string(d.min) + " is above max " + std::to_string(d.max));
  }
  if (d.kind == LengthDistribution::Kind::uniform) return;  // mean and sd are not used
  if (!std::isfinite(d.mean) || d.mean <= 0) {
    throw InputError(what + ": the mean must be a positive finite number of tokens, got " + format_general(d.mean));
  }
  if (d.kind == LengthDistribution::Kind::fixed) return;
  if (!std::isfinite(d.stddev) || d.stddev < 0) {
    throw InputError(what + ": the standard deviation must be a finite number >= 0, got " + format_general(d.stddev));
  }
  if (d.kind == LengthDistribution::Kind::lognormal && !std::isfinite(lognormal_sigma2(d.mean, d.stddev))) {
    throw InputError(what + ": lognormal sd " + format_general(d.stddev) + " is too large for mean " +
                     format_general(d.mean));
  }
}

// Rounds to whole tokens and clamps to [lo, hi]; the comparisons are in double, before the
// conversion (NaN and infinities land on a bound).
std::int64_t round_clamp(double v, std::int64_t lo, std::int64_t hi) {
  const double r = std::round(v);
  if (!(r >= static_cast<double>(lo))) return lo;
  if (r >= static_cast<double>(hi)) return hi;
  return static_cast<std::int64_t>(r);
}

std::int64_t draw(const LengthDistribution& d, std::mt19937_64& g) {
  switch (d.kind) {
    case LengthDistribution::Kind::fixed: return round_clamp(d.mean, d.min, d.max);
    case LengthDistribution::Kind::uniform: {
      const double n = static_cast<double>(d.max - d.min + 1);
      const auto k = static_cast<std::int64_t>(std::floor(uniform01(g) * n));
      return std::min(d.min + k, d.max);
    }
    case LengthDistribution::Kind::normal: return round_clamp(d.mean + d.stddev * standard_normal(g), d.min, d.max);
    case LengthDistribution::Kind::lognormal: {
      const double sigma2 = lognormal_sigma2(d.mean, d.stddev);
      const double mu = std::log(d.mean) - sigma2 / 2;
      return round_clamp(std::exp(mu + std::sqrt(sigma2) * standard_normal(g)), d.min, d.max);
    }
  }
  return d.min;
}

std::string accepted_forms() {
  return "expected N, uniform:MIN:MAX, normal:MEAN:SD[:MIN:MAX] or lognormal:MEAN:SD[:MIN:MAX] (lengths in tokens: "
         "whole numbers from 1 to " +
         std::to_string(kMaxTokens) + "; MEAN > 0, SD >= 0)";
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out(1);
  for (char c : text) {
    if (c == sep) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

}  // namespace

WorkloadSpec default_serving_workload() {
  WorkloadSpec w;
  w.arrivals.kind = Arrivals::Kind::poisson;
  w.arrivals.rate_per_s = kDefaultServingRate;
  w.requests = 100;
  w.prompt = parse_length_distribution("lognormal:1024:512", "the default prompt");
  w.output = parse_length_distribution("lognormal:128:64", "the default output");
  return w;
}

std::int64_t default_request_count(const Arrivals& a) {
  return a.kind == Arrivals::Kind::closed_loop ? 10 * a.concurrency : default_serving_workload().requests;
}

LengthDistribution parse_length_distribution(const std::string& text, const std::string& what) {
  const std::string head = what + " '" + text + "': ";
  auto fail = [&](const std::string& problem) -> InputError {
    return InputError(head + (problem.empty() ? "" : problem + "; ") + accepted_forms());
  };
  auto length = [&](const std::string& part, const std::string& name) {
    const auto v = parse_strict_integer(part);
    if (!v) throw fail(name + " '" + part + "' is not a whole number");
    if (*v < 1 || *v > kMaxTokens) throw fail(name + " " + part + " is not between 1 and " + std::to_string(kMaxTokens));
    return *v;
  };
  auto number = [&](const std::string& part, const std::string& name) {
    const auto v = parse_strict_number(part);
    if (!v) throw fail(name + " '" + part + "' is not a number");
    return *v;
  };

  const std::vector<std::string> parts = split(text, ':');
  LengthDistribution d;
  if (text.empty()) throw fail("empty");
  if (parts.size() == 1) {
    d.kind = LengthDistribution::Kind::fixed;
    d.mean = static_cast<double>(length(parts[0], "the length"));
  } else if (parts[0] == "uniform") {
    if (parts.size() != 3) throw fail("uniform takes MIN:MAX");
    d.kind = LengthDistribution::Kind::uniform;
    d.min = length(parts[1], "MIN");
    d.max = length(parts[2], "MAX");
    if (d.min > d.max) throw fail("MIN " + parts[1] + " is above MAX " + parts[2]);
    d.mean = (static_cast<double>(d.min) + static_cast<double>(d.max)) / 2;
  } else if (parts[0] == "normal" || parts[0] == "lognormal") {
    if (parts.size() != 3 && parts.size() != 5) throw fail(parts[0] + " takes MEAN:SD or MEAN:SD:MIN:MAX");
    d.kind = parts[0] == "normal" ? LengthDistribution::Kind::normal : LengthDistribution::Kind::lognormal;
    d.mean = number(parts[1], "MEAN");
    d.stddev = number(parts[2], "SD");
    if (d.mean <= 0) throw fail("MEAN " + parts[1] + " is not positive");
    if (d.stddev < 0) throw fail("SD " + parts[2] + " is negative");
    if (parts.size() == 5) {
      d.min = length(parts[3], "MIN");
      d.max = length(parts[4], "MAX");
      if (d.min > d.max) throw fail("MIN " + parts[3] + " is above MAX " + parts[4]);
    }
  } else {
    throw fail("");
  }
  check_distribution(d, what);
  return d;
}

std::string describe(const LengthDistribution& d) {
  const std::string range = "[" + std::to_string(d.min) + ", " + std::to_string(d.max) + "]";
  switch (d.kind) {
    case LengthDistribution::Kind::fixed: return "fixed " + std::to_string(round_clamp(d.mean, d.min, d.max));
    case LengthDistribution::Kind::uniform: return "uniform " + range;
    case LengthDistribution::Kind::normal:
    case LengthDistribution::Kind::lognormal:
      return kind_name(d.kind) + " mean " + format_general(d.mean) + " sd " + format_general(d.stddev) + " " + range;
  }
  return "?";
}

std::string length_form(const LengthDistribution& d) {
  const auto n = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.12g", v);  // read back as the same double
    return std::string(text);
  };
  const LengthDistribution whole;
  const std::string bounds = d.min != whole.min || d.max != whole.max ? ":" + std::to_string(d.min) + ":" + std::to_string(d.max) : "";
  switch (d.kind) {
    case LengthDistribution::Kind::fixed: return n(d.mean);
    case LengthDistribution::Kind::uniform: return "uniform:" + std::to_string(d.min) + ":" + std::to_string(d.max);
    case LengthDistribution::Kind::normal:
    case LengthDistribution::Kind::lognormal: return kind_name(d.kind) + ":" + n(d.mean) + ":" + n(d.stddev) + bounds;
  }
  return n(d.mean);
}

std::vector<RequestSpec> generate_requests(const WorkloadSpec& w) {
  const Arrivals& a = w.arrivals;
  if (a.kind == Arrivals::Kind::trace) {
    if (w.trace_path.empty()) throw InputError("${requests_from}: trace arrivals need a trace file");
    return read_trace(w.trace_path);
  }
  if (w.requests < 1 || w.requests > kMaxWorkloadRequests) {
    throw InputError("${requests} " + std::to_string(w.requests) + ": must be between 1 and " +
                     std::to_string(kMaxWorkloadRequests));
  }
  switch (a.kind) {
    case Arrivals::Kind::closed_loop:
      if (a.concurrency < 1) {
        throw InputError("${concurrency} " + std::to_string(a.concurrency) + ": a closed loop needs at least 1 client");
      }
      break;
    case Arrivals::Kind::poisson:
      if (!std::isfinite(a.rate_per_s) || a.rate_per_s <= 0) {
        throw InputError("${rate} " + format_general(a.rate_per_s) + ": must be a positive finite number of requests per second");
      }
      break;
    case Arrivals::Kind::burst:
      if (a.burst_size < 1) throw InputError("${burst} " + std::to_string(a.burst_size) + ": must be at least 1");
      if (!std::isfinite(a.burst_interval_s) || a.burst_interval_s <= 0) {
        throw InputError("${burst_interval_ms} " + format_general(a.burst_interval_s * 1e3) +
                         ": must be a positive finite number of milliseconds");
      }
      break;
    case Arrivals::Kind::trace: break;
  }
  check_distribution(w.prompt, "${prompt}");
  check_distribution(w.output, "${output}");

  std::mt19937_64 prompt_rng(w.seed), output_rng(w.seed ^ kOutputStream), arrival_rng(w.seed ^ kArrivalStream);
  std::vector<RequestSpec> out(static_cast<std::size_t>(w.requests));
  double t = 0;
  for (std::int64_t i = 0; i < w.requests; ++i) {
    RequestSpec& r = out[static_cast<std::size_t>(i)];
    r.id = i;
    r.prompt_tokens = draw(w.prompt, prompt_rng);
    r.output_tokens = draw(w.output, output_rng);
    switch (a.kind) {
      case Arrivals::Kind::closed_loop: r.arrival_s = -1; break;
      case Arrivals::Kind::poisson:
        t += exponential1(arrival_rng) / a.rate_per_s;
        r.arrival_s = t;
        break;
      case Arrivals::Kind::burst: r.arrival_s = static_cast<double>(i / a.burst_size) * a.burst_interval_s; break;
      case Arrivals::Kind::trace: break;
    }
  }
  // A slow rate or a long interval can put the last requests beyond what the clock resolves.
  const double last_s = out.back().arrival_s;
  if (last_s > kMaxArrivalS) {
    const bool poisson = a.kind == Arrivals::Kind::poisson;
    const std::string setting = poisson ? "${rate} " + format_general(a.rate_per_s)
                                        : "${burst_interval_ms} " + format_general(a.burst_interval_s * 1e3);
    throw InputError(setting + ": the last of the " + std::to_string(w.requests) + " requests arrives at " +
                     format_general(last_s) + " s, beyond the latest arrival roofsim simulates, " +
                     format_general(kMaxArrivalS) + " s (11.6 days); " +
                     (poisson ? "raise the rate" : "shorten the interval, enlarge the bursts") + " or send fewer requests");
  }
  return out;
}

}  // namespace roofsim
