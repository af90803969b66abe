// NCCL's protocols and its choice, measured NCCL and custom all-reduce calls, and all-pairs
// meshes (MI300X), against their closed forms. One simulation per case.
#include <algorithm>

#include <catch2/catch.hpp>

#include "experiment/collective.hpp"
#include "tests/collective_test_util.hpp"
#include "validation/collective_bounds.hpp"

using namespace roofsim;
using namespace roofsim::test_collectives;

namespace {
CollectiveResult on_h100(const char* algo, CollectiveKind k, std::uint64_t bytes, int gpus, DType dtype = DType::bf16) {
  CollectiveSpec spec{k, CollectiveAlgo{algo}, bytes, {}};
  spec.group = chips_from(0, gpus);
  spec.dtype = dtype;
  return simulate_collective(load_hardware("h100_sxm5"), parse_topology("switch:8"), spec);
}
}  // namespace

TEST_CASE("NCCL ring with each protocol and NVLS match their closed forms", "[systemc][collective]") {
  for (const char* algo : {"nccl_ring_ll", "nccl_ring_ll128", "nccl_ring_simple", "nccl_nvls", "nccl"}) {
    for (std::uint64_t bytes : {std::uint64_t{4096}, std::uint64_t{1} << 20, std::uint64_t{64} << 20}) {
      CollectiveResult r = on_h100(algo, CollectiveKind::allreduce, bytes, 8);
      CHECK(r.sim_time_s == Approx(r.bound_time_s).epsilon(0.001));
      CHECK(r.sim_time_s >= r.bound_time_s * (1 - 1e-9));
    }
  }
}

TEST_CASE("NCCL's choice: LL for small calls, Simple ring or NVLS for large ones, by their costs", "[systemc][collective]") {
  // The protocols' own algorithms bracket what nccl picks.
  const std::uint64_t small = 8192, large = 256ull << 20;
  const double ll = on_h100("nccl_ring_ll", CollectiveKind::allreduce, small, 8).sim_time_s;
  CHECK(on_h100("nccl", CollectiveKind::allreduce, small, 8).sim_time_s == Approx(ll));
  CHECK(on_h100("nccl_ring_simple", CollectiveKind::allreduce, small, 8).sim_time_s > 2 * ll);
  const double nvls = on_h100("nccl_nvls", CollectiveKind::allreduce, large, 8).sim_time_s;
  CHECK(on_h100("nccl", CollectiveKind::allreduce, large, 8).sim_time_s == Approx(nvls));
  CHECK(on_h100("nccl_ring_ll", CollectiveKind::allreduce, large, 8).sim_time_s > 1.5 * nvls);
  // int8 cannot be reduced in the switch: the ring runs it, with its fastest protocol.
  double ring = 1e9;
  for (const char* algo : {"nccl_ring_ll", "nccl_ring_ll128", "nccl_ring_simple"}) {
    ring = std::min(ring, on_h100(algo, CollectiveKind::allreduce, large, 8, DType::int8).sim_time_s);
  }
  CHECK(on_h100("nccl", CollectiveKind::allreduce, large, 8, DType::int8).sim_time_s == Approx(ring));
  CHECK(ring > 1.2 * nvls);
  CHECK_THROWS_AS(on_h100("nccl_nvls", CollectiveKind::allreduce, large, 8, DType::int8), InputError);
}

TEST_CASE("8 x H100 NCCL 2.29 all-reduce: 445 GB/s NVLS and 360 GB/s ring bus bandwidth at 512 MiB, 16 us at 8 KiB (nccl.csv)",
          "[systemc][validation]") {
  CHECK(on_h100("nccl", CollectiveKind::allreduce, 512ull << 20, 8).busbw == Approx(445e9).epsilon(0.05));
  CHECK(on_h100("nccl", CollectiveKind::allreduce, 512ull << 20, 8, DType::int8).busbw == Approx(360e9).epsilon(0.1));
  CHECK(on_h100("nccl", CollectiveKind::allreduce, 8192, 8).sim_time_s == Approx(16.0e-6).epsilon(0.1));
  CHECK(on_h100("nccl", CollectiveKind::allgather, 8192, 8).sim_time_s == Approx(10.6e-6).epsilon(0.1));
  CHECK(on_h100("nccl", CollectiveKind::allreduce, 8192, 2).sim_time_s == Approx(7.3e-6).epsilon(0.15));
}

