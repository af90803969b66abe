// `roofsim op`: simulate one op on one chip. `roofsim sweep`: a design-space sweep file (run by
// sim/cmd_sweep.cpp); without a file, the old name of `roofsim roofline --sweep`.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include "core/error.hpp"
#include "core/format.hpp"
#include "experiment/gap_explain.hpp"
#include "experiment/results.hpp"
#include "experiment/single_op.hpp"
#include "experiment/stack.hpp"
#include "core/parse.hpp"
#include "core/checked.hpp"
#include "workloads/attention_kernel.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "sim/gap_table.hpp"
#include "sim/op_flags.hpp"
#include "sim/op_tables.hpp"
#include "sim/output.hpp"
#include "validation/analytic.hpp"

namespace roofsim {

namespace {

struct OpOptions {
  std::string hw = "h100_sxm5";
  OpFlags op;
  std::string attention;  // KIND,BATCH,TOKENS,HEADS,KV_HEADS,HEAD_DIM
  std::string attention_kernel = "trtllm";
  std::int64_t window = 0;
  std::string kv_dtype;
  std::string moe;  // TOKENS,HIDDEN,INTER,EXPERTS,TOPK[,TP,EP]
  std::string routing = "balanced";
  std::string dtype = "bf16";
  std::string weights_dtype;  // --gemm's B, when narrower than dtype: a weight-only GEMM
  std::string stack;          // a software stack whose kernel parameters the chip takes
  std::int64_t scale_block = 0;  // block-scaled fp8: values of K per scale (0: per-tensor)
  bool ideal = false;
  bool l2_resident = false;  // the operands already in the tile buffer (a replayed call)
  bool fine = false;
  bool explain = false;
  double max_events = kDefaultMaxEvents;
  std::string json;
};

}  // namespace

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

void print_speed(std::ostream& os, const SimulationSpeed& out) {
  const double wall = std::max(out.wall_s, 1e-9);
  os << "\nevents " << out.events << " (" << out.server_jobs << " server jobs), kernel wall time "
     << format_seconds(out.wall_s) << ", " << format_si(static_cast<double>(out.events) / wall, "events/s")
     << ", " << format_si(static_cast<double>(out.server_jobs) / wall, "jobs/s") << "\n";
}

namespace {

// --explain: the ops simulated again with one non-ideal cost taken away after another (as
// `roofsim explain` does for a run): what each op's and the call's gap to the bound is made of.
// Returns the JSON to add under "explain".
nlohmann::json print_explanation(std::ostream& os, const OpOptions& o, const HardwareSpec& hw, const std::vector<OpSpec>& ops) {
  const OpsGapExplanation g = explain_op_gaps(hw, ops, o.fine ? Granularity::fine : Granularity::coarse, o.max_events);
  os << "\nwhat the time above the bound is made of (simulated " << non_ideal_costs().size() + 1
     << " times: on the chip, then with one cost taken away after\nanother in the order of the columns; a part is the "
        "time its removal saved, as a share of the gap):\n";
  TextTable t(gap_header({"op"}));
  for (std::size_t i = 0; i < ops.size(); ++i) t.add_row(gap_cells({ops[i].name}, g.ops[i]));
  if (ops.size() > 1) t.add_row(gap_cells({"the call"}, g.call));
  t.print(os);
  print_gap_causes(os);
  return to_json(g, ops);
}

// --attention prefill|decode,BATCH,TOKENS,HEADS,KV_HEADS,HEAD_DIM: one layer's attention on one
// chip. Prefill: BATCH prompts of TOKENS tokens, causal from position 0. Decode: BATCH
// sequences each adding one token to a cache of TOKENS tokens.
AttentionShape attention_from_flags(const OpOptions& o, DType dtype) {
  const std::string& text = o.attention;
  const std::string what = "--attention " + text;
  const std::vector<std::string> parts = split_commas(text);
  if (parts.size() != 6 || (parts[0] != "prefill" && parts[0] != "decode")) {
    throw InputError(what + ": expected prefill|decode,BATCH,TOKENS,HEADS,KV_HEADS,HEAD_DIM (e.g. decode,64,2048,32,8,128)");
  }
  static const char* names[] = {"", "BATCH", "TOKENS", "HEADS", "KV_HEADS", "HEAD_DIM"};
  std::int64_t v[6] = {0};
  for (int i = 1; i < 6; ++i) {
    const auto n = parse_integer(parts[static_cast<std::size_t>(i)]);
    if (!n || *n <= 0 || *n > (std::int64_t{1} << 24)) {
      throw InputError(what + ": " + names[i] + " must be a whole number from 1 to 2^24, got '" + parts[static_cast<std::size_t>(i)] + "'");
    }
    v[i] = *n;
  }
  AttentionShape s;
  s.prefill = parts[0] == "prefill";
  s.sequences = v[1];
  s.heads = v[3];
  s.kv_heads = v[4];
  s.head_dim = v[5];
  if (s.heads % s.kv_heads != 0) throw InputError(what + ": KV_HEADS (" + parts[4] + ") must divide HEADS (" + parts[3] + ")");
  s.new_tokens = s.prefill ? v[2] : 1;
  s.context = s.prefill ? v[2] : v[2] + 1;
  if (o.window < 0 || o.window > (std::int64_t{1} << 24)) throw InputError("--window: expected 0 (none) to 2^24 tokens");
  s.window = o.window;
  const double elements = static_cast<double>(s.sequences) * static_cast<double>(s.heads) * static_cast<double>(s.context) *
                          static_cast<double>(s.head_dim);
  if (elements > static_cast<double>(kMaxSize)) throw InputError(what + ": BATCH x HEADS x TOKENS x HEAD_DIM beyond 2^48 elements");
  s.precision.activations = dtype;
  s.precision.kv = o.kv_dtype.empty() ? dtype : dtype_from_flag("--kv-dtype", o.kv_dtype);
  return s;
}

// A call of several kernels (an attention call, a MoE layer): its ops, then its time from the
// first start to the last end beside the sum of its ops' bounds.
void print_call(std::ostream& os, const OpOptions& o, const OpsRunResult& out, const std::vector<OpSpec>& ops,
                const std::string& what) {
  print_ops(os, out.ops);
  const CallTotals totals = call_totals(out);
  os << "\n" << what << ": " << format_seconds(totals.sim_s) << " simulated, its ops' bounds add up to "
     << format_seconds(totals.bounds_s) << "\n";
  print_speed(os, out.speed);
  nlohmann::json j = call_json(out);
  if (o.explain) j["explain"] = print_explanation(os, o, out.hw, ops);
  if (!o.json.empty()) write_json(o.json, j);
}

void run_attention(const OpOptions& o, const HardwareSpec& hw, DType dtype) {
  const AttentionShape s = attention_from_flags(o, dtype);
  parse_attention(o.attention_kernel, "--attention-kernel");
  const std::vector<OpSpec> ops = attention_call_ops(s, o.attention_kernel);
  const OpsRunResult out = run_ops(hw, o.ideal, ops, o.fine ? Granularity::fine : Granularity::coarse, o.max_events);
  std::ostream& os = human_out(o.json);
  os << hw.description << " (" << hw.name << "): one " << (s.prefill ? "prefill" : "decode") << " attention call, kernel "
     << o.attention_kernel << (o.attention_kernel == "trtllm" && !s.prefill
                                   ? (trtllm_decode_kernel(s) == TrtllmDecodeKernel::xqa    ? " (XQA)"
                                      : trtllm_decode_kernel(s) == TrtllmDecodeKernel::mla ? " (MLA)"
                                                                                           : " (MMHA)")
                                   : "")
     << "\n\n";
  print_call(os, o, out, ops, "the call");
}

// --moe TOKENS,HIDDEN,INTER,EXPERTS,TOPK[,TP,EP] with --routing balanced|power_law:A.
MoeCall moe_from_flags(const OpOptions& o, DType dtype) {
  const std::string what = "--moe " + o.moe;
  std::vector<std::int64_t> v;
  for (const std::string& part : split_commas(o.moe)) {
    const auto n = parse_integer(part);
    if (!n || *n <= 0 || *n > (std::int64_t{1} << 24)) {
      throw InputError(what + ": expected TOKENS,HIDDEN,INTER,EXPERTS,TOPK[,TP,EP], whole numbers from 1 to 2^24 (got '" + part + "')");
    }
    v.push_back(*n);
  }
  if (v.size() != 5 && v.size() != 7) throw InputError(what + ": expected TOKENS,HIDDEN,INTER,EXPERTS,TOPK[,TP,EP] (e.g. 256,4096,14336,8,2)");
  MoeCall m;
  m.tokens = v[0];
  m.hidden = v[1];
  m.inter = v[2];
  m.experts = v[3];
  m.topk = v[4];
  if (v.size() == 7) {
    m.tp = v[5];
    m.ep = v[6];
  }
  try {
    check_moe_call(m);
  } catch (const InputError& e) {
    throw InputError(what + ": " + e.what());
  }
  if (o.routing.rfind("power_law:", 0) == 0) {
    const auto a = parse_number(o.routing.substr(10));
    if (!a || *a <= 0 || *a > 10) throw InputError("--routing " + o.routing + ": expected power_law:A with A in (0, 10]");
    m.power_law = *a;
  } else if (o.routing != "balanced") {
    throw InputError("--routing " + o.routing + ": expected balanced or power_law:A (e.g. power_law:1.2)");
  }
  m.dtype = dtype;
  m.scale_block_k = o.scale_block;
  return m;
}

// An MoE layer: balanced routing is one call; power-law routing is timed over the benchmark's
// draws, and the layer's time is their mean. The ops shown are the first draw's.
void run_moe(const OpOptions& o, const HardwareSpec& hw, DType dtype) {
  const MoeCall m = moe_from_flags(o, dtype);
  const int draws = moe_routing_draws(m);
  OpsRunResult first;
  SimulationSpeed speed;
  double sim_s = 0, bounds_s = 0;
  TextTable table({"draw", "copies here", "experts touched", "most on one expert", "simulated", "bounds add up to"});
  nlohmann::json per_draw = nlohmann::json::array();
  for (int d = 0; d < draws; ++d) {
    const std::vector<std::int64_t> loads = moe_local_loads(m, d);
    std::int64_t copies = 0, touched = 0, most = 0;
    for (std::int64_t v : loads) {
      copies += v;
      touched += v > 0;
      most = std::max(most, v);
    }
    OpsRunResult out = run_ops(hw, o.ideal, moe_layer_ops(m, d), o.fine ? Granularity::fine : Granularity::coarse, o.max_events);
    const CallTotals totals = call_totals(out);
    sim_s += totals.sim_s / draws;
    bounds_s += totals.bounds_s / draws;
    speed.events += out.speed.events;
    speed.server_jobs += out.speed.server_jobs;
    speed.wall_s += out.speed.wall_s;
    table.add_row({std::to_string(d + 1), std::to_string(copies), std::to_string(touched) + " of " + std::to_string(loads.size()),
                   std::to_string(most), format_seconds(totals.sim_s), format_seconds(totals.bounds_s)});
    per_draw.push_back({{"local_copies", copies}, {"experts_touched", touched}, {"local_experts", loads.size()},
                        {"max_expert_copies", most}, {"sim_time_s", totals.sim_s}, {"bounds_sum_s", totals.bounds_s}});
    if (d == 0) first = std::move(out);
  }
  std::ostream& os = human_out(o.json);
  os << hw.description << " (" << hw.name << "): one MoE layer's experts on one GPU (TensorRT-LLM's CUTLASS MoE kernels), "
     << o.routing << " routing\n\n";
  if (draws > 1) os << "the ops of draw 1:\n";
  print_ops(os, first.ops);
  os << "\n" << (draws > 1 ? "routing draws (the benchmark's power-law routing, seeded):" : "routing:") << "\n";
  table.print(os);
  os << "\nthe layer: " << format_seconds(sim_s) << " simulated" << (draws > 1 ? " (the mean of " + std::to_string(draws) + " draws, as the benchmark reports)" : "")
     << ", its ops' bounds add up to " << format_seconds(bounds_s) << "\n";
  print_speed(os, speed);
  nlohmann::json explained;
  if (o.explain) {
    if (draws > 1) os << "\n(explained: the ops of draw 1)";
    explained = print_explanation(os, o, hw, moe_layer_ops(m, 0));
  }
  if (o.json.empty()) return;
  first.speed = speed;  // all the draws' simulation
  nlohmann::json j = call_json(first, {sim_s, bounds_s});
  j["routing"] = {{"distribution", o.routing}, {"draws", per_draw}};
  if (o.explain) j["explain"] = explained;
  write_json(o.json, j);
}

void run_op(const OpOptions& o) {
  check_output_path(o.json, "--json");
  const std::optional<SoftwareStack> stack = o.stack.empty() ? std::nullopt : std::optional<SoftwareStack>(load_stack(o.stack));
  HardwareSpec hw = hardware_for_run(stack ? stack_hardware(*stack, o.hw) : load_hardware(o.hw), o.ideal);
  DType dtype = dtype_from_flag("--dtype", o.dtype);
  if (!o.weights_dtype.empty() && o.op.gemm.empty()) throw InputError("--weights-dtype goes with --gemm");
  if (o.op.given() + !o.attention.empty() + !o.moe.empty() != 1) {
    throw InputError("give exactly one of --gemm, --elementwise, --reduce, --attention, --moe");
  }
  if (o.moe.empty() && o.routing != "balanced") throw InputError("--routing goes with --moe");
  if (o.explain && o.ideal) throw InputError("--explain compares the chip with its ideal self; leave --ideal out");
  if (o.l2_resident && !o.op.given()) throw InputError("--l2-resident goes with --gemm, --elementwise or --reduce");
  if (o.scale_block > 0 && (dtype != DType::fp8 || (o.op.gemm.empty() && o.moe.empty()))) {
    throw InputError("--scale-block " + std::to_string(o.scale_block) + ": block scales go with --gemm or --moe and --dtype fp8");
  }
  if (!o.moe.empty()) {
    run_moe(o, hw, dtype);
    return;
  }
  if (o.attention.empty() && (o.window != 0 || !o.kv_dtype.empty())) throw InputError("--window and --kv-dtype go with --attention");
  if (!o.attention.empty()) {
    run_attention(o, hw, dtype);
    return;
  }
  OpSpec spec = op_from_flags(o.op, dtype);
  if (spec.is_gemm) spec.gemm.scale_block_k = o.scale_block;
  // An fp8 GEMM with per-tensor scales runs the stack's fp8 linear kernel (vLLM's scaled_mm).
  if (spec.is_gemm && stack && stack->fp8_linear && dtype == DType::fp8 && o.scale_block == 0) {
    apply_fp8_linear_kernel(spec.gemm, *stack->fp8_linear);
  }
  if (!o.weights_dtype.empty()) {
    const DType weights = dtype_from_flag("--weights-dtype", o.weights_dtype);
    if (!weight_only_formats(dtype, weights)) {
      throw InputError("--weights-dtype " + o.weights_dtype + ": a weight-only GEMM takes int4, int8, mxfp4 or nvfp4 weights with --dtype bf16 or fp16 (given --dtype " + o.dtype + ")");
    }
    spec.gemm.b = weights;
    spec = gemm_op(spec.gemm, o.op.gemm);  // its cost counts the narrower weights
    spec.name += " x " + std::string(dtype_name(weights)) + " weights";
  }
  if (o.l2_resident) make_reads_resident(spec, hw, "--l2-resident");
  OpsRunResult out;
  try {
    out = run_ops(hw, o.ideal, {spec}, o.fine ? Granularity::fine : Granularity::coarse, o.max_events);
  } catch (const InputError& err) {
    // A refusal that names no setting is about the op itself: name the flag that gave it.
    if (err.raw().find("${") != std::string::npos) throw;
    const std::string given = !o.op.gemm.empty() ? "--gemm " + o.op.gemm
                              : !o.op.reduce.empty() ? "--reduce " + o.op.reduce
                                                     : "--elementwise " + std::to_string(o.op.elementwise);
    throw InputError(given + ": " + err.raw());
  }
  const SimulatedOp& r = out.ops[0];
  std::ostream& os = human_out(o.json);
  os << hw.description << " (" << hw.name << "): simulated op\n\n";
  print_ops(os, out.ops);
  os << "\nplan: " << r.result.plan << "\n"
     << "moved " << format_si(static_cast<double>(r.result.bytes_read), "B", 2) << " in, "
     << format_si(static_cast<double>(r.result.bytes_written), "B", 2) << " out ("
     << format_si(static_cast<double>(r.result.bytes_read + r.result.bytes_written) / r.result.seconds(), "B/s", 2)
     << "; the op needs at least " << format_si(r.cost.bytes(), "B", 2) << ")\n";
  print_speed(os, out.speed);
  nlohmann::json j = single_op_json(out);
  if (o.explain) j["explain"] = print_explanation(os, o, hw, {spec});
  if (!o.json.empty()) write_json(o.json, j);
}

}  // namespace

void add_op_command(CLI::App& app) {
  auto o = std::make_shared<OpOptions>();
  CLI::App* cmd = app.add_subcommand("op", "Simulate one op on one chip and compare it with its analytic roofline bound");
  add_hw_option(cmd, o->hw);
  cmd->add_option("--gemm", o->op.gemm, "A GEMM: M,N,K (or B,M,N,K for a batched GEMM)");
  cmd->add_option("--elementwise", o->op.elementwise, "An element-wise add of N elements")->check(positive_number());
  cmd->add_option("--max-events", o->max_events, "Refuse an op whose estimated simulation events exceed N (default " +
                                                      format_si(kDefaultMaxEvents, "", 0) + "; 0: no limit)")
      ->check(non_negative_number());
  cmd->add_option("--reduce", o->op.reduce, "A row-wise sum: ROWS,COLS");
  cmd->add_option("--attention", o->attention,
                  "One layer's attention call: prefill,BATCH,TOKENS,HEADS,KV_HEADS,HEAD_DIM (BATCH prompts of TOKENS, causal) or "
                  "decode,BATCH,TOKENS,HEADS,KV_HEADS,HEAD_DIM (one new token over a cache of TOKENS); heads per chip");
  cmd->add_option("--attention-kernel", o->attention_kernel,
                  "Attention kernel for --attention (default trtllm: TensorRT-LLM's call, its preprocessing kernels, FMHA, XQA "
                  "or MMHA as it chooses; also " + attention_kernels().list() + ")");
  cmd->add_option("--moe", o->moe,
                  "One MoE layer's experts on one GPU: TOKENS,HIDDEN,INTER,EXPERTS,TOPK[,TP,EP] (sizes unsharded; the GPU holds "
                  "EXPERTS/EP experts of INTER/TP); --dtype bf16 or fp8");
  cmd->add_option("--scale-block", o->scale_block,
                  "With --gemm or --moe and --dtype fp8: one scale per this many values of K (block scaling, 128 in "
                  "DeepSeek-V3's recipe): the kernel promotes its accumulators per block on the CUDA cores and does not split K")
      ->check(whole_number_between(1, 65536));
  cmd->add_option("--routing", o->routing, "Token routing of --moe, as the public MoE benchmark routes: balanced (default; token t's copies a stride of experts apart) or power_law:A (each expert's load drawn from a power law of exponent A, the busiest EP rank measured, the mean of 5 seeded draws)");
  cmd->add_option("--window", o->window, "Sliding window of --attention, in tokens (default 0: none)");
  add_dtype_option(cmd, "--kv-dtype", o->kv_dtype, "KV cache type of --attention (default: --dtype)");
  add_dtype_option(cmd, "--dtype", o->dtype, "Data type of the operands");
  add_dtype_option(cmd, "--weights-dtype", o->weights_dtype,
                   "With --gemm: the weights' (N x K operand's) type, narrower than a 16-bit --dtype: a weight-only GEMM, the "
                   "weights converted to --dtype in the kernel (on Hopper TensorRT-LLM's kernels: a GEMV below 5 rows, CUTLASS's "
                   "mixed-input kernel from 5; give --stack trtllm-1.x for its conversion cost)");
  cmd->add_option("--stack", o->stack,
                  "A software stack whose kernel parameters the chip takes (configs/stacks: NAME or a .toml), as `run --stack` "
                  "and `validate --kernels` apply them, and, for an fp8 --gemm with per-tensor scales, its fp8 linear kernel "
                  "(vllm: CUTLASS's scaled_mm, its tile by M and N, K never split) (default: none, the hardware file alone)");
  cmd->add_flag("--ideal", o->ideal, "Efficiency 1, zero latencies and overheads, datasheet clock");
  cmd->add_flag("--fine", o->fine, "One event per tile and smaller memory requests (slower; for granularity checks)");
  cmd->add_flag("--l2-resident", o->l2_resident,
                "The op's operands are already in the L2 (chip.tile_buffer), as when a benchmark replays one call on the same "
                "buffers: its reads are served there at onchip bandwidth and latency, its bound is the L2 roof (refused when "
                "the op touches more than the L2 keeps: capacity x resident_share)");
  cmd->add_flag("--explain", o->explain,
                "Also say what each op's gap to its bound is made of: the ops simulated again with one non-ideal cost taken "
                "away after another (launch, clock, dtype efficiency, HBM efficiency, latency, links), as `roofsim explain` "
                "does for a run; in the JSON under \"explain\"");
  add_json_option(cmd, o->json);
  cmd->callback([o] { run_op(*o); });

  // `sweep FILE`: a design-space sweep file. Without FILE it ran the GEMM intensity sweep, now
  // `roofline --sweep`: kept as an alias for a release, with a note.
  auto s = std::make_shared<IntensitySweepOptions>();
  auto file = std::make_shared<std::string>();
  CLI::App* sw = app.add_subcommand(
      "sweep", "Run a design-space sweep file: a grid or sample of hardware keys, models, dtypes, batch, lengths and "
               "parallelism, results kept in an SQLite store (docs/sweeps.md). (Without FILE: the GEMM intensity sweep, "
               "now `roofsim roofline --sweep`; this form is kept for a release.)");
  sw->add_option("file", *file, "A sweep file (TOML)");
  const std::function<void()> run_file = add_sweep_file_options(sw, *file);
  const char* alias_group = "Without FILE (old name of roofsim roofline --sweep)";
  add_hw_option(sw, s->hw);
  add_dtype_option(sw, "--dtype", s->dtype, "Data type of the operands");
  sw->add_flag("--ideal", s->ideal, "Efficiency 1, zero latencies and overheads, datasheet clock");
  sw->add_option("--points", s->points, "Number of GEMM shapes in the sweep (6 to 1000)")->capture_default_str()->check(whole_number_between(6, 1000));
  add_json_option(sw, s->json);
  sw->add_option("--plot", s->plot, "Write a log-log roofline chart (FILE.png or FILE.svg, drawn by gnuplot)");
  for (const char* gemm_only : {"--hw", "--dtype", "--ideal", "--points", "--json", "--plot"}) sw->get_option(gemm_only)->group(alias_group);
  sw->callback([s, sw, file, run_file] {
    if (file->empty()) {
      for (const CLI::Option* opt : sw->get_options()) {
        if (opt->count() > 0 && (opt->get_group().rfind("Sweep files", 0) == 0 || opt->get_group().rfind("Slurm", 0) == 0)) {
          throw InputError(opt->get_name() + " is for sweep files: give the FILE (roofsim sweep FILE " + opt->get_name() + " ...)");
        }
      }
      std::cerr << "roofsim: note: `roofsim sweep` without a FILE is now `roofsim roofline --sweep` (the old form goes in a "
                   "later release)\n";
      run_intensity_sweep(*s);
      return;
    }
    for (const char* gemm_only : {"--hw", "--dtype", "--ideal", "--points", "--json", "--plot"}) {
      if (sw->get_option(gemm_only)->count() > 0) {
        throw InputError(std::string(gemm_only) + " is for the GEMM sweep (roofsim roofline --sweep); a sweep file gives its "
                         "settings in [base], [grid] or [sample] (docs/sweeps.md)");
      }
    }
    run_file();
  });
}

}  // namespace roofsim
