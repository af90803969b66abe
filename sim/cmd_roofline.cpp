// `roofsim roofline`: the analytic roofline of a chip, or the analytic bound of one op on it; with
// --sweep, GEMMs from far below to far above the ridge simulated, and the knee of the simulated
// roofline found beside the analytic one.
#include <iostream>
#include <memory>

#include "core/error.hpp"
#include "experiment/results.hpp"
#include "core/format.hpp"
#include "core/hardware.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "experiment/hardware_json.hpp"
#include "experiment/plot.hpp"
#include "experiment/single_op.hpp"
#include "sim/op_flags.hpp"
#include "sim/op_tables.hpp"
#include "sim/output.hpp"
#include "validation/analytic.hpp"
#include "validation/knee.hpp"

namespace roofsim {

namespace {

struct RooflineOptions {
  std::string hw = "h100_sxm5";
  OpFlags op;
  std::string dtype = "bf16";
  std::string json;
  bool sweep = false;  // the simulated GEMM intensity sweep, with these:
  bool ideal = false;
  int points = 31;
  std::string plot;
};

nlohmann::json op_json(const std::string& kind, const OpBound& b) {
  return {{"op", kind},
          {"flops", b.flops},
          {"bytes", b.bytes},
          {"intensity", b.intensity},
          {"compute_time_s", b.compute_time_s},
          {"memory_time_s", b.memory_time_s},
          {"bound_time_s", b.bound_time_s},
          {"attainable_flops", b.attainable_flops},
          {"roof", roof_name(b.roof)}};
}

void print_op(std::ostream& os, const std::string& kind, const OpBound& b) {
  TextTable t({"op", "FLOPs", "bytes", "intensity", "compute time", "memory time", "bound time",
               "attainable", "binding roof"});
  t.add_row({kind, format_si(b.flops, "FLOP", 2), format_si(b.bytes, "B", 2),
             format_fixed(b.intensity, 2) + " FLOP/B", format_seconds(b.compute_time_s),
             format_seconds(b.memory_time_s), format_seconds(b.bound_time_s),
             format_si(b.attainable_flops, "FLOP/s"), roof_name(b.roof)});
  t.print(os);
}

void run(const RooflineOptions& o) {
  if (o.sweep) {
    if (o.op.given() > 0) throw InputError("--sweep simulates its own GEMMs: give it without --gemm, --elementwise or --reduce");
    run_intensity_sweep({o.hw, o.dtype, o.ideal, o.points, o.json, o.plot});
    return;
  }
  check_output_path(o.json, "--json");
  HardwareSpec hw = load_hardware(o.hw);
  DType dtype = dtype_from_flag("--dtype", o.dtype);
  std::ostream& os = human_out(o.json);
  nlohmann::json j = hardware_summary_json(hw);

  if (o.op.given() > 1) throw InputError("give at most one of --gemm, --elementwise, --reduce");
  if (o.op.given() == 0) {
    os << hw.description << " (" << hw.name << "): analytic roofline\n\n";
    TextTable t({"dtype", "unit", "peak", "HBM bandwidth", "ridge"});
    for (DType d : all_dtypes()) {
      double p = peak_flops(hw, d);
      if (p <= 0) continue;
      t.add_row({std::string(dtype_name(d)), hw.matrix_supports(d) ? "matrix" : "vector",
                 format_si(p, "FLOP/s"), format_si(hw.memory_bandwidth(), "B/s", 2),
                 format_fixed(p / hw.memory_bandwidth(), 1) + " FLOP/B"});
    }
    // Near-memory units: their own compute roof over the stacks' internal bandwidth (bf16 GEMVs
    // of at most pim.max_rows rows run there).
    if (hw.pim.present) {
      const double p = hw.pim_peak_flops(), bw = hw.pim_bandwidth();
      t.add_row({"bf16", "near-memory", format_si(p, "FLOP/s"), format_si(bw, "B/s", 2) + " (inside)", format_fixed(p / bw, 1) + " FLOP/B"});
    }
    t.print(os);
    os << "\nattainable(I) = min(peak, bandwidth x I); below the ridge an op is memory-bound.\n";
    if (hw.pim.present) {
      os << "near-memory units run GEMMs of at most " << hw.pim.max_rows << " rows (decode GEMVs) at their own roof, reading "
         << "the stacks from inside; every other op takes the matrix or vector row above.\n";
    }
  } else {
    const OpSpec op = op_from_flags(o.op, dtype);
    const std::string& kind = op.name;
    OpBound b = bound_op(op.cost(), hw);
    os << hw.description << " (" << hw.name << "): analytic bound of one op\n\n";
    print_op(os, kind, b);
    j["op"] = op_json(kind, b);
  }
  if (!o.json.empty()) write_json(o.json, versioned(j));
}

}  // namespace

void run_intensity_sweep(const IntensitySweepOptions& o) {
  check_output_path(o.json, "--json");
  check_output_path(o.plot, "--plot");
  HardwareSpec hw = hardware_for_run(load_hardware(o.hw), o.ideal);
  DType dtype = dtype_from_flag("--dtype", o.dtype);
  const RooflineSweepResult r = run_roofline_sweep(hw, o.ideal, dtype, o.points);
  const Knee& knee = r.knee;
  const Roofline& rl = r.analytic;
  std::ostream& os = human_out(o.json);
  os << hw.description << " (" << hw.name << (o.ideal ? ", ideal" : "") << "): simulated roofline sweep, "
     << o.dtype << "\n\n";
  print_ops(os, r.run.ops);
  os << "\nsimulated bandwidth slope " << format_si(knee.bandwidth, "B/s", 2) << " (analytic "
     << format_si(rl.bandwidth, "B/s", 2) << ")\n"
     << "simulated compute roof    " << format_si(knee.peak_flops, "FLOP/s") << " (analytic "
     << format_si(rl.peak_flops, "FLOP/s") << ")\n"
     << "emergent ridge            " << format_fixed(knee.ridge(), 1) << " FLOP/B (analytic "
     << format_fixed(rl.ridge(), 1) << ", " << format_fixed(100.0 * (knee.ridge() / rl.ridge() - 1), 1)
     << "%)\n";
  print_speed(os, r.run.speed);
  if (!o.plot.empty()) {
    std::vector<RooflinePoint> pts;
    for (const auto& p : r.run.ops) pts.push_back({p.bound.intensity, p.achieved_flops()});
    write_roofline_plot(o.plot, hw.description + (o.ideal ? " (ideal)" : "") + ", " + o.dtype, rl, pts, knee);
    os << "plot written to " << o.plot << "\n";
  }
  if (!o.json.empty()) write_json(o.json, to_json(r));
}

void add_roofline_command(CLI::App& app) {
  auto o = std::make_shared<RooflineOptions>();
  CLI::App* cmd = app.add_subcommand(
      "roofline",
      "Analytic roofline of a chip: peak FLOP/s and ridge point per dtype, or the bound of one op; with --sweep, GEMMs "
      "from about 1 to several thousand FLOP/B simulated on it and the ridge that emerges beside the analytic one");
  add_hw_option(cmd, o->hw);
  cmd->add_option("--gemm", o->op.gemm, "Bound of a GEMM: M,N,K (or B,M,N,K for a batched GEMM)");
  cmd->add_option("--elementwise", o->op.elementwise, "Bound of an element-wise add of N elements")
      ->check(positive_number());
  cmd->add_option("--reduce", o->op.reduce, "Bound of a row-wise sum: ROWS,COLS");
  add_dtype_option(cmd, "--dtype", o->dtype, "Data type of the op's operands");
  add_json_option(cmd, o->json);
  const char* sweep = "Simulated (--sweep)";
  cmd->add_flag("--sweep", o->sweep, "Simulate GEMMs from far below to far above the ridge and find where the simulated "
                                     "roofline bends (its bandwidth slope, compute roof and ridge) beside the analytic one")
      ->group(sweep);
  cmd->add_flag("--ideal", o->ideal, "With --sweep: efficiency 1, zero latencies and overheads, datasheet clock")->group(sweep);
  cmd->add_option("--points", o->points, "With --sweep: number of GEMM shapes (6 to 1000)")
      ->capture_default_str()
      ->check(whole_number_between(6, 1000))
      ->group(sweep);
  cmd->add_option("--plot", o->plot, "With --sweep: write a log-log roofline chart (FILE.png or FILE.svg, drawn by gnuplot)")
      ->group(sweep);
  cmd->callback([o, cmd] {
    for (const char* sweep_only : {"--ideal", "--points", "--plot"}) {
      if (!o->sweep && cmd->get_option(sweep_only)->count() > 0) {
        throw InputError(std::string(sweep_only) + " is for the simulated sweep: add --sweep");
      }
    }
    run(*o);
  });
}

}  // namespace roofsim
