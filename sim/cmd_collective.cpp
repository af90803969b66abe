// `roofsim collective`: one collective on a fabric of chips, simulated link by link, beside
// its closed form.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>

#include "core/checked.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "sim/cli_options.hpp"
#include "experiment/collective.hpp"
#include "experiment/results.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"

namespace roofsim {

std::uint64_t parse_bytes(const std::string& text) {
  static const std::pair<const char*, double> units[] = {
      {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
      {"KB", 1e3},     {"MB", 1e6},        {"GB", 1e9},           {"TB", 1e12},
      {"B", 1.0}};
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  double scale = 1;
  const std::string unit = used ? text.substr(used) : "";
  bool known = unit.empty();
  for (const auto& [name, s] : units) {
    if (unit == name) {
      scale = s;
      known = true;
    }
  }
  if (used == 0 || !known || !(v > 0) || !std::isfinite(v)) {
    throw InputError("--bytes '" + text + "': expected a positive size such as 1GiB, 58MB or 1048576");
  }
  // Whole bytes, checked after the unit: 0.4 B is no size, and 1e300 TB no buffer.
  const double bytes = v * scale;
  if (bytes < 1 || bytes > kMaxSize || bytes != std::floor(bytes)) {
    throw InputError("--bytes '" + text + "': a whole number of bytes from 1 to 2^48 (256 TiB)");
  }
  return static_cast<std::uint64_t>(bytes);
}

namespace {
struct CollectiveOptions {
  std::string hw = "h100_sxm5", topology, op = "allreduce", bytes = "1GiB", algo, json, dtype = "bf16";
  bool ideal = false;
  int concurrent = 1;
  int group = 0;  // 0: all chips
  int to = -1;    // sendrecv: the receiving chip (-1: chip 1)
  int top_links = 6;
  double max_events = kDefaultMaxEvents;
};

void run(const CollectiveOptions& o) {
  check_output_path(o.json, "--json");
  CollectiveExperiment x;
  x.hw = load_hardware(o.hw);
  x.ideal = o.ideal;
  x.topology = o.topology;
  if (!parse_collective_kind(o.op, x.kind)) {
    throw InputError("--op '" + o.op + "': expected allreduce, allgather, reducescatter, alltoall or sendrecv");
  }
  if (!o.algo.empty()) {
    CollectiveAlgo algo;
    if (!parse_collective_algo(o.algo, algo)) {
      throw InputError("--algo '" + o.algo + "': expected one of " + collective_algorithm_list());
    }
    x.algo = algo;
  }
  x.bytes = parse_bytes(o.bytes);
  if (!parse_dtype(o.dtype, x.dtype)) throw InputError("--dtype '" + o.dtype + "': expected one of " + dtype_list());
  x.to = o.to;
  x.max_events = o.max_events;
  x.group = o.group;
  x.concurrent = o.concurrent;
  const CollectiveExperimentResult res = run_collective_experiment(x);
  const CollectiveResult& r = res.sim;
  const CollectiveSpec& spec = r.spec;
  const HardwareSpec& hw = res.hw;
  const Topology& t = r.topology;
  const int group = res.members;
  std::ostream& os = human_out(o.json);
  os << collective_kind_name(spec.kind) << " of " << format_bytes(static_cast<double>(spec.bytes)) << " per chip on "
     << t.chips() << " x " << hw.description << (o.ideal ? " (ideal)" : "") << ", " << t.name() << ", algorithm "
     << collective_algo_name(spec.algo) << (o.group > 0 ? ", every group of " + std::to_string(group) + " chips" : "")
     << (o.to >= 0 ? ", chip 0 to chip " + std::to_string(o.to) + " (" + std::to_string(t.route(0, o.to).size()) + " hops)" : "")
     << (o.concurrent > 1 ? ", " + std::to_string(o.concurrent) + " at once" : "") << "\n\n";
  TextTable table({"", "time", "algorithm bandwidth", "bus bandwidth"});
  table.add_row({"simulated", format_seconds(r.sim_time_s), format_si(r.algbw, "B/s", 2), format_si(r.busbw, "B/s", 2)});
  const double bound_algbw = static_cast<double>(spec.bytes) / r.bound_time_s;
  table.add_row({"closed form", format_seconds(r.bound_time_s), format_si(bound_algbw, "B/s", 2),
                 format_si(res.bound_busbw(), "B/s", 2)});
  table.print(os);
  std::vector<Fabric::LinkUse> busiest = r.links;
  std::stable_sort(busiest.begin(), busiest.end(), [](const auto& a, const auto& b) { return a.busy > b.busy; });
  os << "\nbusiest links (utilisation over the run):\n";
  TextTable lt({"link", "bytes", "utilisation"});
  for (std::size_t i = 0; i < busiest.size() && i < static_cast<std::size_t>(o.top_links); ++i) {
    lt.add_row({busiest[i].name, format_si(static_cast<double>(busiest[i].bytes), "B", 2),
                format_fixed(100.0 * to_seconds(busiest[i].busy) / r.sim_time_s, 1) + "%"});
  }
  lt.print(os);
  os << "\nevents " << r.events << ", wall time " << format_seconds(r.wall_s) << ", peak memory "
     << format_bytes(res.peak_memory_bytes) << "\n";
  if (!o.json.empty()) write_json(o.json, to_json(res));
}
}  // namespace

void add_collective_command(CLI::App& app) {
  auto o = std::make_shared<CollectiveOptions>();
  CLI::App* cmd = app.add_subcommand("collective", "Simulate a collective on a fabric of chips, link by link, beside its closed form");
  add_hw_option(cmd, o->hw);
  cmd->add_option("--topology", o->topology, "N (a ring), AxBxC (a 3D torus with wrap-around), switch:N, or "
                                             "nodes:NxL (N nodes of L chips on their switches, joined by the "
                                             "hardware's [network]; groups across nodes run hierarchical) "
                                             "(default: switch:8 for NVLink, 4x4x4 for ICI)");
  cmd->add_option("--op", o->op, "allreduce, allgather, reducescatter, alltoall or sendrecv")->capture_default_str();
  cmd->add_option("--bytes", o->bytes, "Bytes per chip: 1GiB, 58MB, 1048576, ...")->capture_default_str();
  std::string algos;
  for (const std::string& name : collective_algorithms().names()) {
    algos += "\n  " + name + ": " + collective_algorithms().get(name, "algo").summary();
  }
  cmd->add_option("--algo", o->algo, "The algorithm (default: nccl on a switch, torus_split on a torus, ring over a group "
                                     "that is no sub-torus; all-to-all: nccl on a switch, routed on a ring or torus):" +
                                         algos);
  cmd->add_option("--dtype", o->dtype, "The elements' format (NVLS reduces fp32, bf16, fp16 only; default bf16)");
  cmd->add_option("--concurrent", o->concurrent, "Run N copies at once on the same links (contention)")->check(whole_number_between(1, 64));
  cmd->add_option("--max-events", o->max_events, "Refuse a collective whose estimated simulation events exceed N (default " +
                                                      format_si(kDefaultMaxEvents, "", 0) + "; 0: no limit)")
      ->check(non_negative_number());
  cmd->add_option("--group", o->group, "Run the collective on every group of N consecutive chips at once (on a ring or "
                                       "torus, a group that spans whole leading dimensions, e.g. 4, 16 or 64 on 4x4x4, "
                                       "uses its own links; any other runs a ring routed between its members)")
      ->check(positive_number());
  cmd->add_option("--to", o->to, "sendrecv: the receiving chip (default 1); on a ring or torus the data is routed "
                                 "dimension by dimension the short way round")->check(non_negative_number());
  cmd->add_flag("--ideal", o->ideal, "Link efficiency 1 and zero latency");
  add_json_option(cmd, o->json);
  cmd->callback([o] { run(*o); });
}

}  // namespace roofsim
