// Collectives lowered to link transfers, against their closed forms. One simulation per case.
#include <catch2/catch.hpp>

#include "sim/collective_sim.hpp"
#include "validation/collective_bounds.hpp"

using namespace roofsim;

namespace {
HardwareSpec ideal_links(const char* preset) {
  HardwareSpec hw = load_hardware(preset);
  hw.links.efficiency = 1.0;  // latency stays: the closed form has it
  return hw;
}
CollectiveSpec allreduce(CollectiveAlgo a, std::uint64_t bytes) {
  return CollectiveSpec{CollectiveKind::allreduce, a, bytes, {}};
}
}  // namespace

TEST_CASE("ring all-reduce on 8 chips: within 1% of 2(p-1)/p n/B + 2(p-1) alpha", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("h100_sxm5");
  const std::uint64_t n = 64ull << 20;
  CollectiveResult r = simulate_collective(hw, parse_topology("8"), allreduce(CollectiveAlgo::ring, n));
  const double closed = ring_allreduce_s(8, static_cast<double>(n), hw.links.bandwidth_per_direction, hw.links.latency_s);
  CHECK(r.sim_time_s == Approx(closed).epsilon(0.01));
  CHECK(r.sim_time_s >= closed * (1 - 1e-9));
}

TEST_CASE("torus all-reduce dimension by dimension matches its closed form", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("tpu_v4");
  const std::uint64_t n = 96ull << 20;
  CollectiveResult r = simulate_collective(hw, parse_topology("2x4x8"), allreduce(CollectiveAlgo::torus, n));
  CHECK(r.sim_time_s == Approx(torus_allreduce_s({2, 4, 8}, static_cast<double>(n), hw.links.bandwidth_per_direction,
                                                   hw.links.latency_s, false)).epsilon(0.01));
}

TEST_CASE("splitting the buffer over the dimensions keeps all six links busy", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("tpu_v4");
  const std::uint64_t n = 96ull << 20;
  CollectiveResult r = simulate_collective(hw, parse_topology("4x4x4"), allreduce(CollectiveAlgo::torus_split, n));
  const double B = hw.links.bandwidth_per_direction, a = hw.links.latency_s;
  CHECK(r.sim_time_s == Approx(torus_allreduce_s({4, 4, 4}, static_cast<double>(n), B, a, true)).epsilon(0.01));
  // About three times faster than one dimension order at a time.
  CHECK(r.sim_time_s < 0.4 * torus_allreduce_s({4, 4, 4}, static_cast<double>(n), B, a, false));
  for (const auto& link : r.links) CHECK(link.bytes > 0);
}

TEST_CASE("two collectives sharing the links take longer than one alone", "[systemc][collective]") {
  HardwareSpec hw = load_hardware("h100_sxm5");
  const CollectiveSpec spec = allreduce(CollectiveAlgo::ring, 256ull << 20);
  CollectiveResult two = simulate_collective(hw, parse_topology("switch:8"), spec, 2);
  const double one = collective_bound_s(hw, parse_topology("switch:8"), spec);
  CHECK(two.sim_time_s > 1.9 * one);
}

TEST_CASE("all-to-all through a switch matches its closed form", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("h100_sxm5");
  const Topology t = parse_topology("switch:8");
  CollectiveResult r = simulate_collective(hw, t, CollectiveSpec{CollectiveKind::alltoall, CollectiveAlgo::switch_oneshot, 64ull << 20, {}});
  const double port = hw.links.bandwidth_per_direction * static_cast<double>(hw.links.count);
  CHECK(r.sim_time_s == Approx(switch_oneshot_s(8, 64.0 * (1 << 20), port, hw.links.latency_s, 1)).epsilon(0.01));
}

TEST_CASE("8 x H100 NCCL ring all-reduce, large message: about 370 GB/s bus bandwidth (MB-H100-AR-RING)", "[systemc][validation]") {
  CollectiveResult r = simulate_collective(load_hardware("h100_sxm5"), parse_topology("switch:8"),
                                           allreduce(CollectiveAlgo::ring, 10'000'000'000ull));
  CHECK(r.busbw == Approx(370e9).epsilon(0.15));
}

TEST_CASE("a 4096-chip TPU v4 pod all-reduce runs link by link", "[systemc][collective]") {
  CollectiveResult r = simulate_collective(load_hardware("tpu_v4"), parse_topology("16x16x16"),
                                           allreduce(CollectiveAlgo::torus_split, 64ull << 20));
  CHECK(r.sim_time_s >= r.bound_time_s * (1 - 1e-9));
  CHECK(r.events > 4096 * 6 * 15);  // every chip, every direction, every ring step
}

TEST_CASE("8 x H100 NVLink SHARP all-reduce: about 480 GB/s bus bandwidth (MB-H100-AR-NVLS)", "[systemc][validation]") {
  CollectiveResult r = simulate_collective(load_hardware("h100_sxm5"), parse_topology("switch:8"),
                                           allreduce(CollectiveAlgo::switch_reduce, 10'000'000'000ull));
  CHECK(r.busbw == Approx(480e9).epsilon(0.15));
}
