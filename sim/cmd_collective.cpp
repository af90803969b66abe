// `roofsim collective`: one collective on a fabric of chips, simulated link by link, beside
// its closed form.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>

#include "core/checked.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "sim/cli_options.hpp"
#include "experiment/collective.hpp"
#include "experiment/collective_settings.hpp"
#include "experiment/result_settings.hpp"
#include "experiment/results.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"

namespace roofsim {

namespace {
struct CollectiveOptions {
  std::map<std::string, std::string> text;  // the settings' flags as typed, by name
  std::string json, from;
  int top_links = 6;
};

void run(const CollectiveOptions& o, const CLI::App& cmd) {
  check_output_path(o.json, "--json");
  // What --from's result records, then the settings given (experiment/collective_settings.hpp),
  // set in the table's order.
  nlohmann::json settings = o.from.empty() ? nlohmann::json::object() : read_result_settings(o.from, "collective", "--from");
  for (const CollectiveSetting& s : collective_settings()) {
    if (setting_flag_given(cmd, s.spec)) settings[s.spec.name] = flag_setting_value(s.spec, o.text.at(s.spec.name));
  }
  CollectiveExperiment x;
  try {
    set_collective_settings(x, settings);
  } catch (const InputError& err) {
    if (o.from.empty()) throw;
    throw InputError("--from " + o.from + " (or a flag over it): " + err.what());
  }
  const CollectiveExperimentResult res = run_collective_experiment(x);
  const CollectiveResult& r = res.sim;
  const CollectiveSpec& spec = r.spec;
  const HardwareSpec& hw = res.hw;
  const Topology& t = r.topology;
  const int group = res.members;
  std::ostream& os = human_out(o.json);
  os << collective_kind_name(spec.kind) << " of " << format_bytes(static_cast<double>(spec.bytes)) << " per chip on "
     << t.chips() << " x " << hw.description << (x.ideal ? " (ideal)" : "") << ", " << t.name() << ", algorithm "
     << collective_algo_name(spec.algo) << (x.group > 0 ? ", every group of " + std::to_string(group) + " chips" : "")
     << (x.to >= 0 ? ", chip 0 to chip " + std::to_string(x.to) + " (" + std::to_string(t.route(0, x.to).size()) + " hops)" : "")
     << (x.concurrent > 1 ? ", " + std::to_string(x.concurrent) + " at once" : "") << "\n\n";
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
  for (const CollectiveSetting& s : collective_settings()) add_setting_flag(cmd, s.spec, o->text[s.spec.name]);
  cmd->add_option("--from", o->from, "Run again what a result records: the settings object of a roofsim collective --json "
                                     "result; flags override it");
  add_json_option(cmd, o->json);
  cmd->callback([o, cmd] { run(*o, *cmd); });
}

}  // namespace roofsim
