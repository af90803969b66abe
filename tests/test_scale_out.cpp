// Beyond one node: the [network] section, the nodes:NxL topology, hierarchical collectives,
// multi-node runs and data-parallel replicas.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "components/sim_context.hpp"
#include "core/error.hpp"
#include "experiment/collective.hpp"
#include "experiment/inference.hpp"

using namespace roofsim;

namespace {
CollectiveSpec spec_of(CollectiveKind k, const CollectiveAlgo& a, std::uint64_t bytes, std::vector<int> group = {}) {
  CollectiveSpec s;
  s.kind = k;
  s.algo = a;
  s.bytes = bytes;
  s.group = std::move(group);
  return s;
}
CollectiveSpec spec_default(const Topology& t, CollectiveKind k, std::uint64_t bytes, std::vector<int> group = {}) {
  const CollectiveAlgo a = default_algo(t, k, group);
  return spec_of(k, a, bytes, std::move(group));
}
double seconds_of(const HardwareSpec& hw, const Topology& t, const std::vector<CollectiveSpec>& specs) {
  return simulate_collectives(hw, t, specs).sim_time_s;
}
}  // namespace

TEST_CASE("H100 files describe their scale-out network", "[systemc][scale_out]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  REQUIRE(hw.network.present);
  CHECK(hw.network.chips_per_node == 8);
  CHECK(hw.network.nic_bandwidth == Approx(50e9));  // one ConnectX-7, 400 Gb/s per GPU
  CHECK(hw.network.shape == "rail");
  CHECK(load_hardware("tpu_v4").network.present == false);
}

TEST_CASE("nodes:NxL parses, names itself and refuses what it cannot be", "[systemc][scale_out]") {
  const Topology t = parse_topology("nodes:2x8");
  CHECK(t.name() == "nodes:2x8");
  CHECK(t.chips() == 16);
  CHECK(t.networked());
  CHECK(t.switched({0, 3, 7}));
  CHECK_FALSE(t.switched({7, 8}));
  CHECK_FALSE(t.switched({}));
  CHECK_THROWS_AS(parse_topology("nodes:2"), InputError);
  CHECK_THROWS_AS(parse_topology("nodes:1x8"), InputError);
  CHECK_THROWS_AS(parse_topology("nodes:0x8"), InputError);
  // The hardware must have a network, with nodes at least that large.
  SimulationContext kernel;
  CHECK_THROWS_WITH(Fabric("f", load_hardware("tpu_v4"), parse_topology("nodes:2x4")), Catch::Contains("[network]"));
  CHECK_THROWS_WITH(Fabric("g", load_hardware("h100_sxm5"), parse_topology("nodes:2x16")), Catch::Contains("chips_per_node = 8"));
}

TEST_CASE("a group inside one node of nodes:2x8 runs exactly as on switch:8", "[systemc][scale_out]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  const Topology nodes = parse_topology("nodes:2x8"), sw = parse_topology("switch:8");
  const std::vector<int> second_node{8, 9, 10, 11, 12, 13, 14, 15};
  for (CollectiveKind k : {CollectiveKind::allreduce, CollectiveKind::alltoall, CollectiveKind::allgather}) {
    for (std::uint64_t bytes : {std::uint64_t{4096}, std::uint64_t{64} << 20}) {
      const CollectiveSpec in_node = spec_default(nodes, k, bytes, second_node);
      const CollectiveSpec alone = spec_default(sw, k, bytes);
      CHECK(in_node.algo == alone.algo);
      CHECK(simulate_collectives(hw, nodes, {in_node}).sim_time_s == simulate_collectives(hw, sw, {alone}).sim_time_s);
      CHECK(collective_bound_s(hw, nodes, in_node) == collective_bound_s(hw, sw, alone));
    }
  }
}

TEST_CASE("an all-reduce across two nodes is hierarchical, near its bound at large sizes and never below it", "[systemc][scale_out]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  const Topology t = parse_topology("nodes:2x8");
  CHECK(default_algo(t, CollectiveKind::allreduce) == CollectiveAlgo{"hierarchical"});
  for (std::uint64_t bytes : {std::uint64_t{8} << 10, std::uint64_t{1} << 20, std::uint64_t{64} << 20, std::uint64_t{1} << 30}) {
    const CollectiveResult r = simulate_collectives(hw, t, {spec_default(t, CollectiveKind::allreduce, bytes)});
    INFO(bytes << " bytes: simulated " << r.sim_time_s << " s, bound " << r.bound_time_s << " s");
    CHECK(r.sim_time_s >= r.bound_time_s);
    if (bytes >= (std::uint64_t{1} << 30)) CHECK(r.sim_time_s <= 1.15 * r.bound_time_s);
  }
}

