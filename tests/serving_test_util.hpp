#pragma once
// Serving tests' shared setups: Llama-3-8B's layer, 4 of them (the real model's shapes, an
// eighth of its time: about a second a run), and a closed-loop workload.
#include <string>

#include "serving/serving.hpp"
#include "tests/test_util.hpp"

namespace roofsim::test {

inline std::string small_serving_model() {
  static const std::string path =
      write_temp(replace_once(preset_text("models", "llama-3-8b"), "layers = 32", "layers = 4"), "model");
  return path;
}

inline ServingSetup serving_setup(std::int64_t requests, std::int64_t concurrency, const std::string& prompt,
                                  const std::string& output) {
  ServingSetup s;
  s.machine.model = small_serving_model();
  s.workload.arrivals.kind = Arrivals::Kind::closed_loop;
  s.workload.arrivals.concurrency = concurrency;
  s.workload.requests = requests;
  s.workload.prompt = parse_length_distribution(prompt, "prompt");
  s.workload.output = parse_length_distribution(output, "output");
  return s;
}

}  // namespace roofsim::test
