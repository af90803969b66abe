// Speed of roofsim's systolic tile cost against the cycle-stepped array it is checked against
// (tests/systolic_reference.hpp): the same GEMMs on one 128x128 array whose loads do not
// overlap, in each dataflow. Prints cycles from both, their difference, wall time and the speed
// ratio. Measured, never asserted (a shared machine). `cmake --build build --target bench_systolic`.
#include <systemc>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <unistd.h>

#include "core/hardware.hpp"
#include "experiment/single_op.hpp"
#include "tests/systolic_reference.hpp"

using namespace roofsim;
using namespace roofsim::test;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Gemm {
  std::int64_t m, n, k;
};

}  // namespace

int sc_main(int, char*[]) {
  const std::vector<Gemm> gemms = {{1, 1024, 1024}, {128, 512, 512}, {300, 700, 1000}, {1024, 1024, 1024}, {2048, 256, 2048}};
  std::printf("%-18s %-12s %12s %12s %8s %12s %12s %9s\n", "dataflow", "M,N,K", "array cyc", "roofsim cyc", "diff",
              "array s", "roofsim s", "speed-up");
  double total_ref = 0, total_ours = 0;
  for (const char* flow_name : {"weight_stationary", "output_stationary", "input_stationary"}) {
    const ReferenceFlow flow = std::string(flow_name) == "weight_stationary"   ? ReferenceFlow::weight_stationary
                               : std::string(flow_name) == "output_stationary" ? ReferenceFlow::output_stationary
                                                                                 : ReferenceFlow::input_stationary;
    const std::string path = "/tmp/roofsim_systolic_bench_" + std::to_string(::getpid()) + ".toml";
    std::ofstream(path) << single_array_hardware(flow_name);
    const HardwareSpec hw = load_hardware_file(path);
    std::remove(path.c_str());
    for (const Gemm& g : gemms) {
      std::mt19937 rng(7);
      std::uniform_int_distribution<int> d(-4, 4);
      IntMatrix a(g.m, g.k), b(g.k, g.n), c;
      for (auto& v : a.v) v = d(rng);
      for (auto& v : b.v) v = d(rng);
      auto t0 = std::chrono::steady_clock::now();
      SystolicArrayReference array(128, 128);
      const std::int64_t ref = array.run(flow, a, b, c);
      const double ref_s = seconds_since(t0);
      t0 = std::chrono::steady_clock::now();
      const OpsRunResult r = run_ops(hw, false, {gemm_op(GemmShape{1, g.m, g.n, g.k}, "gemm")});
      const double ours_s = seconds_since(t0);
      const double ours = r.ops.front().result.seconds() * 1e9;
      total_ref += ref_s;
      total_ours += ours_s;
      const std::string shape = std::to_string(g.m) + "," + std::to_string(g.n) + "," + std::to_string(g.k);
      std::printf("%-18s %-12s %12lld %12.0f %+7.2f%% %12.4f %12.4f %8.0fx\n", flow_name, shape.c_str(),
                  static_cast<long long>(ref), ours, 100.0 * (ours - static_cast<double>(ref)) / static_cast<double>(ref),
                  ref_s, ours_s, ref_s / ours_s);
      std::fflush(stdout);
    }
  }
  std::printf("total: cycle-stepped array %.2f s, roofsim op simulation %.4f s: %.0fx faster\n", total_ref, total_ours,
              total_ref / total_ours);
  return 0;
}

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
