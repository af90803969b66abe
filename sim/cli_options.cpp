#include "sim/cli_options.hpp"

#include "components/collectives.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/parse.hpp"
#include "core/presets.hpp"
#include "experiment/stack.hpp"

namespace roofsim {

CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto v = parse_number(text);
        return v && *v > 0 ? std::string() : "'" + text + "' is not a positive number";
      },
      "> 0", "POSITIVE");
}

CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto v = parse_number(text);
        return v && *v >= 0 ? std::string() : "'" + text + "' is not a number >= 0";
      },
      ">= 0", "NON_NEGATIVE");
}

CLI::Validator whole_number_between(std::int64_t lo, std::int64_t hi) {
  const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        const auto v = parse_integer(text);
        return v && *v >= lo && *v <= hi ? std::string() : "'" + text + "' is not a whole number from " + range;
      },
      range, "WHOLE_NUMBER");
}

CLI::Validator non_empty_list() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.find_first_not_of(" ,") == std::string::npos ? "empty: give a list such as 1,2,4,8, or leave the flag out for its default"
                                                                  : std::string();
      },
      "LIST", "NON_EMPTY_LIST");
}

void add_json_option(CLI::App* cmd, std::string& target) {
  cmd->add_option("--json", target, "Also write the results as JSON to FILE ('-' = standard output, the table then goes to standard error)");
}

void add_hw_option(CLI::App* cmd, std::string& target) {
  cmd->add_option("--hw", target, "Hardware: a preset name (see 'roofsim hw list') or a path to a hardware .toml")
      ->capture_default_str();
}

void add_dtype_option(CLI::App* cmd, const std::string& flag, std::string& target,
                      const std::string& help) {
  cmd->add_option(flag, target, help + " (" + dtype_list() + ")")->capture_default_str();
}

DType dtype_from_flag(const std::string& flag, const std::string& value) {
  DType t;
  if (!parse_dtype(value, t)) {
    throw InputError(flag + " '" + value + "': unknown dtype (expected one of " + dtype_list() + ")");
  }
  return t;
}

namespace {
std::string join_presets(const std::string& kind) {
  std::string out;
  for (const std::string& name : list_presets(kind)) out += (out.empty() ? "" : ", ") + name;
  return out;
}
}  // namespace