TEST_CASE("NCCL ring copies a rank's own shard once per call: 2 GPUs reach less bus bandwidth than 8 (nccl.csv)", "[systemc][validation]") {
  // nccl.csv, all_gather of 512 MiB: 258 GB/s bus bandwidth on 2 GPUs, 336 on 8; the links
  // alone give about 353 on both.
  const std::uint64_t n = 512ull << 20;
  CollectiveResult two = on_h100("nccl", CollectiveKind::allgather, n, 2);
  CollectiveResult eight = on_h100("nccl", CollectiveKind::allgather, n, 8);
  CHECK(two.busbw == Approx(258e9).epsilon(0.1));
  CHECK(eight.busbw == Approx(336e9).epsilon(0.1));
  CHECK(two.busbw < 0.85 * eight.busbw);
  CHECK(two.sim_time_s == Approx(two.bound_time_s).epsilon(0.001));
  // The copy is one shard at collectives.ring_copy_gb_per_s, beside the ring's transfers.
  HardwareSpec free_copy = load_hardware("h100_sxm5");
  const double rate = free_copy.collectives.ring_copy_bandwidth;
  REQUIRE(rate > 0);
  free_copy.collectives.ring_copy_bandwidth = 0;
  auto without = [&](CollectiveKind k) {
    CollectiveSpec spec{k, CollectiveAlgo{"nccl"}, n, {}};
    spec.group = chips_from(0, 2);
    return simulate_collective(free_copy, parse_topology("switch:8"), spec).sim_time_s;
  };
  CHECK(two.sim_time_s - without(CollectiveKind::allgather) == Approx(static_cast<double>(n) / 2 / rate).epsilon(0.01));
  // Not all-to-all: point-to-point has no ring.
  CHECK(on_h100("nccl", CollectiveKind::alltoall, n, 2).sim_time_s == Approx(without(CollectiveKind::alltoall)));
}

TEST_CASE("NCCL all-to-all pays per peer: 7 us at 4 KiB on 8 H100s, more than on 2 (nccl.csv)", "[systemc][validation]") {
  const double two = on_h100("nccl", CollectiveKind::alltoall, 4096, 2).sim_time_s;
  const double eight = on_h100("nccl", CollectiveKind::alltoall, 4096, 8).sim_time_s;
  CHECK(eight == Approx(7.5e-6).epsilon(0.15));
  CHECK(eight > two);
  CollectiveResult big = on_h100("nccl", CollectiveKind::alltoall, 64ull << 20, 8);
  CHECK(big.sim_time_s == Approx(221e-6).epsilon(0.1));
  CHECK(big.sim_time_s == Approx(big.bound_time_s).epsilon(0.001));
  // With Simple (32 KiB per peer and up) a step costs what point-to-point measures (about
  // 12.9 us at 32 KiB per peer on 8 GPUs), not a ring's Simple step.
  CollectiveResult simple = on_h100("nccl", CollectiveKind::alltoall, 8 * 32768, 8);
  CHECK(simple.sim_time_s == Approx(12.9e-6).epsilon(0.15));
  CHECK(simple.sim_time_s == Approx(simple.bound_time_s).epsilon(0.001));
}

