#pragma once
// Helpers of the serving-workload tests (tests/test_serving_workload.cpp, test_serving_traces.cpp).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

#include "core/error.hpp"
#include "serving/workload.hpp"

namespace roofsim::test_workload {

namespace fs = std::filesystem;

// The raw message (${name} marks kept) of the InputError that f throws, or a marker when it
// throws nothing.
inline std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.raw();
  }
  return "(no InputError)";
}

// A number per call in this process (one counter however many files include this).
inline int next_number() {
  static int counter = 0;
  return counter++;
}

// A folder of its own under the system temp folder, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("roofsim_workload_" + std::to_string(::getpid()) + "_" + std::to_string(next_number()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = (path / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
};

struct Stats {
  double mean = 0, sd = 0;
};
inline Stats stats(const std::vector<double>& v) {
  Stats s;
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  for (double x : v) s.sd += (x - s.mean) * (x - s.mean);
  s.sd = std::sqrt(s.sd / static_cast<double>(v.size() - 1));
  return s;
}

inline WorkloadSpec closed(std::int64_t n, const std::string& prompt, const std::string& output, std::uint64_t seed = 1) {
  WorkloadSpec w;
  w.requests = n;
  w.prompt = parse_length_distribution(prompt, "${prompt}");
  w.output = parse_length_distribution(output, "${output}");
  w.seed = seed;
  return w;
}

inline std::vector<double> prompts_of(const std::vector<RequestSpec>& r) {
  std::vector<double> v;
  for (const auto& q : r) v.push_back(static_cast<double>(q.prompt_tokens));
  return v;
}
inline std::vector<double> outputs_of(const std::vector<RequestSpec>& r) {
  std::vector<double> v;
  for (const auto& q : r) v.push_back(static_cast<double>(q.output_tokens));
  return v;
}

inline bool same(const std::vector<RequestSpec>& a, const std::vector<RequestSpec>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].id != b[i].id || a[i].arrival_s != b[i].arrival_s || a[i].prompt_tokens != b[i].prompt_tokens ||
        a[i].output_tokens != b[i].output_tokens || a[i].prefix_id != b[i].prefix_id ||
        a[i].prefix_tokens != b[i].prefix_tokens) {
      return false;
    }
  }
  return true;
}

}  // namespace roofsim::test_workload
