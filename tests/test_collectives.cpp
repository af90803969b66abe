// Collectives lowered to link transfers, against their closed forms. One simulation per case.
#include <algorithm>

#include <catch2/catch.hpp>

#include "experiment/collective.hpp"
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

// A known gap, hidden from the default run and registered as a disabled ctest
// (tests/CMakeLists.txt). bf16[8192, 3584] = 58,720,256 bytes; the source's "achieved
// bandwidth" is bytes / time (its "Algo BW"). roofsim simulates about 192 GB/s (+28%). NCCL's
// own cost model (src/graph/tuning.cc: ring/Simple 8.4 us + 3.4 us a step on NVLink) predicts
// about 176 GB/s, and all_reduce_perf runs on 8 x H20 (the same NVLink 4 links) sit within 5%
// of roofsim from 32 MiB to 1 GiB (README): the measurement is slower than NCCL's mechanisms
// explain, and a per-step overhead fitted to it would make small all-reduces far too slow.
TEST_CASE("8 x H100 NCCL all-reduce of 58 MB: about 150 GB/s achieved (MB-H100-AR-58MB)", "[.][known-gap]") {
  CollectiveResult r = simulate_collective(load_hardware("h100_sxm5"), parse_topology("switch:8"),
                                           allreduce(CollectiveAlgo::ring, 8192ull * 3584 * 2));
  CHECK(r.algbw == Approx(150e9).epsilon(0.15));
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

namespace {
std::vector<int> chips_from(int first, int count) {
  std::vector<int> g;
  for (int c = first; c < first + count; ++c) g.push_back(c);
  return g;
}
CollectiveSpec plane_allreduce(int first, std::uint64_t bytes) {
  return CollectiveSpec{CollectiveKind::allreduce, CollectiveAlgo::torus_split, bytes, chips_from(first, 16)};
}
CollectiveSpec send(int from, int to, std::uint64_t bytes) {
  return CollectiveSpec{CollectiveKind::sendrecv, CollectiveAlgo::ring, bytes, {from, to}};
}
}  // namespace

TEST_CASE("an all-reduce over a 4x4 plane of a 4x4x2 torus matches the 4x4 torus closed form", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("tpu_v4");
  const std::uint64_t n = 96ull << 20;
  CollectiveResult r = simulate_collective(hw, parse_topology("4x4x2"), plane_allreduce(0, n));
  const double closed = torus_allreduce_s({4, 4}, static_cast<double>(n), hw.links.bandwidth_per_direction, hw.links.latency_s, true);
  CHECK(r.sim_time_s == Approx(closed).epsilon(0.01));
  CHECK(r.sim_time_s >= closed * (1 - 1e-9));
  CHECK(r.bound_time_s == Approx(closed));
  // Only the plane's own x and y links carry data: no z link, no chip of the other plane.
  for (const auto& link : r.links) {
    INFO(link.name);
    const bool in_plane = std::stoi(link.name.substr(4)) < 16 && link.name.find('z') == std::string::npos;
    CHECK((link.bytes > 0) == in_plane);
  }
}

TEST_CASE("two planes of a 4x4x2 torus all-reducing at once take as long as one (disjoint links)", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("tpu_v4");
  const std::uint64_t n = 96ull << 20;
  CollectiveResult r = simulate_collectives(hw, parse_topology("4x4x2"), {plane_allreduce(0, n), plane_allreduce(16, n)});
  const double closed = torus_allreduce_s({4, 4}, static_cast<double>(n), hw.links.bandwidth_per_direction, hw.links.latency_s, true);
  REQUIRE(r.finished_s.size() == 2);
  CHECK(r.finished_s[0] == r.finished_s[1]);
  CHECK(r.sim_time_s == Approx(closed).epsilon(0.01));
}

TEST_CASE("a plane's all-reduce and the whole torus's at once share the plane's links and take longer", "[systemc][collective]") {
  // Groups of one chip layout never share links (each TP group is a sub-torus of its own), so
  // the sharing case overlaps the whole 4x4x2 torus with one of its planes.
  HardwareSpec hw = ideal_links("tpu_v4");
  const std::uint64_t n = 96ull << 20;
  const double B = hw.links.bandwidth_per_direction, a = hw.links.latency_s;
  CollectiveResult r = simulate_collectives(hw, parse_topology("4x4x2"),
                                            {plane_allreduce(0, n), allreduce(CollectiveAlgo::torus_split, n)});
  const double plane = torus_allreduce_s({4, 4}, static_cast<double>(n), B, a, true);
  const double whole = torus_allreduce_s({4, 4, 2}, static_cast<double>(n), B, a, true);
  CHECK(r.finished_s[0] > 1.2 * plane);
  CHECK(r.finished_s[1] > 1.2 * whole);
}

TEST_CASE("a torus algorithm over chips that span no leading dimensions is refused with the sizes that do", "[systemc][collective]") {
  CollectiveSpec spec = allreduce(CollectiveAlgo::torus_split, 1 << 20);
  spec.group = chips_from(0, 8);
  CHECK_THROWS_WITH(simulate_collective(load_hardware("tpu_v4"), parse_topology("4x4x4"), spec),
                    Catch::Contains("spans no whole leading dimensions") && Catch::Contains("1, 4, 16, 64"));
}

TEST_CASE("8 chips of 4x4x4 all-reduce as a ring routed between them, near the ring closed form", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("tpu_v4");
  const Topology t = parse_topology("4x4x4");
  const std::uint64_t n = 96ull << 20;
  CollectiveSpec spec = allreduce(CollectiveAlgo::ring, n);
  spec.group = chips_from(0, 8);  // two x rings: 3 -> 4 and 7 -> 0 take two hops
  CHECK(default_algo(t, CollectiveKind::allreduce, spec.group) == CollectiveAlgo::ring);
  CollectiveResult r = simulate_collective(hw, t, spec);
  const double B = hw.links.bandwidth_per_direction, a = hw.links.latency_s;
  CHECK(r.bound_time_s == Approx(ring_allreduce_s(8, static_cast<double>(n), B, a)));
  CHECK(r.sim_time_s >= r.bound_time_s * (1 - 1e-9));
  CHECK(r.sim_time_s < 1.01 * r.bound_time_s);  // cut-through: a second hop costs one latency
}

TEST_CASE("two routed rings of 8 in a plane of 4x4x4 share links only a little", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("tpu_v4");
  const Topology t = parse_topology("4x4x4");
  CollectiveSpec a = allreduce(CollectiveAlgo::ring, 96ull << 20), b = a;
  a.group = chips_from(0, 8);
  b.group = chips_from(8, 8);
  // Group a's 7 -> 0 route goes y- from row 1 to row 0; group b's 11 -> 12 goes y+ from row 2
  // to 3: different links, so each runs about as fast as alone.
  CollectiveResult both = simulate_collectives(hw, t, {a, b});
  CHECK(both.sim_time_s >= both.bound_time_s * (1 - 1e-9));
  CHECK(both.sim_time_s < 1.02 * both.bound_time_s);
}

TEST_CASE("dimension-order routes go the shorter way round each ring", "[systemc][collective]") {
  const Topology t = parse_topology("8x8");
  CHECK(t.route(0, 0).empty());
  CHECK(t.route(0, 3 + 2 * 8).size() == 5);  // 3 along x, then 2 along y
  const auto back = t.route(0, 6);            // 2 hops in the - direction beat 6 in the +
  REQUIRE(back.size() == 2);
  CHECK(back[0].direction == -1);
  CHECK(back[1].chip == 7);
  CHECK(t.spanned_dims(8) == 1);
  CHECK(t.spanned_dims(64) == 2);
  CHECK(t.spanned_dims(16) == -1);
  CHECK(t.group_sizes() == "1, 8, 64");
}

TEST_CASE("a send routed over 5 hops of a torus takes 5 latencies + bytes / bandwidth (cut-through)", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("tpu_v4");
  const std::uint64_t n = 64ull << 20;
  CollectiveResult r = simulate_collective(hw, parse_topology("8x8"), send(0, 3 + 2 * 8, n));
  const double expected = static_cast<double>(n) / hw.links.bandwidth_per_direction + 5 * hw.links.latency_s;
  CHECK(r.sim_time_s == Approx(expected).epsilon(1e-6));
  CHECK(r.bound_time_s == Approx(routed_send_s(5, static_cast<double>(n), hw.links.bandwidth_per_direction, hw.links.latency_s)));
  int used = 0;
  for (const auto& link : r.links) used += link.bytes > 0;
  CHECK(used == 5);
}

TEST_CASE("two routed sends sharing links take about twice as long as one", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("tpu_v4");
  const std::uint64_t n = 64ull << 20;
  // 0 -> 3 and 1 -> 4 along x share chip 1's and chip 2's x+ links.
  CollectiveResult r = simulate_collectives(hw, parse_topology("8x8"), {send(0, 3, n), send(1, 4, n)});
  const double one = static_cast<double>(n) / hw.links.bandwidth_per_direction + 3 * hw.links.latency_s;
  // A link serves transfers in the order their heads arrive: 1 -> 4 reaches chip 1's x+ link
  // first, so 0 -> 3 queues there.
  CHECK(r.finished_s[1] == Approx(one).epsilon(1e-6));
  CHECK(r.finished_s[0] > 1.9 * one);
}

TEST_CASE("all-to-all routed over a torus: at its lower bound when no route shares a link", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("tpu_v4");
  const std::uint64_t n = 64ull << 20;
  // On 2x2x1 every share crosses one link or two along different dimensions: no contention.
  const Topology t = parse_topology("2x2x1");
  CollectiveResult r = simulate_collective(hw, t, CollectiveSpec{CollectiveKind::alltoall, CollectiveAlgo::routed, n, {}});
  CHECK(r.sim_time_s == Approx(r.bound_time_s).epsilon(0.01));
  CHECK(r.sim_time_s >= r.bound_time_s * (1 - 1e-9));
}

TEST_CASE("all-to-all routed over 4x4x4: near the load of its busiest link, never below it", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("tpu_v4");
  const std::uint64_t n = 64ull << 20;
  CollectiveResult r = simulate_collective(hw, parse_topology("4x4x4"), CollectiveSpec{CollectiveKind::alltoall, CollectiveAlgo::routed, n, {}});
  // Shares two hops away on a 4-ring all take the + way (ties go +1), so + links carry more
  // than - links; the bound counts each link's load. Queueing may cost a little, never less.
  CHECK(r.sim_time_s >= r.bound_time_s * (1 - 1e-9));
  CHECK(r.sim_time_s < 1.05 * r.bound_time_s);
}

TEST_CASE("expert-parallel groups (every tp-th chip) all-to-all at once over shared torus links", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("tpu_v4");
  const std::uint64_t n = 16ull << 20;
  const Topology t = parse_topology("4x4x1");
  // Two EP groups of 8 chips (tp 2): chips 0, 2, 4, ... and 1, 3, 5, ...; their routes share x links.
  std::vector<int> even, odd;
  for (int c = 0; c < 16; c += 2) {
    even.push_back(c);
    odd.push_back(c + 1);
  }
  const CollectiveSpec a{CollectiveKind::alltoall, CollectiveAlgo::routed, n, even};
  const CollectiveSpec b{CollectiveKind::alltoall, CollectiveAlgo::routed, n, odd};
  CollectiveResult both = simulate_collectives(hw, t, {a, b});
  const double alone = collective_bound_s(hw, t, a);
  CHECK(both.finished_s[0] >= alone * (1 - 1e-9));
  CHECK(both.sim_time_s > 1.2 * alone);  // contention on the shared links emerges
}

TEST_CASE("all-gather over a torus, dimension by dimension, matches its closed form", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("tpu_v4");
  const std::uint64_t n = 96ull << 20;
  const Topology t = parse_topology("4x4x4");
  CHECK(default_algo(t, CollectiveKind::allgather) == CollectiveAlgo::torus_split);
  CollectiveResult r = simulate_collective(hw, t, CollectiveSpec{CollectiveKind::allgather, CollectiveAlgo::torus_split, n, {}});
  const double B = hw.links.bandwidth_per_direction, a = hw.links.latency_s;
  CHECK(r.sim_time_s == Approx(torus_gather_s({4, 4, 4}, static_cast<double>(n), B, a, true)).epsilon(0.01));
  // One round per dimension where the all-reduce has two.
  CHECK(torus_gather_s({4, 4, 4}, 1e9, B, a, true) == Approx(torus_allreduce_s({4, 4, 4}, 1e9, B, a, true) / 2));
}

TEST_CASE("reduce-scatter over a 2x4x8 torus matches its closed form", "[systemc][collective]") {
  HardwareSpec hw = ideal_links("tpu_v4");
  const std::uint64_t n = 96ull << 20;
  CollectiveResult r = simulate_collective(hw, parse_topology("2x4x8"),
                                           CollectiveSpec{CollectiveKind::reducescatter, CollectiveAlgo::torus, n, {}});
  CHECK(r.sim_time_s == Approx(torus_gather_s({2, 4, 8}, static_cast<double>(n), hw.links.bandwidth_per_direction,
                                                hw.links.latency_s, false)).epsilon(0.01));
}

TEST_CASE("every registered collective algorithm runs where it says it can, never below its closed form", "[systemc][collective]") {
  // Covers algorithms added later too: each one that accepts a collective on one of these
  // fabrics must lower it to transfers that finish, and not faster than its own closed form.
  HardwareSpec hw = load_hardware("h100_sxm5");
  hw.links.in_switch_reduction = true;
  const std::vector<std::string> names = collective_algorithms().names();
  CHECK(names.size() >= 7);
  for (const std::string& name : names) {
    int ran = 0;
    for (const char* topology : {"switch:8", "8", "4x4", "mesh:8", "nodes:2x4"}) {
      const Topology t = parse_topology(topology);
      for (CollectiveKind k : {CollectiveKind::allreduce, CollectiveKind::allgather, CollectiveKind::reducescatter,
                               CollectiveKind::alltoall, CollectiveKind::sendrecv}) {
        if (!collective_algorithms().get(name, "algo").refusal(t, k, {}).empty()) continue;
        INFO(name << " " << collective_kind_name(k) << " on " << topology);
        const CollectiveResult r = simulate_collective(hw, t, CollectiveSpec{k, CollectiveAlgo{name}, 16ull << 20, {}});
        CHECK(r.sim_time_s >= r.bound_time_s * (1 - 1e-9));
        CHECK(r.sim_time_s <= 3 * r.bound_time_s);
        ++ran;
      }
    }
    INFO(name);
    CHECK(ran > 0);
  }
}

TEST_CASE("every registered topology family reads back its own names, and its chips reach each other", "[systemc][collective]") {
  // Covers families added later too: a family's example parses, prints as written, lays out
  // links the chips have, sends between any two chips no faster than its closed form, and runs
  // the default all-reduce no faster than the algorithm's closed form.
  CHECK(topology_families().all().size() >= 2);
  for (const TopologyFamily* family : topology_families().all()) {
    INFO(family->name());
    // Several nodes need a chip with a scale-out network.
    const HardwareSpec hw = load_hardware(family->networked() ? "h100_sxm5" : "tpu_v4");
    const Topology t = parse_topology(family->example());
    CHECK(t.family == family);
    CHECK(t.name() == family->example());
    CHECK(family->link_count(t) > 0);
    CHECK(family->link_refusal(t, hw).empty());
    const int last = t.chips() - 1;
    const CollectiveResult send = simulate_collective(hw, t, CollectiveSpec{CollectiveKind::sendrecv, CollectiveAlgo::ring, 8ull << 20, {0, last}});
    CHECK(send.sim_time_s >= send.bound_time_s * (1 - 1e-9));
    CHECK(send.sim_time_s <= 1.01 * send.bound_time_s);  // alone on idle links: its closed form
    const CollectiveSpec all_reduce{CollectiveKind::allreduce, default_algo(t, CollectiveKind::allreduce), 64ull << 20, {}};
    const CollectiveResult r = simulate_collective(hw, t, all_reduce);
    CHECK(r.sim_time_s >= r.bound_time_s * (1 - 1e-9));
  }
}

// NCCL's protocols, channels, NVLS and point-to-point (components/collective_algorithms/
// nccl.cpp) and the frameworks' custom all-reduce, against their closed forms and against the
// H100 rows they were calibrated on (../shared/validation/kernels/h100, docs/calibration.md).
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