TEST_CASE("custom all-reduce: 3-5 us at small sizes, NCCL above the framework's buffer (custom_allreduce_*.csv)", "[systemc][validation]") {
  CHECK(on_h100("trtllm_custom", CollectiveKind::allreduce, 8192, 8).sim_time_s == Approx(3.5e-6).epsilon(0.15));
  CHECK(on_h100("vllm_custom", CollectiveKind::allreduce, 8192, 8).sim_time_s == Approx(5.1e-6).epsilon(0.15));
  for (const char* algo : {"trtllm_custom", "vllm_custom"}) {
    CollectiveResult r = on_h100(algo, CollectiveKind::allreduce, 1 << 20, 8);
    CHECK(r.sim_time_s == Approx(r.bound_time_s).epsilon(0.001));
    CHECK(on_h100(algo, CollectiveKind::allreduce, 64ull << 20, 8).sim_time_s ==
          Approx(on_h100("nccl", CollectiveKind::allreduce, 64ull << 20, 8).sim_time_s));
  }
  CHECK_THROWS_AS(on_h100("trtllm_custom", CollectiveKind::allgather, 8192, 8), InputError);
}

TEST_CASE("ideal links: NCCL costs its link transfers only", "[systemc][collective]") {
  const HardwareSpec hw = make_ideal(load_hardware("h100_sxm5"));
  CollectiveSpec spec{CollectiveKind::allreduce, CollectiveAlgo{"nccl"}, 8192, {}};
  spec.dtype = DType::int8;  // the ring
  CollectiveResult r = simulate_collective(hw, parse_topology("switch:8"), spec);
  const double port = hw.links.bandwidth_per_direction * static_cast<double>(hw.links.count);
  CHECK(r.sim_time_s == Approx(switch_ring_s(8, 8192, port, 0, 2)).epsilon(0.001));
}

// A full mesh (mesh:N, components/topology_families/mesh.cpp) as an 8-GPU MI300X node: seven
// xGMI links per GPU, one to each peer.
namespace {
CollectiveResult on_mesh(const HardwareSpec& hw, const char* topology, CollectiveKind k, const char* algo, std::uint64_t bytes,
                         std::vector<int> group = {}) {
  return simulate_collective(hw, parse_topology(topology), CollectiveSpec{k, CollectiveAlgo{algo}, bytes, std::move(group)});
}
}  // namespace

TEST_CASE("mesh all-pairs all-reduce on 8 MI300X: each pair's link carries 2 shares, as its closed form says", "[systemc][collective]") {
  const HardwareSpec hw = ideal_links("mi300x");
  const std::uint64_t n = 256ull << 20;
  const CollectiveResult r = on_mesh(hw, "mesh:8", CollectiveKind::allreduce, "mesh_oneshot", n);
  // The launch, then two rounds; in each every link carries n / 8 at 64 GB/s, then a latency.
  const double closed =
      hw.collectives.launch_s + 2 * (static_cast<double>(n) / 8 / hw.links.bandwidth_per_direction + hw.links.latency_s);
  CHECK(r.bound_time_s == Approx(closed).epsilon(1e-9));
  CHECK(r.sim_time_s >= r.bound_time_s * (1 - 1e-9));
  CHECK(r.sim_time_s == Approx(closed).epsilon(0.001));
  // Every one of the 56 directed links carried two shares of n / 8.
  REQUIRE(r.links.size() == 56);
  for (const Fabric::LinkUse& l : r.links) CHECK(l.bytes == 2 * (n / 8));
}

