// `roofsim op`: simulate one op on one chip. `roofsim sweep`: simulate a range of GEMMs from
// far below to far above the ridge and find the knee of the simulated roofline.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>

#include "components/simulation.hpp"
#include "components/sweep.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "sim/op_flags.hpp"
#include "sim/output.hpp"
#include "sim/plot.hpp"
#include "validation/analytic.hpp"
#include "validation/knee.hpp"

namespace roofsim {

namespace {

struct OpOptions {
  std::string hw = "h100_sxm5";
  OpFlags op;
  std::string dtype = "bf16";
  bool ideal = false;
  bool fine = false;
  std::string json;
};

struct SimulatedOp {
  OpSpec spec;
  OpCost cost;
  OpBound bound;
  OpResult result;
  double achieved_flops() const { return result.flops / result.seconds(); }
  double percent_of_roof() const { return 100.0 * bound.bound_time_s / result.seconds(); }
};

nlohmann::json op_json(const SimulatedOp& o) {
  return {{"name", o.spec.name},
          {"flops", o.cost.flops},
          {"bytes", o.cost.bytes()},
          {"intensity", o.bound.intensity},
          {"sim_time_s", o.result.seconds()},
          {"bound_time_s", o.bound.bound_time_s},
          {"achieved_flops", o.achieved_flops()},
          {"achieved_bytes_per_s", static_cast<double>(o.result.bytes_read + o.result.bytes_written) / o.result.seconds()},
          {"roof_flops", o.bound.attainable_flops},
          {"percent_of_roof", o.percent_of_roof()},
          {"roof", roof_name(o.bound.roof)},
          {"sim_flops", o.result.flops},
          {"sim_bytes_read", o.result.bytes_read},
          {"sim_bytes_written", o.result.bytes_written},
          {"steps", o.result.steps},
          {"plan", o.result.plan},
          {"events", o.result.events}};
}

HardwareSpec chosen_hardware(const std::string& name, bool ideal) {
  HardwareSpec hw = load_hardware(name);
  return ideal ? make_ideal(hw) : hw;
}

std::vector<SimulatedOp> simulate_ops(const HardwareSpec& hw, const std::vector<OpSpec>& specs,
                                      Granularity g, SimulationOutcome& outcome) {
  ChipJob job{hw, g, specs};
  outcome = simulate({job});
  std::vector<SimulatedOp> out;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    SimulatedOp s;
    s.spec = specs[i];
    s.cost = specs[i].is_gemm ? gemm_cost(specs[i].gemm) : vector_cost(specs[i].vector);
    s.bound = bound_op(s.cost, hw);
    s.result = outcome.chips[0].ops[i];
    out.push_back(s);
  }
  return out;
}

void print_ops(std::ostream& os, const std::vector<SimulatedOp>& ops) {
  TextTable t({"op", "intensity", "simulated", "bound", "achieved", "roof", "% of roof", "binds"});
  for (const auto& o : ops) {
    t.add_row({o.spec.name, format_fixed(o.bound.intensity, 1), format_seconds(o.result.seconds()),
               format_seconds(o.bound.bound_time_s), format_si(o.achieved_flops(), "FLOP/s"),
               format_si(o.bound.attainable_flops, "FLOP/s"), format_fixed(o.percent_of_roof(), 1),
               roof_name(o.bound.roof)});
  }
  t.print(os);
}

void add_speed(nlohmann::json& j, const SimulationOutcome& out) {
  j["events"] = out.events;
  j["server_jobs"] = out.server_jobs;
  j["wall_s"] = out.wall_s;
}

void print_speed(std::ostream& os, const SimulationOutcome& out) {
  const double wall = std::max(out.wall_s, 1e-9);
  os << "\nevents " << out.events << " (" << out.server_jobs << " server jobs), kernel wall time "
     << format_seconds(out.wall_s) << ", " << format_si(static_cast<double>(out.events) / wall, "events/s")
     << ", " << format_si(static_cast<double>(out.server_jobs) / wall, "jobs/s") << "\n";
}

void run_op(const OpOptions& o) {
  HardwareSpec hw = chosen_hardware(o.hw, o.ideal);
  DType dtype = dtype_from_flag("--dtype", o.dtype);
  if (o.op.given() != 1) throw InputError("give exactly one of --gemm, --elementwise, --reduce");
  OpSpec spec = op_from_flags(o.op, dtype);
  if (spec.is_gemm && !hw.matrix_supports(dtype)) {
    throw InputError(hw.name + ": the matrix units do not compute in " + o.dtype);
  }
  SimulationOutcome out;
  std::vector<SimulatedOp> ops = simulate_ops(hw, {spec}, o.fine ? Granularity::fine : Granularity::coarse, out);
  const SimulatedOp& r = ops[0];
  std::ostream& os = human_out(o.json);
  os << hw.description << " (" << hw.name << "): simulated op\n\n";
  print_ops(os, ops);
  os << "\nplan: " << r.result.plan << "\n"
     << "moved " << format_si(static_cast<double>(r.result.bytes_read), "B", 2) << " in, "
     << format_si(static_cast<double>(r.result.bytes_written), "B", 2) << " out ("
     << format_si(static_cast<double>(r.result.bytes_read + r.result.bytes_written) / r.result.seconds(), "B/s", 2)
     << "; the op needs at least " << format_si(r.cost.bytes(), "B", 2) << ")\n";
  print_speed(os, out);
  if (!o.json.empty()) {
    nlohmann::json j = op_json(r);
    j["hardware"] = hw.name;
    j["ideal"] = o.ideal;
    add_speed(j, out);
    write_json(o.json, j);
  }
}

struct SweepOptions {
  std::string hw = "h100_sxm5";
  std::string dtype = "bf16";
  bool ideal = false;
  int points = 31;
  std::string json;
  std::string plot;
};

void run_sweep(const SweepOptions& o) {
  HardwareSpec hw = chosen_hardware(o.hw, o.ideal);
  DType dtype = dtype_from_flag("--dtype", o.dtype);
  if (!hw.matrix_supports(dtype)) throw InputError(hw.name + ": the matrix units do not compute in " + o.dtype);
  if (o.points < 6) throw InputError("--points must be at least 6");
  SimulationOutcome out;
  std::vector<SimulatedOp> ops = simulate_ops(hw, roofline_sweep_ops(hw, dtype, o.points), Granularity::coarse, out);
  std::vector<RooflinePoint> pts;
  for (const auto& r : ops) pts.push_back({r.bound.intensity, r.achieved_flops()});
  Knee knee = find_knee(pts);
  Roofline rl = roofline_for(hw, dtype);

  std::ostream& os = human_out(o.json);
  os << hw.description << " (" << hw.name << (o.ideal ? ", ideal" : "") << "): simulated roofline sweep, "
     << o.dtype << "\n\n";
  print_ops(os, ops);
  os << "\nsimulated bandwidth slope " << format_si(knee.bandwidth, "B/s", 2) << " (analytic "
     << format_si(rl.bandwidth, "B/s", 2) << ")\n"
     << "simulated compute roof    " << format_si(knee.peak_flops, "FLOP/s") << " (analytic "
     << format_si(rl.peak_flops, "FLOP/s") << ")\n"
     << "emergent ridge            " << format_fixed(knee.ridge(), 1) << " FLOP/B (analytic "
     << format_fixed(rl.ridge(), 1) << ", " << format_fixed(100.0 * (knee.ridge() / rl.ridge() - 1), 1)
     << "%)\n";
  print_speed(os, out);
  if (!o.plot.empty()) {
    write_roofline_plot(o.plot, hw.description + (o.ideal ? " (ideal)" : "") + ", " + o.dtype, rl, pts, knee);
    os << "plot written to " << o.plot << "\n";
  }
  if (!o.json.empty()) {
    nlohmann::json j;
    j["hardware"] = hw.name;
    j["ideal"] = o.ideal;
    j["dtype"] = o.dtype;
    j["points"] = nlohmann::json::array();
    for (const auto& r : ops) j["points"].push_back(op_json(r));
    j["emergent_ridge"] = knee.ridge();
    j["analytic_ridge"] = rl.ridge();
    j["emergent_bandwidth"] = knee.bandwidth;
    j["emergent_peak_flops"] = knee.peak_flops;
    add_speed(j, out);
    write_json(o.json, j);
  }
}

}  // namespace