void add_experiment_flags(CLI::App* cmd, ExperimentFlags& f, bool machine_only) {
  cmd->add_option("--model", f.model, "Model preset (configs/models), model .toml, or Hugging Face config.json (default llama-3-8b)");
  if (!machine_only) {
    cmd->add_option("--batch", f.batch, "Sequences per batch (default 1)")->check(positive_number());
    cmd->add_option("--prompt", f.prompt, "Prompt length in tokens (default 512)")->check(positive_number());
    cmd->add_option("--gen", f.gen, "Tokens generated per sequence, the first by prefill (default 128)")->check(positive_number());
  }
  cmd->add_option("--fp8-scaling", f.fp8_scaling, "fp8 weights' scales: tensor (default: per-tensor, the activations in "
                                                  "--activations-dtype) or block (DeepSeek-V3's 128x128 weight blocks; each linear "
                                                  "quantizes its bf16 input in 1x128 groups and runs a block-scaled GEMM, as "
                                                  "TensorRT-LLM's fp8_block does; needs --weights-dtype fp8 and 16-bit activations)")
      ->check(CLI::IsMember({"tensor", "block"}));
  cmd->add_option("--weights-dtype", f.weights, "Weights: bf16, fp16, fp8, int8, int4, nvfp4, mxfp4 (default: the model checkpoint's own formats, its config.json's quantization_config - fp8 for an FP8 checkpoint, mxfp4 experts for gpt-oss - else bf16; giving this, --activations-dtype or --fp8-scaling sets all three instead; a format the matrix units lack is dequantized to the activations' type)");
  cmd->add_option("--activations-dtype", f.activations, "Activations, the matmuls' compute type: bf16, fp16, fp8, nvfp4, mxfp4 where the hardware has a rate (default: as the checkpoint's format computes, else bf16)");
  cmd->add_option("--kv-dtype", f.kv, "KV cache: bf16, fp16, fp8, int8 (default bf16)");
  cmd->add_option("--near-memory", f.near_memory, "On hardware with [pim]: which GEMMs the near-memory units run: "
                                                  "auto (unbatched, at most pim.max_rows rows: decode GEMVs; default), all, off")
      ->check(CLI::IsMember({"off", "auto", "all"}));
  std::string kernels;
  for (const std::string& name : attention_kernels().names()) {
    kernels += "\n  " + name + ": " + attention_kernels().get(name, "attention").summary();
  }
  cmd->add_option("--attention", f.attention, "The attention kernel (default fused):" + kernels)
      ->check(CLI::IsMember(attention_kernels().names()));
  cmd->add_option("--stack", f.stack, "A software stack (configs/stacks: " + join_presets("stacks") +
                                      ", or a .toml): its attention kernel, launch mode, all-reduce kernel and kernel parameters on the "
                                      "hardware; --attention, --launch and --allreduce still override it. serve and search also "
                                      "take its [serving] table (scheduler, token budget, KV admission, host costs) where no flag "
                                      "sets the same. NAME@VERSION runs a release (vllm@0.12.0: the file's [releases] up to it, "
                                      "e.g. vLLM's async scheduling from 0.14); without one, the newest documented");
  cmd->add_flag("--ideal", f.ideal, "Efficiency 1, zero latencies and overheads, datasheet clock");
  cmd->add_option("--launch", f.launch, "graph: each step is launched at once (CUDA graphs; default); per_op: the host "
                                        "launches op by op, costing the hardware's host launch interval when ops are short; "
                                        "prefill_per_op: op by op in steps that hold a prefill, as a graph in decode-only "
                                        "steps (PyTorch flows: TensorRT-LLM 1.x, vLLM)")
      ->check(CLI::IsMember(launch_names()));
  cmd->add_option("--allreduce", f.allreduce, "The all-reduce kernel of tensor parallelism: nccl (NCCL as its tuner "
                                              "chooses; default), trtllm_custom or vllm_custom (the framework's one-/two-shot "
                                              "kernels through NVLink, NCCL where they cannot run)")
      ->check(CLI::IsMember(allreduce_kernel_names()));
  if (!machine_only) {
    cmd->add_option("--decode-stride", f.decode_stride, "Simulate every N-th decode step and interpolate the others "
                                                         "(default: at most 128 simulated steps)")->check(positive_number());
  }
  cmd->add_option("--tp", f.tp, "Tensor parallelism: split the model over N chips, all-reduce after the attention "
                                "output projection and the MLP (default 1; on a ring or torus a group spanning whole "
                                "leading dimensions, e.g. 4, 16 or 64 on 4x4x4, all-reduces on its own links, any "
                                "other as a ring routed between its chips)")->check(positive_number());
  cmd->add_option("--pp", f.pp, "Pipeline parallelism: the layers over N stages of --ep x --tp chips each, activations "
                                "sent from stage to stage (default 1)")->check(positive_number());
  cmd->add_option("--ep", f.ep, "Expert parallelism for MoE models: experts spread over N ranks of --tp chips, "
                                "attention data parallel across them (serve: each request pinned to the rank holding the "
                                "fewest), tokens sent to their experts and back by all-to-all (on a ring or torus, "
                                "each share routed dimension by dimension)")
      ->check(positive_number());
  cmd->add_option("--moe-tp", f.moe_tp, "MoE models: each expert TP-split over N of the --tp chips, the experts spread "
                                        "over the other tp / N (expert parallelism inside the TP group, attention still "
                                        "tensor parallel; TensorRT-LLM's moe_tp_size, its moe_ep_size = tp / N); default: "
                                        "every expert over all --tp chips")
      ->check(positive_number());
  cmd->add_option("--routing", f.routing, "How MoE layers route their tokens: uniform (default: each layer's copies "
                                          "spread evenly over the experts they touch), balanced or power_law:A (as the "
                                          "public MoE kernel benchmark routes: each expert's load drawn from a power law "
                                          "of exponent A, the busiest EP rank's experts run; layer l takes draw l mod 5)")
      ->check([](const std::string& v) {
        return parse_moe_routing(v) ? std::string() : std::string("expected ") + kMoeRoutingForms + ", got " + v;
      });
  cmd->add_option("--moe-kernel", f.moe_kernel, "Kernels of the MoE layers' experts: grouped (default: one grouped GEMM per "
                                                "projection, the activation between, a combine; no routing kernels) or "
                                                "trtllm_cutlass (TensorRT-LLM's CUTLASS MoE as the kernel tables measure it: "
                                                "top-k, expert maps, permute, grouped GEMMs, activation, finalize; what "
                                                "--stack trtllm-1.x sets; with --ep the tokens are all-gathered over the EP group and the partial "
                                                "sums reduce-scattered, as its CUTLASS backend does)")
      ->check(CLI::IsMember(moe_kernel_names()));
  if (!machine_only) {
  cmd->add_option("--nodes", f.nodes, "Nodes of the hardware's network.chips_per_node chips that all replicas fill together "
                                      "(needs [network]; default: one switch). A replica larger than a node spans whole nodes "
                                      "(nodes:MxL, joined by the network), a smaller one runs on its node's switch")
      ->check(whole_number_between(1, kMaxChips));
  cmd->add_option("--replicas", f.replicas, "Data-parallel replicas of the --tp x --ep x --pp deployment, each serving its own "
                                            "batch; they exchange nothing, so one is simulated and throughput reported per "
                                            "replica and in total (default 1)")
      ->check(whole_number_between(1, kMaxChips));
  cmd->add_option("--microbatches", f.microbatches, "Micro-batches the batch is cut into for the pipeline (default: "
                                                    "--pp, or the most the batch divides into)")
      ->check(positive_number());
  }
  cmd->add_option("--topology", f.topology, "How the --tp x --ep x --pp chips are wired (stage-major, then EP rank, "
                                            "then TP rank): switch:N, a ring N, a torus AxBxC, or nodes:NxL (N nodes of L chips "
                                            "joined by the hardware's [network]) (default: switch:N for NVLink, "
                                            "nodes:MxL with --nodes, a near-cubic torus for ICI)");
  cmd->add_flag("--allow-long-context", f.allow_long_context,
                "Simulate a prompt + output longer than the model's maximum context (refused otherwise)");
  if (!machine_only) {
  cmd->add_option("--max-events", f.max_events, "Refuse a run whose estimated simulation events exceed N (default " +
                                                     format_si(kDefaultMaxEvents, "", 0) + "; 0: no limit)")
      ->check(non_negative_number());
  }
}