TEST_CASE("mesh all-pairs beats one ring 7x at large sizes: a ring uses one of a chip's 7 links", "[systemc][collective]") {
  const HardwareSpec hw = ideal_links("mi300x");
  const std::uint64_t n = 256ull << 20;
  const CollectiveResult pairs = on_mesh(hw, "mesh:8", CollectiveKind::allreduce, "mesh_oneshot", n);
  const CollectiveResult ring = on_mesh(hw, "mesh:8", CollectiveKind::allreduce, "ring", n);
  const CollectiveResult rings = on_mesh(hw, "mesh:8", CollectiveKind::allreduce, "mesh_rings", n);
  CHECK(ring.sim_time_s >= ring.bound_time_s * (1 - 1e-9));
  CHECK(ring.sim_time_s == Approx(ring_allreduce_s(8, static_cast<double>(n), hw.links.bandwidth_per_direction, hw.links.latency_s)).epsilon(0.01));
  CHECK(ring.sim_time_s / pairs.sim_time_s == Approx(7).epsilon(0.02));
  // Four rings (strides 1, 3, 5, 7) on disjoint links: a quarter of the buffer each.
  CHECK(rings.sim_time_s >= rings.bound_time_s * (1 - 1e-9));
  CHECK(rings.sim_time_s == Approx(rings.bound_time_s).epsilon(0.01));
  CHECK(ring.sim_time_s / rings.sim_time_s == Approx(4).epsilon(0.02));
}

TEST_CASE("mesh all-gather, reduce-scatter, all-to-all and send/recv never beat their closed forms", "[systemc][collective]") {
  const HardwareSpec hw = load_hardware("mi300x");
  const Topology t = parse_topology("mesh:8");
  for (CollectiveKind k : {CollectiveKind::allgather, CollectiveKind::reducescatter, CollectiveKind::alltoall, CollectiveKind::sendrecv}) {
    INFO(collective_kind_name(k));
    const CollectiveAlgo algo = default_algo(t, k);
    CHECK(algo.name == (k == CollectiveKind::sendrecv ? "ring" : "mesh_oneshot"));
    const CollectiveResult r = simulate_collective(hw, t, CollectiveSpec{k, algo, 64ull << 20, k == CollectiveKind::sendrecv ? std::vector<int>{2, 5} : std::vector<int>{}});
    CHECK(r.sim_time_s >= r.bound_time_s * (1 - 1e-9));
    CHECK(r.sim_time_s <= 1.01 * r.bound_time_s);  // alone on idle links
  }
  // A send uses its pair's link only.
  const CollectiveResult send = on_mesh(hw, "mesh:8", CollectiveKind::sendrecv, "ring", 1 << 20, {2, 5});
  int used = 0;
  for (const Fabric::LinkUse& l : send.links) used += l.bytes > 0;
  CHECK(used == 1);
}

TEST_CASE("a TP group of 4 on an 8-chip mesh all-reduces over its own pairs' links", "[systemc][collective]") {
  const HardwareSpec hw = load_hardware("mi300x");
  const CollectiveResult group = on_mesh(hw, "mesh:8", CollectiveKind::allreduce, "mesh_oneshot", 64ull << 20, {4, 5, 6, 7});
  CHECK(group.sim_time_s >= group.bound_time_s * (1 - 1e-9));
  CHECK(group.sim_time_s == Approx(group.bound_time_s).epsilon(0.01));
  int used = 0;
  for (const Fabric::LinkUse& l : group.links) used += l.bytes > 0;
  CHECK(used == 12);  // 4 x 3 directed links among the group
}

TEST_CASE("a mesh needs a link to every peer, and mesh algorithms need a mesh", "[systemc][collective]") {
  const HardwareSpec hw = load_hardware("mi300x");  // 7 links
  CHECK_THROWS_WITH(on_mesh(hw, "mesh:9", CollectiveKind::allreduce, "mesh_oneshot", 1 << 20),
                    Catch::Contains("mi300x has 7 links per chip; a full mesh of 9 chips needs at least 8"));
  CHECK_THROWS_WITH(on_mesh(hw, "switch:8", CollectiveKind::allreduce, "mesh_oneshot", 1 << 20), Catch::Contains("needs a full mesh"));
  CHECK_THROWS_WITH(on_mesh(hw, "mesh:8", CollectiveKind::alltoall, "mesh_rings", 1 << 20), Catch::Contains("mesh_oneshot"));
  CHECK_THROWS_AS(parse_topology("mesh:0"), InputError);
  CHECK_THROWS_AS(parse_topology("mesh:x"), InputError);
}
