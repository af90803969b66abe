// `roofsim run`: an inference experiment (model x hardware x batch x lengths x precisions).
// For now it reports the analytic bounds; the simulated run builds on the chip model.
#include <iostream>
#include <memory>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/hardware.hpp"
#include "sim/cli_options.hpp"
#include "sim/commands.hpp"
#include "sim/output.hpp"
#include "validation/analytic.hpp"
#include "validation/workload_bounds.hpp"

namespace roofsim {

namespace {

struct RunOptions {
  std::string hw = "h100_sxm5";
  std::string model = "llama-3-8b";
  std::int64_t batch = 1;
  std::int64_t prompt = 512;
  std::int64_t gen = 128;
  std::string weights_dtype = "bf16";
  std::string activations_dtype = "bf16";
  std::string kv_dtype = "bf16";
  std::string json;
};

nlohmann::json phase_json(const PhaseBound& p) {
  return {{"flops", p.flops},
          {"bytes", p.bytes},
          {"intensity", p.intensity()},
          {"compute_time_s", p.compute_time_s},
          {"memory_time_s", p.memory_time_s},
          {"bound_time_s", p.bound_time_s},
          {"roof", p.compute_time_s >= p.memory_time_s ? "compute" : "memory"}};
}

void run(const RunOptions& o) {
  HardwareSpec hw = load_hardware(o.hw);
  ModelConfig m = load_model(o.model);
  InferenceSetup s;
  s.batch = o.batch;
  s.prompt = o.prompt;
  s.generate = o.gen;
  s.weights = dtype_from_flag("--weights-dtype", o.weights_dtype);
  s.activations = dtype_from_flag("--activations-dtype", o.activations_dtype);
  s.kv = dtype_from_flag("--kv-dtype", o.kv_dtype);
  if (s.activations != DType::bf16 && s.activations != DType::fp16 && s.activations != DType::fp8) {
    throw InputError("--activations-dtype " + o.activations_dtype + ": expected bf16, fp16 or fp8");
  }
  if (peak_flops(hw, s.activations) <= 0) {
    throw InputError(hw.name + " has no matrix unit for " + o.activations_dtype + " activations");
  }

  InferenceBound b = bound_inference(m, hw, s);
  const double kv_total = b.kv_bytes_per_token * static_cast<double>(s.batch) *
                          static_cast<double>(s.prompt + s.generate);
  const double needed = b.weight_bytes + kv_total;
  if (needed > hw.hbm.capacity_bytes) {
    throw InputError(m.name + " does not fit in " + hw.description + ": needs " +
                     format_si(needed, "B", 2) + " (weights " + format_si(b.weight_bytes, "B", 2) +
                     " + KV cache " + format_si(kv_total, "B", 2) + "), HBM holds " +
                     format_si(hw.hbm.capacity_bytes, "B", 2));
  }

  std::ostream& os = human_out(o.json);
  os << "roofsim run: analytic bounds (speed of light) for this experiment\n\n"
     << "hardware  " << hw.description << " (" << hw.name << ")\n"
     << "model     " << m.name << ": " << format_fixed(m.total_params() / 1e9, 2) << " B parameters, "
     << "weights " << o.weights_dtype << " " << format_si(b.weight_bytes, "B", 2) << ", KV "
     << o.kv_dtype << " " << format_bytes(b.kv_bytes_per_token) << "/token\n"
     << "setup     batch " << s.batch << ", prompt " << s.prompt << ", generate " << s.generate
     << ", activations " << o.activations_dtype << "\n"
     << "memory    " << format_si(needed, "B", 2) << " needed of " << format_si(hw.hbm.capacity_bytes, "B", 2)
     << " HBM\n\n";
  TextTable t({"phase", "FLOPs", "bytes", "intensity", "compute", "memory", "bound", "roof"});
  auto row = [&](const std::string& name, const PhaseBound& p) {
    t.add_row({name, format_si(p.flops, "FLOP", 2), format_si(p.bytes, "B", 2),
               format_fixed(p.intensity(), 1) + " FLOP/B", format_seconds(p.compute_time_s),
               format_seconds(p.memory_time_s), format_seconds(p.bound_time_s),
               p.compute_time_s >= p.memory_time_s ? "compute" : "memory"});
  };
  row("prefill", b.prefill);
  row("decode step (first)", b.decode_first);
  row("decode step (mean)", b.decode_mean);
  t.print(os);
  os << "\ntime to first token  >= " << format_seconds(b.ttft_s) << "\n"
     << "time per output token >= " << format_seconds(b.tpot_s) << "\n"
     << "decode throughput    <= " << format_fixed(b.tokens_per_s, 1) << " tokens/s\n"
     << "total                >= " << format_seconds(b.total_s) << "\n";

  if (!o.json.empty()) {
    nlohmann::json j = {{"hardware", hw.name},
                        {"model", m.name},
                        {"batch", s.batch},
                        {"prompt", s.prompt},
                        {"generate", s.generate},
                        {"weights_dtype", o.weights_dtype},
                        {"activations_dtype", o.activations_dtype},
                        {"kv_dtype", o.kv_dtype},
                        {"weight_bytes", b.weight_bytes},
                        {"kv_bytes_per_token", b.kv_bytes_per_token},
                        {"memory_needed_bytes", needed},
                        {"bound_ttft_s", b.ttft_s},
                        {"bound_tpot_s", b.tpot_s},
                        {"bound_throughput_tok_s", b.tokens_per_s},
                        {"bound_total_s", b.total_s},
                        {"prefill", phase_json(b.prefill)},
                        {"decode_first", phase_json(b.decode_first)},
                        {"decode_mean", phase_json(b.decode_mean)}};
    write_json(o.json, j);
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run an inference experiment: model on hardware, prefill then decode (default: "
             "Llama-3-8B, bf16, H100, batch 1, 512-token prompt, 128 generated tokens)");
  add_hw_option(cmd, o->hw);
  cmd->add_option("--model", o->model, "Model: a preset name (configs/models) or a path to a model .toml")
      ->capture_default_str();
  cmd->add_option("--batch", o->batch, "Sequences per batch")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--prompt", o->prompt, "Prompt length in tokens")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--gen", o->gen, "Tokens generated per sequence")->check(CLI::PositiveNumber)->capture_default_str();
  add_dtype_option(cmd, "--weights-dtype", o->weights_dtype, "Weight storage type");
  add_dtype_option(cmd, "--activations-dtype", o->activations_dtype, "Activation type (the matmuls compute in it)");
  add_dtype_option(cmd, "--kv-dtype", o->kv_dtype, "KV-cache storage type");
  add_json_option(cmd, o->json);
  cmd->callback([o] { run(*o); });
}

}  // namespace roofsim
