#include "experiment/experiment_settings.hpp"

#include <map>

#include "components/collectives.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "core/presets.hpp"
#include "experiment/stack.hpp"

namespace roofsim {

namespace {

std::string joined_presets(const std::string& kind) {
  std::string out;
  for (const std::string& name : list_presets(kind)) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string attention_help() {
  std::string kernels;
  for (const std::string& name : attention_kernels().names()) {
    kernels += "\n  " + name + ": " + attention_kernels().get(name, "attention").summary();
  }
  return "The attention kernel:" + kernels;
}

std::vector<std::string> dtype_names() {
  std::vector<std::string> out;
  for (DType t : all_dtypes()) out.emplace_back(dtype_name(t));
  return out;
}

NearMemory near_memory_of(const std::string& v) {
  return v == "off" ? NearMemory::off : v == "all" ? NearMemory::all : NearMemory::small_rows;
}

DType dtype_of(const nlohmann::json& v) {
  DType t;
  parse_dtype(v.get<std::string>(), t);  // a choice of dtype_names(): checked
  return t;
}

SettingSpec spec(const char* name, SettingKind kind, std::string fallback, std::string help) {
  SettingSpec s;
  s.name = name;
  s.kind = kind;
  s.default_text = std::move(fallback);
  s.help = std::move(help);
  return s;
}

// A count from 1 to `hi`; its default is the Experiment's own unless that is 0, which means
// "chosen by the run" and is said in words (`automatic`).
RunSetting count(const char* name, std::int64_t Experiment::* field, double hi, const char* unit, RunScope scope,
                 std::string help, const char* automatic = nullptr) {
  const std::int64_t own = Experiment{}.*field;
  const std::string fallback = own != 0 || automatic == nullptr ? std::to_string(own) : std::string(automatic);
  RunSetting r{spec(name, SettingKind::whole, fallback, std::move(help)), scope, field, nullptr};
  r.spec.unit = unit;
  r.spec.lo = 1;
  r.spec.hi = hi;
  return r;
}

RunSetting choice(const char* name, std::function<std::vector<std::string>()> names, const char* fallback, std::string help,
                  std::function<void(Experiment&, const nlohmann::json&)> set) {
  RunSetting r{spec(name, SettingKind::choice, fallback, std::move(help)), RunScope::machine, nullptr, std::move(set)};
  r.spec.choices = std::move(names);
  return r;
}

RunSetting text(const char* name, const std::string& fallback, RunScope scope, std::string help,
                std::function<void(Experiment&, const nlohmann::json&)> set) {
  return {spec(name, SettingKind::text, fallback, std::move(help)), scope, nullptr, std::move(set)};
}

RunSetting flag(const char* name, RunScope scope, std::string help, std::function<void(Experiment&, const nlohmann::json&)> set) {
  return {spec(name, SettingKind::flag, "false", std::move(help)), scope, nullptr, std::move(set)};
}

std::vector<RunSetting> make_run_settings() {
  using json = nlohmann::json;
  const double chips = static_cast<double>(kMaxChips);
  std::vector<RunSetting> t;
  t.push_back(text("hw", Experiment{}.hw, RunScope::machine, "Hardware: a preset name (see 'roofsim hw list') or a path to a hardware .toml",
                   [](Experiment& e, const json& v) {
                     e.hw = v.get<std::string>();
                     e.hardware.reset();
                     // A stack already applied keeps its kernel parameters on the new chip.
                     if (!e.stack.empty()) apply_stack_hardware(load_stack(e.stack), e);
                   }));
  t.push_back(text("model", Experiment{}.model, RunScope::machine,
                   "Model preset (configs/models), model .toml, Hugging Face config.json or a hub id (configs/models/hf)",
                   [](Experiment& e, const json& v) {
                     e.model = v.get<std::string>();
                     e.model_config.reset();
                     if (!e.precision_source.empty()) {  // the old model's checkpoint formats go with it
                       const DType kv = e.precision.kv;
                       e.precision = Precision{};
                       e.precision.kv = kv;
                       e.precision_given = false;
                       e.precision_source.clear();
                     }
                   }));
  t.push_back(text("stack", "none", RunScope::machine,
                   "A software stack (configs/stacks: " + joined_presets("stacks") +
                       ", or a .toml): its attention kernel, launch mode, all-reduce kernel and kernel parameters on the "
                       "hardware; ${attention}, ${launch} and ${allreduce} still override it. serve and search also take its "
                       "[serving] table (scheduler, token budget, KV admission, host costs) where no setting gives the same. "
                       "NAME@VERSION runs a release (vllm@0.12.0: the file's [releases] up to it, e.g. vLLM's async "
                       "scheduling from 0.14); without one, the newest documented",
                   [](Experiment& e, const json& v) { apply_stack(load_stack(v.get<std::string>()), e, false, false); }));
  t.push_back(count("batch", &Experiment::batch, kMaxBatch, "sequences", RunScope::batch, "Sequences per batch"));
  t.push_back(count("prompt", &Experiment::prompt, kMaxTokens, "tokens", RunScope::run, "Prompt length in tokens"));
  t.push_back(count("gen", &Experiment::generate, kMaxTokens, "tokens", RunScope::batch,
                    "Tokens generated per sequence, the first by prefill"));
  t.back().spec.aliases = {"generate"};
  t.push_back(choice("weights_dtype", dtype_names, "the checkpoint's",
                     "Weights (default: the model checkpoint's own formats, its config.json's quantization_config - fp8 for an "
                     "FP8 checkpoint, mxfp4 experts for gpt-oss - else bf16; giving this, ${activations_dtype} or ${fp8_scaling} sets "
                     "all three instead; a format the matrix units lack is dequantized to the activations' type)",
                     [](Experiment& e, const json& v) {
                       e.precision.weights = dtype_of(v);
                       e.precision_given = true;
                     }));
  t.push_back(choice("activations_dtype", dtype_names, "the checkpoint's",
                     "Activations, the matmuls' compute type, where the hardware has a rate (default: as the checkpoint's "
                     "format computes, else bf16)",
                     [](Experiment& e, const json& v) {
                       e.precision.activations = dtype_of(v);
                       e.precision_given = true;
                     }));
  t.push_back(choice("fp8_scaling", [] { return std::vector<std::string>{"tensor", "block"}; }, "tensor",
                     "fp8 weights' scales: tensor (per-tensor, the activations in ${activations_dtype}) or block (DeepSeek-V3's "
                     "128x128 weight blocks; each linear quantizes its bf16 input in 1x128 groups and runs a block-scaled GEMM, "
                     "as TensorRT-LLM's fp8_block does; needs ${weights_dtype} fp8 and 16-bit activations)",
                     [](Experiment& e, const json& v) {
                       e.precision.scale_block_k = v.get<std::string>() == "block" ? 128 : 0;
                       e.precision_given = true;
                     }));
  t.push_back(choice("kv_dtype", dtype_names, "bf16", "KV cache", [](Experiment& e, const json& v) { e.precision.kv = dtype_of(v); }));
  t.push_back(choice("attention", [] { return attention_kernels().names(); }, "fused", attention_help(),
                     [](Experiment& e, const json& v) { e.attention = parse_attention(v.get<std::string>(), "${attention}"); }));
  t.push_back(choice("launch", [] { return launch_names(); }, "graph",
                     "graph: each step is launched at once (CUDA graphs); per_op: the host launches op by op, costing the "
                     "hardware's host launch interval when ops are short; prefill_per_op: op by op in steps that hold a "
                     "prefill, as a graph in decode-only steps (PyTorch flows: TensorRT-LLM 1.x, vLLM)",
                     [](Experiment& e, const json& v) { e.launch = *parse_launch(v.get<std::string>()); }));
  t.push_back(choice("allreduce", [] { return allreduce_kernel_names(); }, "nccl",
                     "The all-reduce kernel of tensor parallelism: nccl (NCCL as its tuner chooses), trtllm_custom or "
                     "vllm_custom (the framework's one-/two-shot kernels through NVLink, NCCL where they cannot run)",
                     [](Experiment& e, const json& v) { e.allreduce = v.get<std::string>(); }));
  t.push_back(choice("moe_kernel", [] { return moe_kernel_names(); }, "grouped",
                     "Kernels of the MoE layers' experts: grouped (one grouped GEMM per projection, the activation between, a "
                     "combine; no routing kernels) or trtllm_cutlass (TensorRT-LLM's CUTLASS MoE as the kernel tables measure "
                     "it: top-k, expert maps, permute, grouped GEMMs, activation, finalize; what ${stack} trtllm-1.x sets; with "
                     "${ep} the tokens are all-gathered over the EP group and the partial sums reduce-scattered, as its CUTLASS "
                     "backend does)",
                     [](Experiment& e, const json& v) { e.moe_kernel = *parse_moe_kernel(v.get<std::string>()); }));
  t.push_back(text("fuse", "none", RunScope::machine,
                   "Element-wise ops fused into their neighbours (their intermediates never go through HBM): none, "
                   "elementwise (all of:) or a list of add_norm (each residual add and the norm after it one op), "
                   "activation (a dense MLP's activation in its up GEMM's epilogue), rope (RoPE, a QK norm and the QKV "
                   "bias in the QKV GEMM's epilogue); default: what ${stack} fuses, else none (docs/usage.md, \"Fusion\")",
                   [](Experiment& e, const json& v) { e.fusion = *parse_fusion(v.get<std::string>()); }));
  t.back().spec.form = kFusionForms;
  t.back().spec.accepts = [](const std::string& v) { return parse_fusion(v).has_value(); };
  t.push_back(text("routing", "uniform", RunScope::machine,
                   "How MoE layers route their tokens: uniform (each layer's copies spread evenly over the experts they "
                   "touch), balanced or power_law:A (as the public MoE kernel benchmark routes: each expert's load drawn from "
                   "a power law of exponent A, the busiest EP rank's experts run; layer l takes draw l mod 5)",
                   [](Experiment& e, const json& v) { e.routing = *parse_moe_routing(v.get<std::string>()); }));
  t.back().spec.form = kMoeRoutingForms;
  t.back().spec.accepts = [](const std::string& v) { return parse_moe_routing(v).has_value(); };
  t.push_back(count("moe_tp", &Experiment::moe_tp, chips, "chips", RunScope::machine,
                    "MoE models: each expert TP-split over N of the ${tp} chips, the experts spread over the other ${tp} / N "
                    "(expert parallelism inside the TP group, attention still tensor parallel; TensorRT-LLM's moe_tp_size, "
                    "its moe_ep_size = tp / N)",
                    "${tp}: every expert over all ${tp} chips"));
  t.push_back(count("tp", &Experiment::tp, chips, "chips", RunScope::machine,
                    "Tensor parallelism: split the model over N chips, all-reduce after the attention output projection and "
                    "the MLP (on a ring or torus a group spanning whole leading dimensions, e.g. 4, 16 or 64 on 4x4x4, "
                    "all-reduces on its own links, any other as a ring routed between its chips)"));
  t.push_back(count("pp", &Experiment::pp, chips, "stages", RunScope::machine,
                    "Pipeline parallelism: the layers over N stages of ${ep} x ${tp} chips each, activations sent from stage to "
                    "stage"));
  t.push_back(count("ep", &Experiment::ep, chips, "ranks", RunScope::machine,
                    "Expert parallelism for MoE models: experts spread over N ranks of ${tp} chips, attention data parallel "
                    "across them (serve: each request pinned to the rank holding the fewest), tokens sent to their experts "
                    "and back by all-to-all (on a ring or torus, each share routed dimension by dimension)"));
  t.push_back(count("microbatches", &Experiment::microbatches, kMaxBatch, "micro-batches", RunScope::batch,
                    "Micro-batches the batch is cut into for the pipeline", "${pp}, or the most the batch divides into"));
  t.push_back(count("decode_stride", &Experiment::decode_stride, kMaxTokens, "steps", RunScope::batch,
                    "Simulate every N-th decode step and interpolate the others", "at most 128 simulated steps"));
  t.push_back(count("nodes", &Experiment::nodes, chips, "nodes", RunScope::run,
                    "Nodes of the hardware's network.chips_per_node chips that all replicas fill together (needs [network]). "
                    "A replica larger than a node spans whole nodes (nodes:MxL, joined by the network), a smaller one runs "
                    "on its node's switch",
                    "one switch"));
  t.push_back(count("replicas", &Experiment::replicas, chips, "replicas", RunScope::run,
                    "Data-parallel replicas of the ${tp} x ${ep} x ${pp} deployment, each serving its own batch; they exchange "
                    "nothing, so one is simulated and throughput reported per replica and in total"));
  t.push_back(text("topology", "switch:N for NVLink, nodes:MxL with ${nodes}, a near-cubic torus for ICI", RunScope::machine,
                   "How the ${tp} x ${ep} x ${pp} chips are wired (stage-major, then EP rank, then TP rank): switch:N, a ring N, a "
                   "torus AxBxC, or nodes:NxL (N nodes of L chips joined by the hardware's [network])",
                   [](Experiment& e, const json& v) { e.topology = v.get<std::string>(); }));
  t.push_back(choice("near_memory", [] { return std::vector<std::string>{"off", "auto", "all"}; }, "auto",
                     "On hardware with [pim]: which GEMMs the near-memory units run: auto (unbatched, at most pim.max_rows "
                     "rows: decode GEMVs), all, off",
                     [](Experiment& e, const json& v) { e.near_memory = near_memory_of(v.get<std::string>()); }));
  t.push_back(flag("ideal", RunScope::machine, "Efficiency 1, zero latencies and overheads, datasheet clock",
                   [](Experiment& e, const json& v) { e.ideal = v.get<bool>(); }));
  t.push_back(flag("allow_long_context", RunScope::machine,
                   "Simulate a prompt + output longer than the model's maximum context (refused otherwise)",
                   [](Experiment& e, const json& v) { e.allow_long_context = v.get<bool>(); }));
  t.push_back(flag("all_layers", RunScope::run,
                   "Simulate every layer. By default a layer that starts from the same machine state as an earlier "
                   "identical one is replayed from it, exactly (the same results, faster; docs/speed.md)",
                   [](Experiment& e, const json& v) { e.all_layers = v.get<bool>(); }));
  t.push_back({spec("max_events", SettingKind::number, format_si(kDefaultMaxEvents, "", 0),
                    "Refuse a run whose estimated simulation events exceed N (0: no limit)"),
               RunScope::run, nullptr, [](Experiment& e, const json& v) { e.max_events = v.get<double>(); }});
  t.back().spec.unit = "events";
  t.back().spec.lo = 0;
  return t;
}

}  // namespace

const std::vector<RunSetting>& run_settings() {
  static const std::vector<RunSetting> table = make_run_settings();
  return table;
}

const RunSetting* find_run_setting(const std::string& key) { return find_setting(run_settings(), key); }

bool is_experiment_setting(const std::string& key) { return find_run_setting(key) != nullptr; }

bool is_batch_run_setting(const std::string& key) {
  const RunSetting* s = find_run_setting(key);
  return s != nullptr && s->scope == RunScope::batch;
}

std::vector<std::string> experiment_count_names() {
  std::vector<std::string> out;
  for (const RunSetting& s : run_settings()) {
    if (s.count != nullptr) out.push_back(s.spec.name);
  }
  return out;
}

nlohmann::json experiment_settings_json(const Experiment& e) {
  using json = nlohmann::json;
  const auto text_or_null = [](const std::string& t) { return t.empty() ? json(nullptr) : json(t); };
  const bool given_precision = e.precision_given && e.precision_source.empty();
  const std::map<std::string, json> others = {
      {"hw", e.hw},
      {"model", e.model},
      {"stack", text_or_null(e.stack)},
      // Not given, or read from the checkpoint: the checkpoint decides again.
      {"weights_dtype", given_precision ? json(dtype_name(e.precision.weights)) : json(nullptr)},
      {"activations_dtype", given_precision ? json(dtype_name(e.precision.activations)) : json(nullptr)},
      {"fp8_scaling", given_precision ? json(e.precision.scale_block_k > 0 ? "block" : "tensor") : json(nullptr)},
      {"kv_dtype", dtype_name(e.precision.kv)},
      {"attention", e.attention.name},
      {"launch", launch_name(e.launch)},
      {"allreduce", e.allreduce},
      {"moe_kernel", moe_kernel_name(e.moe_kernel)},
      {"fuse", fusion_name(e.fusion)},
      {"routing", moe_routing_name(e.routing)},
      {"topology", text_or_null(e.topology)},
      {"near_memory", e.near_memory == NearMemory::off ? "off" : e.near_memory == NearMemory::all ? "all" : "auto"},
      {"ideal", e.ideal},
      {"allow_long_context", e.allow_long_context},
      {"all_layers", e.all_layers},
      {"max_events", e.max_events},
  };
  json out = json::object();
  for (const RunSetting& s : run_settings()) {
    if (s.count != nullptr) {
      const std::int64_t v = e.*(s.count);
      out[s.spec.name] = v == 0 ? json(nullptr) : json(v);  // 0: chosen by the run
    } else {
      out[s.spec.name] = others.at(s.spec.name);  // throws if a new setting has no value here: a test runs it
    }
  }
  return out;
}

std::optional<double> experiment_number(const Experiment& e, const std::string& key) {
  const RunSetting* s = find_run_setting(key);
  if (s != nullptr && s->count != nullptr) return static_cast<double>(e.*(s->count));
  if (key == "max_events") return e.max_events;
  return std::nullopt;
}

void set_experiment_setting(Experiment& e, const std::string& key, const nlohmann::json& value) {
  const RunSetting* s = find_run_setting(key);
  if (s == nullptr) throw InputError("unknown setting '" + key + "'");
  // Marked, so that each front end names it its own way (--decode-stride, decode_stride=, a
  // file's key path).
  const nlohmann::json v = checked_setting_value(s->spec, value, "${" + key + "}");
  if (s->count != nullptr) {
    e.*(s->count) = v.get<std::int64_t>();
  } else {
    s->set(e, v);
  }
}

void set_experiment_settings(Experiment& e, const nlohmann::json& settings, const std::function<bool(const std::string&)>& skip) {
  for (const auto& [key, value] : settings.items()) {
    if (skip && skip(key)) continue;
    if (!is_experiment_setting(key)) throw InputError("unknown setting '" + key + "'");
  }
  for (const RunSetting& s : run_settings()) {
    for (const auto& [key, value] : settings.items()) {
      // null: the default in words (a result's `settings` records it so)
      if (s.spec.named(key) && !(skip && skip(key)) && !value.is_null()) set_experiment_setting(e, key, value);
    }
  }
}

}  // namespace roofsim
