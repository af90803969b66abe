#pragma once
// Checked conversions and arithmetic on quantities that come from users. Sizes multiply
// (batch x prompt x hidden, tp x pp x ep) and floats become integers (bytes, picoseconds);
// unchecked, an overflow or an inf turns into a small or negative number and a wrong answer
// that looks fine. Every such step goes through these helpers, which throw InputError naming
// the inputs instead.
#include <cstdint>
#include <string>

namespace roofsim {

// The largest size roofsim accepts for anything counted in bytes or elements (256 TiB).
inline constexpr double kMaxSize = 281474976710656.0;  // 2^48

// The work guard's default limit on a simulation's estimated work (events, with unit jobs as a
// tenth of an event): runaway runs, not big ones. A unit takes 0.1-0.4 us to simulate (measured
// on the presets' runs and ops; Llama-2-7B at batch 896, 128 tokens: 128 M units, 12 s), so the
// default stops runs of more than one to three minutes. `--max-events` changes it.
inline constexpr double kDefaultMaxEvents = 500e6;

// a * b and a + b of counts or sizes; `what` names the inputs ("${batch} x ${prompt}").
std::int64_t checked_mul(std::int64_t a, std::int64_t b, const std::string& what);
std::int64_t checked_add(std::int64_t a, std::int64_t b, const std::string& what);

// A number that must be a whole count: finite, integral and within [lo, hi].
std::int64_t checked_integer(double value, std::int64_t lo, std::int64_t hi, const std::string& what);

// Refuses `value` outside [lo, hi] with "what = value: must be between lo and hi (why)".
void check_range(std::int64_t value, std::int64_t lo, std::int64_t hi, const std::string& what,
                 const std::string& why = "");

}  // namespace roofsim
