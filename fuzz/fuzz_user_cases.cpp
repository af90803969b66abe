// libFuzzer target: a user's case table (experiment/public_cases.hpp load_user_cases; read
// only, nothing is simulated). InputError is the expected refusal; anything else is a finding.
#include "core/error.hpp"
#include "experiment/public_cases.hpp"
#include "fuzz/fuzz_input.hpp"

// libsystemc.so (linked through the experiment library) needs sc_main; see fuzz_experiment.cpp.
extern "C" int sc_main(int, char*[]) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = roofsim::fuzz::write_input("cases.csv", data, size);
  try {
    roofsim::load_user_cases(path);
  } catch (const roofsim::InputError&) {
  }
  return 0;
}