TEST_CASE("with slow NICs the inter-node all-reduce approaches the NIC bound", "[systemc][scale_out]") {
  HardwareSpec hw = load_hardware("h100_sxm5");
  hw.network.nic_bandwidth = 12.5e9;  // 100 Gb/s: the network, not NVLink, is the bottleneck
  const Topology t = parse_topology("nodes:4x8");
  const double n = 1024.0 * 1024 * 1024;
  const CollectiveResult r = simulate_collectives(hw, t, {spec_default(t, CollectiveKind::allreduce, static_cast<std::uint64_t>(n))});
  // Every NIC carries 2 (N - 1) / N of its chip's shard (n / L).
  const double nic_s = 2.0 * 3 / 4 * (n / 8) / hw.network.port_bandwidth();
  CHECK(r.sim_time_s >= nic_s);
  CHECK(r.sim_time_s <= 1.15 * nic_s);
  CHECK(r.sim_time_s >= r.bound_time_s);
  // Every NIC did carry it: contention on them is what set the time.
  std::uint64_t least = ~std::uint64_t{0};
  for (const auto& l : r.links) {
    if (l.name.find("->net") != std::string::npos) least = std::min(least, l.bytes);
  }
  CHECK(static_cast<double>(least) >= 0.99 * 2.0 * 3 / 4 * (n / 8));
}

TEST_CASE("two flows into one NIC take twice as long as one, into two NICs as long as one", "[systemc][scale_out]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  const Topology t = parse_topology("nodes:2x8");
  const std::uint64_t bytes = 256ull << 20;
  const CollectiveAlgo ring = CollectiveAlgo::ring;
  const double one = seconds_of(hw, t, {spec_of(CollectiveKind::sendrecv, ring, bytes, {0, 8})});
  // Chip 1 sends to chip 8 by PXN through chip 0's NIC: both flows share NIC 0 up and NIC 8 down.
  const double same = seconds_of(hw, t, {spec_of(CollectiveKind::sendrecv, ring, bytes, {0, 8}), spec_of(CollectiveKind::sendrecv, ring, bytes, {1, 8})});
  const double apart = seconds_of(hw, t, {spec_of(CollectiveKind::sendrecv, ring, bytes, {0, 8}), spec_of(CollectiveKind::sendrecv, ring, bytes, {1, 9})});
  CHECK(one == Approx(static_cast<double>(bytes) / hw.network.port_bandwidth()).epsilon(0.01));
  CHECK(same == Approx(2 * one).epsilon(0.02));
  CHECK(apart == Approx(one).epsilon(0.01));
  // A send never beats its closed form.
  CHECK(one >= collective_bound_s(hw, t, spec_of(CollectiveKind::sendrecv, ring, bytes, {0, 8})));
}

TEST_CASE("a fat tree's oversubscribed spine slows traffic that a rail network carries at NIC speed", "[systemc][scale_out]") {
  HardwareSpec rail = load_hardware("h100_sxm5");
  HardwareSpec tree = rail;
  tree.network.shape = "fat_tree";
  tree.network.oversubscription = 4;
  const Topology t = parse_topology("nodes:2x8");
  std::vector<CollectiveSpec> all_rails;
  for (int c = 0; c < 8; ++c) all_rails.push_back(spec_of(CollectiveKind::sendrecv, CollectiveAlgo::ring, 64ull << 20, {c, c + 8}));
  const double r = seconds_of(rail, t, all_rails), f = seconds_of(tree, t, all_rails);
  // The uplink carries 8 flows at twice a NIC's rate: 4 NIC-times at least. Links serve whole
  // transfers first come first served, so the last flow's head reaches its NIC down only when
  // the uplink starts it and then needs a NIC-time more: at most 5.
  CHECK(f >= 4 * r * 0.999);
  CHECK(f <= 5 * r);
}

TEST_CASE("a 16-chip all-to-all over two nodes is slower than over one 16-chip switch", "[systemc][scale_out]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  const Topology nodes = parse_topology("nodes:2x8"), sw = parse_topology("switch:16");
  const std::uint64_t bytes = 64ull << 20;
  const CollectiveResult across = simulate_collectives(hw, nodes, {spec_default(nodes, CollectiveKind::alltoall, bytes)});
  const CollectiveResult one = simulate_collectives(hw, sw, {spec_default(sw, CollectiveKind::alltoall, bytes)});
  CHECK(across.spec.algo == CollectiveAlgo{"hierarchical"});
  CHECK(across.sim_time_s > 2 * one.sim_time_s);
  CHECK(across.sim_time_s >= across.bound_time_s);
}

TEST_CASE("all-gather and reduce-scatter across nodes never beat their bounds", "[systemc][scale_out]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  const Topology t = parse_topology("nodes:2x8");
  for (CollectiveKind k : {CollectiveKind::allgather, CollectiveKind::reducescatter}) {
    for (std::uint64_t bytes : {std::uint64_t{64} << 10, std::uint64_t{256} << 20}) {
      const CollectiveResult r = simulate_collectives(hw, t, {spec_default(t, k, bytes)});
      CHECK(r.sim_time_s >= r.bound_time_s);
      if (bytes > (1u << 20)) CHECK(r.sim_time_s <= 1.2 * r.bound_time_s);
    }
  }
}

