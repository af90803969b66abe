// Test runner for tests that need the SystemC kernel. libsystemc.so defines main(), so Catch's
// ready-made main cannot be used: Catch runs from sc_main. ctest runs each test case in its
// own process (catch_discover_tests), which keeps failures apart; simulations themselves are
// re-entrant (components/sim_context.hpp), so running the binary once runs every case too.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdlib>
#include <systemc>

int sc_main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