void add_op_command(CLI::App& app) {
  auto o = std::make_shared<OpOptions>();
  CLI::App* cmd = app.add_subcommand("op", "Simulate one op on one chip and compare it with its analytic roofline bound");
  add_hw_option(cmd, o->hw);
  cmd->add_option("--gemm", o->op.gemm, "A GEMM: M,N,K (or B,M,N,K for a batched GEMM)");
  cmd->add_option("--elementwise", o->op.elementwise, "An element-wise add of N elements")->check(CLI::PositiveNumber);
  cmd->add_option("--reduce", o->op.reduce, "A row-wise sum: ROWS,COLS");
  add_dtype_option(cmd, "--dtype", o->dtype, "Data type of the operands");
  cmd->add_flag("--ideal", o->ideal, "Efficiency 1, zero latencies and overheads, datasheet clock");
  cmd->add_flag("--fine", o->fine, "One event per tile and smaller memory requests (slower; for granularity checks)");
  add_json_option(cmd, o->json);
  cmd->callback([o] { run_op(*o); });

  auto s = std::make_shared<SweepOptions>();
  CLI::App* sw = app.add_subcommand("sweep", "Simulate GEMMs from about 1 to several thousand FLOP/byte and find the emergent ridge");
  add_hw_option(sw, s->hw);
  add_dtype_option(sw, "--dtype", s->dtype, "Data type of the operands");
  sw->add_flag("--ideal", s->ideal, "Efficiency 1, zero latencies and overheads, datasheet clock");
  sw->add_option("--points", s->points, "Number of GEMM shapes in the sweep")->capture_default_str();
  add_json_option(sw, s->json);
  sw->add_option("--plot", s->plot, "Write a log-log roofline chart (FILE.png or FILE.svg, drawn by gnuplot)");
  sw->callback([s] { run_sweep(*s); });
}

}  // namespace roofsim
