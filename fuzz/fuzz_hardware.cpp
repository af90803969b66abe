// libFuzzer target: a hardware TOML file (core/hardware.hpp). Refusing the input with an
// InputError (ConfigError) is the expected outcome; any other exception, a sanitizer report or
// a signal is a finding.
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = roofsim::fuzz::write_input("hw.toml", data, size);
  try {
    const roofsim::HardwareSpec hw = roofsim::load_hardware_file(path);
    (void)hw.tile_buffer_memory();
  } catch (const roofsim::InputError&) {
  }
  return 0;
}
