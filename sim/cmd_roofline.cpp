// `roofsim roofline`: the analytic roofline of a chip, or the analytic bound of one op on it.
#include <iostream>
#include <memory>

#include "core/error.hpp"
#include "experiment/results.hpp"
#include "core/format.hpp"
#include "core/hardware.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "experiment/hardware_json.hpp"
#include "sim/op_flags.hpp"
#include "sim/output.hpp"
#include "validation/analytic.hpp"

namespace roofsim {

namespace {

struct RooflineOptions {
  std::string hw = "h100_sxm5";
  OpFlags op;
  std::string dtype = "bf16";
  std::string json;
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

void add_roofline_command(CLI::App& app) {
  auto o = std::make_shared<RooflineOptions>();
  CLI::App* cmd = app.add_subcommand(
      "roofline",
      "Analytic roofline of a chip: peak FLOP/s and ridge point per dtype, or the bound of one op");
  add_hw_option(cmd, o->hw);
  cmd->add_option("--gemm", o->op.gemm, "Bound of a GEMM: M,N,K (or B,M,N,K for a batched GEMM)");
  cmd->add_option("--elementwise", o->op.elementwise, "Bound of an element-wise add of N elements")
      ->check(positive_number());
  cmd->add_option("--reduce", o->op.reduce, "Bound of a row-wise sum: ROWS,COLS");
  add_dtype_option(cmd, "--dtype", o->dtype, "Data type of the op's operands");
  add_json_option(cmd, o->json);
  cmd->callback([o] { run(*o); });
}

}  // namespace roofsim
