// Component tests: each block alone, with numbers that can be worked out by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "components/time_intervals.hpp"
#include "components/dma.hpp"
#include "components/hbm.hpp"
#include "components/link_port.hpp"
#include "components/matrix_unit.hpp"
#include "components/memory_model.hpp"
#include "components/sim_context.hpp"
#include "components/simulation.hpp"
#include "tests/test_util.hpp"
#include "experiment/single_op.hpp"
#include "core/hardware.hpp"

using namespace roofsim;

namespace {

// Runs `body` at simulated time zero.
class AtTimeZero : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(AtTimeZero);
  AtTimeZero(const sc_core::sc_module_name& n, std::function<void()> body)
      : sc_core::sc_module(n), body_(std::move(body)) {
    SC_METHOD(run);
  }

 private:
  void run() { body_(); }
  std::function<void()> body_;
};

HbmSpec one_channel(double bandwidth, double latency_s) {
  HbmSpec h;
  h.capacity_bytes = 1e9;
  h.stacks = 1;
  h.channels = 1;
  h.bandwidth = bandwidth;
  h.efficiency = 1.0;
  h.access_latency_s = latency_s;
  h.interleave_bytes = 256;
  return h;
}

}  // namespace

TEST_CASE("a channel serves exactly bytes / bandwidth, plus its latency", "[systemc][hbm]") {
  SimulationContext kernel;
  SimStats stats;
  EventQueue events("events", stats);
  HbmSpec spec = one_channel(1e12, 100e-9);
  HbmChannels hbm("hbm", spec, events);
  Picoseconds first = 0, second = 0;
  AtTimeZero go("go", [&] {
    hbm.access(0, 1'000'000, [&] { first = now_ps(); });
    hbm.access(1'000'000, 500'000, [&] { second = now_ps(); });
  });
  kernel.run();
  CHECK(first == 1'000'000 + 100'000);            // 1 MB at 1 TB/s = 1 us, then 100 ns latency
  CHECK(second == 1'500'000 + 100'000);           // queued behind the first: latency is pipelined
  CHECK(hbm.channel(0).busy_ps() == 1'500'000);
  CHECK(stats.events == 2);
}

TEST_CASE("interleaving spreads a request evenly over the channels", "[systemc][hbm]") {
  SimulationContext kernel;
  SimStats stats;
  EventQueue events("events", stats);
  HbmSpec spec = one_channel(8e12, 0);
  spec.channels = 8;
  HbmChannels hbm("hbm", spec, events);
  auto share = hbm.split(3, 256 * 8 * 10 + 256 * 3 + 100);
  std::uint64_t total = 0;
  for (auto s : share) total += s;
  CHECK(total == 256 * 8 * 10 + 256 * 3 + 100);
  CHECK(share[3] == 256 * 11);   // the three extra granules start at channel 3
  CHECK(share[5] == 256 * 11);
  CHECK(share[6] == 256 * 10 + 100);  // the partial granule comes next
  CHECK(share[7] == 256 * 10);
  Picoseconds done = 0;
  AtTimeZero go("go", [&] { hbm.access(0, 8 * 1'000'000, [&] { done = now_ps(); }); });
  kernel.run();
  // 8 channels of 1 TB/s each serve 1 MB each in 1 us (granules split 3907/3906 per channel).
  CHECK(done == Approx(1'000'000).epsilon(0.001));
}

TEST_CASE("the DMA window gives Little's-law bandwidth", "[systemc][dma]") {
  SimulationContext kernel;
  SimStats stats;
  EventQueue events("events", stats);
  const double bw = 1e12, latency = 1e-6;
  HbmSpec spec = one_channel(bw, latency);
  HbmChannels hbm("hbm", spec, events);
  DmaSpec small{65536, 65536};        // one 64 KiB request in flight
  DmaSpec large{4 << 20, 1 << 20};    // 4 MiB in flight: four times bandwidth x latency
  const OnChipMemory l2{"l2", 50e6, 10e12, 200e-9};
  DmaEngine dma_small("dma_small", small, spec, l2, events, stats);
  dma_small.bind(hbm);
  DmaEngine dma_large("dma_large", large, spec, l2, events, stats);
  dma_large.bind(hbm);
  const std::uint64_t bytes = 64ull << 20;
  Picoseconds t_small = 0, t_large = 0;
  AtTimeZero go("go", [&] {
    dma_small.read(0, bytes, -1, [&] {
      t_small = now_ps();
      // The same transfer again with a large window, once the channel is idle.
      const Picoseconds start = now_ps();
      dma_large.read(0, bytes, -1, [&, start] { t_large = now_ps() - start; });
    });
  });
  kernel.run();
  // One request at a time: each takes latency + 64 KiB / bw, so bandwidth = window / that.
  const double expected_small = 65536.0 / (latency + 65536.0 / bw);
  CHECK(static_cast<double>(bytes) / to_seconds(t_small) == Approx(expected_small).epsilon(0.001));
  CHECK(expected_small < 0.07 * bw);
  // A window above bandwidth x latency reaches the channel's peak (one latency exposed).
  CHECK(static_cast<double>(bytes) / to_seconds(t_large) == Approx(bw).epsilon(0.02));
  CHECK(stats.bytes_read == 2 * bytes);
}

namespace {
// A memory of one's own behind the DMA engine's socket: a fixed latency and bandwidth, no
// channels, and a log of what came through.
class FixedMemory : public MemoryTarget {
 public:
  FixedMemory(const sc_core::sc_module_name& name, double bandwidth, Picoseconds latency)
      : MemoryTarget(name), ps_per_byte_(1e12 / bandwidth), latency_(latency) {}
  std::vector<std::tuple<tlm::tlm_command, std::uint64_t, unsigned, double>> log;

 protected:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) override {
    const MemoryRequest* request = nullptr;
    trans.get_extension(request);
    log.emplace_back(trans.get_command(), trans.get_address(), trans.get_data_length(), request ? request->rate : 0.0);
    const Picoseconds start = std::max(now_ps(), free_at_);
    free_at_ = start + static_cast<Picoseconds>(static_cast<double>(trans.get_data_length()) * ps_per_byte_ / request->rate);
    delay = sc_core::sc_time::from_value(free_at_ + latency_ - now_ps());
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
  }

 private:
  double ps_per_byte_;
  Picoseconds latency_, free_at_ = 0;
};
}  // namespace

TEST_CASE("the DMA engine reaches memory through a TLM-2.0 socket: a memory target of one's own, bound to it, serves its requests", "[systemc][dma]") {
  SimulationContext kernel;
  SimStats stats;
  EventQueue events("events", stats);
  HbmSpec spec = one_channel(1e12, 0);
  spec.write_efficiency = 0.5;  // writes stream at half the rate of reads
  FixedMemory memory("memory", 1e12, 100'000);
  const OnChipMemory l2{"l2", 50e6, 4e12, 200e-9};
  DmaEngine dma("dma", DmaSpec{1 << 20, 1 << 20}, spec, l2, events, stats);  // one 1 MiB request at a time
  dma.bind(memory);
  Picoseconds read_done = 0, write_done = 0;
  AtTimeZero go("go", [&] {
    dma.read(4096, 3 << 20, -1, [&] {
      read_done = now_ps();
      dma.write(0, 1 << 20, -1, [&] { write_done = now_ps(); });
    });
  });
  kernel.run();
  // Three read transactions of 1 MiB, one after another (the window holds one), each 1 MiB at
  // 1 TB/s plus the memory's 100 ns; then one write at half the rate.
  REQUIRE(memory.log.size() == 4);
  for (int i = 0; i < 3; ++i) {
    CHECK(std::get<0>(memory.log[i]) == tlm::TLM_READ_COMMAND);
    CHECK(std::get<1>(memory.log[i]) == 4096u + (static_cast<std::uint64_t>(i) << 20));
    CHECK(std::get<2>(memory.log[i]) == 1u << 20);
  }
  CHECK(std::get<0>(memory.log[3]) == tlm::TLM_WRITE_COMMAND);
  CHECK(std::get<3>(memory.log[3]) == Approx(0.5));
  const Picoseconds one_mib = Picoseconds{1} << 20;  // 1 MiB at 1 TB/s: a picosecond per byte
  CHECK(read_done == 3 * (one_mib + 100'000));
  CHECK(write_done - read_done == 2 * one_mib + 100'000);
  // The chip's own HBM channels are such a target.
  static_assert(std::is_base_of_v<MemoryTarget, HbmChannels>);
}

TEST_CASE("the hardware file names the memory the DMA engine reaches: hbm, or an L2 in front of it serving a share of the reads", "[systemc][dma]") {
  // The file's [memory] table, and provenance for each key it sets.
  auto file = [](const std::string& memory) {
    std::string provenance = "[provenance]\n";
    for (const char* key : {"model", "hit_rate"}) {
      if (memory.find(std::string("\n") + key + " =") != std::string::npos) provenance += "\"memory." + std::string(key) + "\" = \"a\"\n";
    }
    return load_hardware(roofsim::test::write_temp("base = \"h100_sxm5\"\n" + memory + provenance, "memory.toml"));
  };
  const HardwareSpec hbm = load_hardware("h100_sxm5");
  CHECK(hbm.memory.model == "hbm");
  CHECK(hbm.memory_bandwidth() == hbm.hbm.bandwidth);
  const HardwareSpec half = file("[memory]\nmodel = \"l2_hit_rate\"\nhit_rate = 0.5\n");
  // The bound streams half the bytes from each side: HBM's share is the slower.
  CHECK(half.memory_bandwidth() == Approx(std::min(2 * half.hbm.bandwidth, half.tile_buffer_memory().bandwidth / 0.5)));
  // A memory-bound op: 1 GiB read, a FLOP per element.
  const OpSpec stream = vector_op(VectorShape{1ll << 29, 1ll << 29, 1.0, DType::bf16, DType::bf16, true}, "stream");
  const double from_hbm = run_ops(hbm, false, {stream}).ops.front().result.seconds();
  const double with_l2 = run_ops(half, false, {stream}).ops.front().result.seconds();
  // Half the reads leave HBM: the op takes well under its HBM time, and not under its bound.
  CHECK(with_l2 < 0.8 * from_hbm);
  CHECK(with_l2 > 2.0 * (1ll << 30) / half.memory_bandwidth() * 0.5);
  // A small hit rate changes little: the rest goes on to HBM through the L2's own port.
  const HardwareSpec few = file("[memory]\nmodel = \"l2_hit_rate\"\nhit_rate = 0.01\n");
  CHECK(run_ops(few, false, {stream}).ops.front().result.seconds() == Approx(from_hbm).epsilon(0.03));
  // An unknown model: the file, the line and the key, and the models there are.
  const HardwareSpec unknown = file("[memory]\nmodel = \"l3_magic\"\n");
  CHECK_THROWS_WITH(run_ops(unknown, false, {stream}),
                    Catch::Contains(".toml:3: memory.model") && Catch::Contains("hbm, l2_hit_rate"));
  CHECK_THROWS_WITH(file("[memory]\nhit_rate = 0.5\n"), Catch::Contains("hit_rate") && Catch::Contains("l2_hit_rate"));
  // The model without its share would serve nothing: refused, not silently HBM.
  CHECK_THROWS_WITH(file("[memory]\nmodel = \"l2_hit_rate\"\n"), Catch::Contains("memory.hit_rate") && Catch::Contains("missing"));
  // Other numbers are a model's own keys: one the model does not declare is refused at its line
  // when the model is built; a key that is no number is no one's.
  const HardwareSpec stray = file("[memory]\nmodel = \"l2_hit_rate\"\nhit_rate = 0.5\nways = 16\n");
  CHECK_THROWS_WITH(run_ops(stray, false, {stream}),
                    Catch::Contains(".toml:5: memory.ways: not a key of model 'l2_hit_rate' (it has none of its own)"));
  CHECK_THROWS_WITH(file("[memory]\nways = \"16\"\n"), Catch::Contains("memory.ways: unknown key"));
}

TEST_CASE("the analytic bound reads memory at the bandwidth the chip's memory model declares, a plugin's too", "[systemc][dma]") {
  // A model registered as a library would register it: HBM behind nothing, twice as fast.
  struct Doubled : MemoryModel {
    std::string name() const override { return "test_doubled_bandwidth"; }
    std::string summary() const override { return "test: declares twice HBM's bandwidth"; }
    double bandwidth(const HardwareSpec& hw) const override { return 2 * hw.hbm.bandwidth; }
    std::unique_ptr<MemoryTarget> build(const char*, const HardwareSpec&, HbmChannels&) const override { return nullptr; }
  };
  if (!memory_models().find("test_doubled_bandwidth")) memory_models().add(std::make_unique<Doubled>());
  HardwareSpec hw = load_hardware("h100_sxm5");
  const double hbm = hw.memory_bandwidth();
  CHECK(hbm == hw.hbm.bandwidth);
  hw.memory.model = "test_doubled_bandwidth";
  CHECK(hw.memory_bandwidth() == 2 * hbm);
  // A name no model has is refused by the bound as by the chip built for it.
  hw.memory.model = "no_such_model";
  CHECK_THROWS_WITH(hw.memory_bandwidth(), Catch::Contains("memory.model: unknown model 'no_such_model'"));
}

TEST_CASE("reads of resident data are served by the tile buffer at its bandwidth and latency, not by HBM", "[systemc][dma]") {
  SimulationContext kernel;
  SimStats stats;
  EventQueue events("events", stats);
  HbmSpec spec = one_channel(1e12, 1e-6);
  HbmChannels hbm("hbm", spec, events);
  const OnChipMemory l2{"l2", 50e6, 4e12, 200e-9};  // four times HBM's bandwidth, a fifth of its latency
  DmaEngine dma("dma", DmaSpec{4 << 20, 1 << 20}, spec, l2, events, stats);
  dma.bind(hbm);
  const std::uint64_t bytes = 64ull << 20;
  Picoseconds t_resident = 0, t_hbm = 0, one_request = 0;
  AtTimeZero go("go", [&] {
    dma.read_resident(0, 1 << 20, -1, [&] {
      one_request = now_ps();
      const Picoseconds start = now_ps();
      dma.read_resident(0, bytes, -1, [&, start] {
        t_resident = now_ps() - start;
        const Picoseconds again = now_ps();
        dma.read(0, bytes, -1, [&, again] { t_hbm = now_ps() - again; });
      });
    });
  });
  kernel.run();
  // One request: its service at 4 TB/s plus the buffer's latency.
  CHECK(to_seconds(one_request) == Approx(200e-9 + (1 << 20) / 4e12).epsilon(0.001));
  CHECK(static_cast<double>(bytes) / to_seconds(t_resident) == Approx(4e12).epsilon(0.02));
  CHECK(static_cast<double>(bytes) / to_seconds(t_hbm) == Approx(1e12).epsilon(0.02));
  CHECK(hbm.channel(0).jobs() == bytes / (1 << 20));  // the resident reads never reached HBM
  CHECK(dma.resident_server().jobs() == 1 + bytes / (1 << 20));
}

TEST_CASE("a matrix unit is busy for its tile's cycles at its clock, then drains", "[systemc][matrix]") {
  SimulationContext kernel;
  HardwareSpec tpu = load_hardware("tpu_v4");
  tpu.matrix.units = 1;
  SimStats stats;
  EventQueue events("events", stats);
  MatrixUnits mxu("mxu", tpu.matrix);
  ComputePort port("port");
  port.bind(mxu);
  Picoseconds first = 0, second = 0;
  const double cycles = mxu.tile_cycles({512, 128, 256}, DType::bf16);  // 2 passes of 512 rows
  auto job = [&] {
    UnitWave& w = port.request();
    w.work = &cycles;
    w.count = 1;
    return port.transport().ready;
  };
  AtTimeZero go("go", [&] {
    events.at(job(), [&] { first = now_ps(); });
    events.at(job(), [&] { second = now_ps(); });
  });
  kernel.run();
  const Picoseconds busy = ceil_ps(1024 / 1.05e9), drain = ceil_ps(256 / 1.05e9);
  CHECK(cycles == 1024);
  CHECK(first == busy + drain);
  CHECK(second == 2 * busy + drain);  // the second tile queues behind the first; drains overlap
  CHECK(mxu.server(0).busy_ps() == 2 * busy);
}

TEST_CASE("a wave through the compute seam holds every unit, then serves each its work, and reports the last", "[systemc][matrix]") {
  SimulationContext kernel;
  HardwareSpec h100 = load_hardware("h100_sxm5");
  h100.vector.units = 4;
  VectorUnits units("vector_units", h100.vector);
  ComputePort port("port");
  port.bind(units);
  const Picoseconds latency = ceil_ps(h100.vector.pipeline_latency_cycles / h100.vector.clock_hz);
  auto flops_ps = [&](double f) { return ceil_ps(f / h100.vector.flops_per_clock / h100.vector.clock_hz); };
  UnitWave reply;
  AtTimeZero go("go", [&] {
    // Units 2, 3, 0 in turn (starting at 2, wrapping); unit 3's amount of 0 is no job.
    const double work[3] = {1000, 0, 4000};
    UnitWave& w = port.request();
    w.hold_ps = 500;
    w.work = work;
    w.first = 2;
    w.count = 3;
    w.every_unit = 0;
    reply = port.transport();
  });
  kernel.run();
  CHECK(units.server(0).jobs() == 2);  // the hold and its work
  CHECK(units.server(1).jobs() == 1);  // the hold only
  CHECK(units.server(3).jobs() == 1);  // its amount was 0
  CHECK(units.server(0).free_at() == 500 + flops_ps(4000));
  CHECK(reply.ready == 500 + flops_ps(4000) + latency);
  CHECK(reply.last_started == 500);
}

TEST_CASE("a transfer through the link seam claims its links cut-through, or all at once when together", "[systemc][links]") {
  SimulationContext kernel;
  LinkArray links("links", 3);
  LinkPort port("port");
  port.bind(links);
  // 1 MB at 1 TB/s: 1 us per link; the head reaches the next link 100 ns after a link starts.
  const double rate = 1e12;
  const Picoseconds us = 1000000, head = 100000, tail = 50000;
  LinkTransfer path, busy, together;
  AtTimeZero go("go", [&] {
    const LinkHop one[1] = {{2, rate, 0, 0}};
    busy = port.transport(one, 1, 2000000, -1);  // link 2 busy for 2 us
    const LinkHop hops[2] = {{0, rate, head, tail}, {2, rate, head, tail}};
    path = port.transport(hops, 2, 1000000, -1);
    const LinkHop all[2] = {{0, rate, 0, tail}, {1, rate, 0, tail}};
    together = port.transport(all, 2, 1000000, -1, true);
  });
  kernel.run();
  CHECK(busy.arrival == 2 * us);
  // Link 0 from 0 to 1 us; link 2 from when it frees (2 us, not at 100 ns) to 3 us.
  CHECK(path.last_start == 2 * us);
  CHECK(path.arrival == 3 * us + tail);
  // Links 0 (free at 1 us) and 1 (idle) carry it over the same interval, from 1 us.
  CHECK(together.last_start == us);
  CHECK(together.arrival == 2 * us + tail);
  CHECK(links.server(1).last_start() == us);
  CHECK(links.bytes()[0] == 2000000);
  CHECK(links.bytes()[2] == 3000000);
}

TEST_CASE("exposed time is the communication no computation covers", "[systemc][intervals]") {
  using Span = std::pair<Picoseconds, Picoseconds>;
  // 0-10 and 20-30 communicate, 5-25 computes: 0-5 and 25-30 are exposed.
  CHECK(exposed_time({Span{0, 10}, Span{20, 30}}, {Span{5, 25}}) == Approx(10e-12));
  // Overlapping communication counts once; nothing computing exposes all of it.
  CHECK(exposed_time({Span{0, 10}, Span{5, 15}}, {}) == Approx(15e-12));
  CHECK(exposed_time({Span{0, 10}}, {Span{0, 10}}) == 0);
}
