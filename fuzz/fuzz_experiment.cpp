// libFuzzer target: an experiment TOML file (experiment/inference.hpp; read only, nothing is
// simulated). InputError is the expected refusal; anything else is a finding.
#include "core/error.hpp"
#include "experiment/inference.hpp"
#include "fuzz/fuzz_input.hpp"

// The experiment library links libsystemc.so, which defines main() and needs sc_main. This
// program's main is libFuzzer's (an executable's own definition wins over a shared library's);
// sc_main is never called.
extern "C" int sc_main(int, char*[]) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = roofsim::fuzz::write_input("experiment.toml", data, size);
  try {
    roofsim::load_experiment_file(path);
  } catch (const roofsim::InputError&) {
  }
  return 0;
}