TEST_CASE("a run on two nodes puts TP inside a node and pipeline sends across the network", "[systemc][scale_out]") {
  Experiment e;
  e.model = "llama-2-70b";
  e.tp = 8;
  e.pp = 2;
  e.nodes = 2;
  e.prompt = 64;
  e.generate = 2;
  const ExperimentResult r = run_experiment(e, RunControl{});
  CHECK(r.topology == "nodes:2x8");
  std::uint64_t nic_bytes = 0;
  for (const auto& l : r.links) {
    if (l.name.find("->net") != std::string::npos) nic_bytes += l.bytes;
  }
  CHECK(nic_bytes > 0);  // the pipeline's activations crossed the network
  CHECK(r.ttft_s >= r.bound_ttft_s);
}

TEST_CASE("data-parallel replicas multiply throughput and chips, not a replica's times", "[systemc][scale_out]") {
  Experiment e;
  e.model = "llama-3-8b";
  e.tp = 8;
  e.prompt = 64;
  e.generate = 2;
  const ExperimentResult one = run_experiment(e, RunControl{});
  e.replicas = 4;
  e.nodes = 4;
  const ExperimentResult four = run_experiment(e, RunControl{});
  CHECK(four.topology == "switch:8");  // a replica per node
  CHECK(four.total_s == one.total_s);
  CHECK(four.replica_throughput_tok_s() == one.throughput_tok_s());
  CHECK(four.total_throughput_tok_s() == Approx(4 * one.throughput_tok_s()));
  CHECK(four.total_chips() == 32);
}

TEST_CASE("nodes and replicas that do not fill the nodes are refused", "[systemc][scale_out]") {
  Experiment e;
  e.model = "llama-3-8b";
  e.prompt = 64;
  e.generate = 2;
  e.tp = 8;
  e.nodes = 3;
  CHECK_THROWS_WITH(run_experiment(e, RunControl{}), Catch::Contains("nodes"));
  e.nodes = 2;
  e.replicas = 3;
  CHECK_THROWS_WITH(run_experiment(e, RunControl{}), Catch::Contains("replicas"));
  e.hw = "tpu_v4";
  e.replicas = 1;
  CHECK_THROWS_WITH(run_experiment(e, RunControl{}), Catch::Contains("[network]"));
}

TEST_CASE("More HBM bandwidth, FLOP/s, link or NIC bandwidth never makes a run slower (new models, fabrics and nodes)",
          "[systemc][scale_out]") {
  // A monotonic oracle on whole runs: each resource doubled alone, TTFT and TPOT must not grow.
  struct Case {
    const char* hw;
    const char* model;
    std::int64_t tp, pp, ep, nodes, batch;
    DType weights;
  };
  const std::vector<Case> cases = {
      {"h100_sxm5", "deepseek-ai/DeepSeek-V2-Lite", 1, 1, 1, 0, 4, DType::bf16},  // MLA, shared experts
      {"h100_sxm5", "google/gemma-2-9b", 1, 1, 1, 0, 2, DType::bf16},             // sliding layers
      {"h100_sxm5", "llama-2-70b", 8, 2, 1, 2, 2, DType::bf16},                   // pipeline over the network
      {"h100_sxm5", "mixtral-8x7b", 2, 1, 8, 2, 16, DType::bf16},                 // all-to-all across nodes
      {"mi300x", "llama-3-8b", 8, 1, 1, 0, 2, DType::bf16},                       // full mesh
      {"b200", "llama-3-8b", 1, 1, 1, 0, 2, DType::nvfp4},                        // fp4 weights
  };
  using Edit = std::function<void(HardwareSpec&)>;
  const std::vector<std::pair<std::string, Edit>> edits = {
      {"hbm x2", [](HardwareSpec& h) { h.hbm.bandwidth *= 2; }},
      {"compute x2", [](HardwareSpec& h) { h.matrix.macs_per_clock *= 2; }},
      {"links x2", [](HardwareSpec& h) { h.links.bandwidth_per_direction *= 2; }},
      {"nics x2", [](HardwareSpec& h) { h.network.nic_bandwidth *= 2; }},
  };
  for (const Case& c : cases) {
    Experiment e;
    e.hw = c.hw;
    e.model = c.model;
    e.tp = c.tp;
    e.pp = c.pp;
    e.ep = c.ep;
    e.nodes = c.nodes;
    e.batch = c.batch;
    e.prompt = 256;
    e.generate = 3;
    e.precision.weights = c.weights;
    const ExperimentResult base = run_experiment(e, RunControl{});
    for (const auto& [name, edit] : edits) {
      INFO(c.model << " on " << c.hw << ", " << name);
      HardwareSpec hw = load_hardware(c.hw);
      edit(hw);
      Experiment v = e;
      v.hardware = hw;
      const ExperimentResult r = run_experiment(v, RunControl{});
      CHECK(r.ttft_s <= base.ttft_s * (1 + 1e-9));
      CHECK(r.tpot_s <= base.tpot_s * (1 + 1e-9));
    }
  }
}
