// libFuzzer target: the measured kernel tables (experiment/kernel_tables.hpp). The first byte
// of the input picks the table ('0' gemm.csv, '1' nccl.csv, ... in kernel_table_files()
// order), the rest is its text, alone in a folder. validate_kernel_tables reads every row
// before it simulates the first; the run is cancelled there, so this fuzzes the reading (the
// rows' simulations are the SystemC components', not a reader's). InputError and Cancelled
// are the expected outcomes; anything else is a finding.
#include <filesystem>

#include "core/error.hpp"
#include "core/hardware.hpp"
#include "experiment/kernel_tables.hpp"
#include "fuzz/fuzz_input.hpp"

// libsystemc.so (linked through the experiment library) needs sc_main; see fuzz_experiment.cpp.
extern "C" int sc_main(int, char*[]) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const roofsim::HardwareSpec hw = roofsim::load_hardware("h100_sxm5");
  static const std::vector<std::string> files = roofsim::kernel_table_files();
  if (size == 0) return 0;
  const int pick = ((static_cast<int>(data[0]) - '0') % static_cast<int>(files.size()) + static_cast<int>(files.size())) %
                   static_cast<int>(files.size());
  const std::filesystem::path dir = roofsim::fuzz::scratch_dir() / "kernels";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir);
  roofsim::fuzz::write_input("kernels/" + files[static_cast<std::size_t>(pick)], data + 1, size - 1);
  roofsim::RunControl stop_before_simulating;
  stop_before_simulating.cancelled = [] { return true; };
  try {
    roofsim::validate_kernel_tables(dir.string(), hw, stop_before_simulating);
  } catch (const roofsim::InputError&) {
  } catch (const roofsim::Cancelled&) {
  }
  return 0;
}
