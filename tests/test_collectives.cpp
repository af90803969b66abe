// Collectives lowered to link transfers, against their closed forms: rings, tori, switches,
// routed groups, every registered algorithm and topology family (NCCL's protocols and meshes:
// test_collectives_nccl_mesh.cpp). One simulation per case.
#include <algorithm>

#include <catch2/catch.hpp>

#include "components/link_model.hpp"
#include "experiment/collective.hpp"
#include "tests/collective_test_util.hpp"
#include "validation/collective_bounds.hpp"

using namespace roofsim;
using namespace roofsim::test_collectives;

namespace {
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
// Links at half the transfer's rate (a test's own model, registered under a name as a library's
// would be).
class HalfRateLinks final : public LinkTarget {
 public:
  HalfRateLinks(const sc_core::sc_module_name& name, std::size_t links) : LinkTarget(name, links), inner_("inner", links) {
    port_.bind(inner_);
  }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override {
    LinkTransfer& t = LinkTransfer::of(trans);
    std::vector<LinkHop> slow(t.hops, t.hops + t.count);
    for (LinkHop& h : slow) h.rate /= 2;
    const LinkTransfer& reply = port_.transport(slow.data(), slow.size(), t.bytes, -1, t.together);
    t.arrival = reply.arrival;
    t.last_start = reply.last_start;
    for (std::size_t i = 0; i < t.count; ++i) bytes(t.hops[i].link) += t.bytes;
    delay += sc_core::sc_time::from_value(reply.arrival - now_ps());
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  LinkArray inner_;
  LinkPort port_{"port"};
};
class HalfRate : public LinkModel {
 public:
  std::string name() const override { return "test_half_rate_links"; }
  std::string summary() const override { return "links at half the rate (a test's)"; }
  std::unique_ptr<LinkTarget> build(const char* module_name, std::size_t links, const HardwareSpec&) const override {
    return std::make_unique<HalfRateLinks>(module_name, links);
  }
};
}  // namespace

TEST_CASE("the hardware file's [links] model builds the links a collective's transfers claim", "[systemc][collective]") {
  if (!link_models().find("test_half_rate_links")) link_models().add(std::make_unique<HalfRate>());
  HardwareSpec hw = ideal_links("h100_sxm5");
  const std::uint64_t n = 256ull << 20;  // bandwidth-bound: latency is a fraction of a percent
  const double array = simulate_collective(hw, parse_topology("8"), allreduce(CollectiveAlgo::ring, n)).sim_time_s;
  hw.links.model.name = "test_half_rate_links";
  const double half = simulate_collective(hw, parse_topology("8"), allreduce(CollectiveAlgo::ring, n)).sim_time_s;
  CHECK(half / array == Approx(2.0).epsilon(0.01));
  hw.links.model.name = "nope";
  CHECK_THROWS_WITH(simulate_collective(hw, parse_topology("8"), allreduce(CollectiveAlgo::ring, n)),
                    Catch::Contains("links.model") && Catch::Contains("expected one of") && Catch::Contains("array"));
}
