#include "experiment/collective.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <map>
#include <tuple>
#include <stdexcept>

#include "components/sim_context.hpp"
#include "components/simulation.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "validation/collective_bounds.hpp"

namespace roofsim {

namespace {
// Starts the collectives at time zero and records when each finished.
class CollectiveDriver : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(CollectiveDriver);
  CollectiveDriver(const sc_core::sc_module_name& n, Fabric& f, const std::vector<CollectiveSpec>& specs)
      : sc_core::sc_module(n), finished(specs.size(), 0) {
    for (const CollectiveSpec& spec : specs) runs_.push_back(std::make_unique<CollectiveRun>(f, spec));
    SC_METHOD(kickoff);
  }
  std::vector<Picoseconds> finished;

 private:
  void kickoff() {
    SimulationContext::guarded([this] {
      for (std::size_t i = 0; i < runs_.size(); ++i) runs_[i]->start([this, i] { finished[i] = now_ps(); });
    });
  }
  std::vector<std::unique_ptr<CollectiveRun>> runs_;
};
}  // namespace

double busbw_factor(CollectiveKind k, int p) {
  switch (k) {
    case CollectiveKind::allreduce: return busbw_factor_allreduce(p);
    case CollectiveKind::allgather:
    case CollectiveKind::reducescatter:
    case CollectiveKind::alltoall: return busbw_factor_gather(p);
    case CollectiveKind::sendrecv: return 1.0;
  }
  return 1.0;
}

double collective_bound_s(const HardwareSpec& hw, const Topology& fabric, const CollectiveSpec& spec) {
  const int p = spec.group.empty() ? fabric.chips() : static_cast<int>(spec.group.size());
  const double n = static_cast<double>(spec.bytes);
  const double B = hw.links.bandwidth_per_direction * hw.links.efficiency;
  const double port = B * static_cast<double>(hw.links.count);
  const double a = hw.links.latency_s;
  if (spec.kind == CollectiveKind::sendrecv) {
    const int from = spec.group.empty() ? 0 : spec.group[0];
    const int to = spec.group.empty() ? 1 : spec.group[p > 1 ? 1 : 0];
    return fabric.family->send_bound_s(fabric, hw, from, to, n);
  }
  // A sub-torus group runs over the dimensions it spans only.
  const Topology links = fabric.rings() && is_subtorus(fabric, spec.group) ? fabric.subtorus(p) : fabric;
  const CollectiveBoundInputs in{fabric, links, spec.group, spec.kind, p, n, B, port, a, hw.links.switch_reduction_rate, hw, spec.dtype};
  return collective_algorithms().get(spec.algo.name, "algo").bound_s(in);
}

CollectiveResult simulate_collective(const HardwareSpec& hw, const Topology& t, const CollectiveSpec& spec,
                                     int concurrent) {
  return simulate_collectives(hw, t, std::vector<CollectiveSpec>(static_cast<std::size_t>(concurrent), spec));
}

CollectiveResult simulate_collectives(const HardwareSpec& hw, const Topology& t, const std::vector<CollectiveSpec>& specs,
                                      double max_events) {
  if (specs.empty()) throw std::logic_error("simulate_collectives without a collective");
  for (const CollectiveSpec& spec : specs) {
    check_algo(t, spec.kind, spec.algo, spec.group);
    if ((spec.algo.name == "nccl_nvls" || spec.algo.name == "switch_reduce") && spec.dtype != DType::bf16 &&
        spec.dtype != DType::fp16 && spec.dtype != DType::fp32) {
      throw InputError("${algo} " + spec.algo.name + ": the switch reduces fp32, bf16 and fp16, not ${dtype} " + std::string(dtype_name(spec.dtype)));
    }
    const std::string why = collective_algorithms().get(spec.algo.name, "algo").hardware_refusal(hw);
    if (!why.empty()) throw InputError(why);
  }
  // The work guard (as for runs): on rings every chip takes about 4 (d - 1) events per dimension, so
  // events grow with the square of a ring's length (a ring of 4096 chips: 67 M events, 17 s);
  // on a switch a few per chip.
  double ring_steps = 4;
  if (t.rings()) {
    ring_steps = 0;
    for (int d : t.dims) ring_steps += 4.0 * (d - 1);
  }
  const double events = static_cast<double>(specs.size()) * static_cast<double>(t.chips()) * ring_steps;
  if (max_events > 0 && events > max_events) {
    throw InputError("this collective would take about " + format_si(events, "", 1) + " simulation events on ${topology} " + t.name() +
                     ", more than the limit of " + format_si(max_events, "", 1) + ": raise ${max_events} (0: no limit)");
  }
  const CollectiveSpec& spec = specs.front();
  CollectiveResult r;
  r.spec = spec;
  r.topology = t;
  SimulationContext kernel;  // before the modules, destroyed after them
  Fabric fabric("fabric", hw, t);
  CollectiveDriver driver("collectives", fabric, specs);
  auto t0 = std::chrono::steady_clock::now();
  kernel.run();
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Picoseconds last = 0;
  for (Picoseconds f : driver.finished) {
    last = std::max(last, f);
    r.finished_s.push_back(to_seconds(f));
  }
  r.sim_time_s = to_seconds(last);
  r.bound_time_s = collective_bound_s(hw, t, spec);
  r.algbw = static_cast<double>(spec.bytes) / r.sim_time_s;
  r.busbw = r.algbw * busbw_factor(spec.kind, spec.group.empty() ? t.chips() : static_cast<int>(spec.group.size()));
  r.events = fabric.stats().events;
  r.links = fabric.link_use();
  return r;
}