namespace {
// Whether `flag` was given; false too when `cmd` does not have it (serve registers only the
// machine's flags).
bool given(const CLI::App& cmd, const std::string& flag) {
  const CLI::Option* o = cmd.get_option_no_throw(flag);
  return o != nullptr && o->count() > 0;
}
}  // namespace

void apply_experiment_flags(const ExperimentFlags& f, const CLI::App& cmd, Experiment& e) {
  if (given(cmd, "--model")) e.model = f.model;
  if (given(cmd, "--batch")) e.batch = f.batch;
  if (given(cmd, "--prompt")) e.prompt = f.prompt;
  if (given(cmd, "--gen")) e.generate = f.gen;
  if (given(cmd, "--weights-dtype") || given(cmd, "--activations-dtype") || given(cmd, "--fp8-scaling")) e.precision_given = true;
  if (given(cmd, "--weights-dtype")) e.precision.weights = dtype_from_flag("--weights-dtype", f.weights);
  if (given(cmd, "--fp8-scaling")) e.precision.scale_block_k = f.fp8_scaling == "block" ? 128 : 0;
  if (given(cmd, "--activations-dtype")) e.precision.activations = dtype_from_flag("--activations-dtype", f.activations);
  if (given(cmd, "--kv-dtype")) e.precision.kv = dtype_from_flag("--kv-dtype", f.kv);
  if (given(cmd, "--attention")) e.attention = parse_attention(f.attention, "--attention");
  if (given(cmd, "--ideal")) e.ideal = f.ideal;
  if (given(cmd, "--launch")) e.launch = *parse_launch(f.launch);
  if (given(cmd, "--decode-stride")) e.decode_stride = f.decode_stride;
  if (given(cmd, "--tp")) e.tp = f.tp;
  if (given(cmd, "--topology")) e.topology = f.topology;
  if (given(cmd, "--pp")) e.pp = f.pp;
  if (given(cmd, "--microbatches")) e.microbatches = f.microbatches;
  if (given(cmd, "--ep")) e.ep = f.ep;
  if (given(cmd, "--moe-tp")) e.moe_tp = f.moe_tp;
  if (given(cmd, "--routing")) e.routing = *parse_moe_routing(f.routing);
  if (given(cmd, "--nodes")) e.nodes = f.nodes;
  if (given(cmd, "--replicas")) e.replicas = f.replicas;
  if (given(cmd, "--near-memory")) {
    e.near_memory = f.near_memory == "off" ? NearMemory::off : f.near_memory == "all" ? NearMemory::all : NearMemory::small_rows;
  }
  if (given(cmd, "--allow-long-context")) e.allow_long_context = f.allow_long_context;
  if (given(cmd, "--stack")) apply_stack(load_stack(f.stack), e, given(cmd, "--attention"), given(cmd, "--launch"));
  if (given(cmd, "--allreduce")) e.allreduce = f.allreduce;  // after the stack: the flag wins
  if (given(cmd, "--moe-kernel")) e.moe_kernel = *parse_moe_kernel(f.moe_kernel);
  e.max_events = given(cmd, "--max-events") ? f.max_events : kDefaultMaxEvents;
  // A flag overrides the file: messages about that setting name the flag again.
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->count() == 0 || o->get_lnames().empty()) continue;
    std::string name = o->get_lnames().front();
    for (char& c : name) {
      if (c == '-') c = '_';
    }
    e.set_in_file.erase(name);
  }
  // A hub id runs in its checkpoint's formats unless a dtype flag or the file says otherwise.
  e = resolve_checkpoint_precision(e);
}

}  // namespace roofsim
