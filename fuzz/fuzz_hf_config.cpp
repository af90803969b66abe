// libFuzzer target: a Hugging Face config.json (workloads/hf_config.hpp). InputError is the
// expected refusal; anything else is a finding, and so is a model it accepts that
// check_model() refuses (fuzz/model_checks.hpp).
#include "core/error.hpp"
#include "fuzz/fuzz_input.hpp"
#include "fuzz/model_checks.hpp"
#include "workloads/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = roofsim::fuzz::write_input("config.json", data, size);
  try {
    roofsim::fuzz::check_loaded_model(roofsim::load_hf_config(path));
  } catch (const roofsim::InputError&) {
  }
  return 0;
}
