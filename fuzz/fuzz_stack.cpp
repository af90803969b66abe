// libFuzzer target: a software-stack TOML file (experiment/stack.hpp), loaded and put on an
// H100 experiment (its kernel parameters edit the hardware document, which the hardware
// loader checks again; nothing is simulated). InputError is the expected refusal; anything
// else is a finding.
#include "core/error.hpp"
#include "experiment/stack.hpp"
#include "fuzz/fuzz_input.hpp"

// The experiment library links libsystemc.so, which defines main() and needs sc_main. This
// program's main is libFuzzer's; sc_main is never called.
extern "C" int sc_main(int, char*[]) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = roofsim::fuzz::write_input("stack.toml", data, size);
  try {
    roofsim::Experiment e;
    e.hw = "h100_sxm5";
    roofsim::apply_stack(roofsim::load_stack(path), e, false, false);
  } catch (const roofsim::InputError&) {
  }
  return 0;
}