CollectiveExperimentResult run_collective_experiment(const CollectiveExperiment& x) {
  CollectiveExperimentResult out;
  out.setup = x;
  out.hw = x.ideal ? make_ideal(x.hw) : x.hw;
  const HardwareSpec& hw = out.hw;
  if (hw.links.count <= 0) {
    // Located as a missing key is: the file at its root table's line.
    throw InputError((hw.source_file.empty() ? hw.name : hw.source_file + ":1") +
                     ": links: missing table [links] (chips without links cannot run collectives)");
  }
  const std::string topo_text = !x.topology.empty() ? x.topology : hw.links.kind == "ici" ? "4x4x4" : "switch:8";
  const Topology t = parse_topology(topo_text);
  CollectiveSpec spec;
  spec.kind = x.kind;
  spec.bytes = x.bytes;
  spec.dtype = x.dtype;
  if (x.to >= 0) {
    if (spec.kind != CollectiveKind::sendrecv) throw InputError("${to} is for ${op} sendrecv");
    if (x.to == 0 || x.to >= t.chips()) {
      throw InputError("${to} " + std::to_string(x.to) + ": expected a chip from 1 to " + std::to_string(t.chips() - 1) + " of " + t.name());
    }
    spec.group = {0, x.to};
  }
  // Every group of `group` consecutive chips runs the collective at once.
  const int group = x.group > 0 ? x.group : t.chips();
  if (t.chips() < 2) throw InputError("${topology} " + t.name() + ": a collective needs at least 2 chips");
  if (x.group < 0 || x.group == 1) throw InputError("${group} " + std::to_string(x.group) + ": a collective needs at least 2 chips");
  if (x.group > 0) {
    if (spec.kind == CollectiveKind::sendrecv) throw InputError("${group} is not for sendrecv (use ${to})");
    if (t.chips() % x.group != 0) {
      throw InputError("${group} " + std::to_string(x.group) + " must divide the " + std::to_string(t.chips()) + " chips of " + t.name());
    }
  }
  if (x.algo) {
    spec.algo = *x.algo;
  } else {
    std::vector<int> first_group;
    if (x.group > 0) {
      for (int c = 0; c < group; ++c) first_group.push_back(c);
    }
    spec.algo = default_algo(t, spec.kind, first_group);
  }
  std::vector<CollectiveSpec> specs;
  for (int first = 0; first < t.chips(); first += group) {
    if (x.group > 0) {
      spec.group.clear();
      for (int c = first; c < first + group; ++c) spec.group.push_back(c);
    }
    for (int i = 0; i < x.concurrent; ++i) specs.push_back(spec);
  }
  out.sim = simulate_collectives(hw, t, specs, x.max_events);
  out.members = spec.kind == CollectiveKind::sendrecv ? 2 : group;
  out.concurrent = x.concurrent;
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  out.peak_memory_bytes = static_cast<double>(usage.ru_maxrss) * 1024.0;  // Linux reports KiB
  return out;
}

}  // namespace roofsim
