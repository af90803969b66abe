// Preparing an experiment's machine (experiment/machine_setup.hpp).
#include "experiment/machine_setup.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/format.hpp"
#include "core/presets.hpp"
#include "workloads/chip_layout.hpp"

namespace roofsim {

namespace {

// Where --nodes puts one replica: nodes:MxL when it spans M nodes of L chips, switch:C when
// it fits in a node (several replicas to a node when C divides L), "" for one chip or when no
// nodes were given. Refuses chips that do not fill the nodes.
std::string place_on_nodes(const HardwareSpec& hw, const Experiment& e) {
  if (e.nodes <= 0) return "";
  const std::int64_t chips = e.tp * e.pp * e.ep, total = chips * e.replicas;
  if (!hw.network.present) {
    throw InputError("${nodes} " + std::to_string(e.nodes) + ": " + hw.name +
                     " has no [network] section in its hardware file (the NICs that join nodes): it runs on one node only");
  }
  const std::int64_t L = hw.network.chips_per_node;
  const std::string need = "${replicas} " + std::to_string(e.replicas) + " x ${tp} " + std::to_string(e.tp) + " x ${pp} " +
                           std::to_string(e.pp) + " x ${ep} " + std::to_string(e.ep) + " = " + std::to_string(total) + " chips";
  if (total != e.nodes * L) {
    throw InputError("${nodes} " + std::to_string(e.nodes) + " of " + std::to_string(L) + " chips (network.chips_per_node of " + hw.name +
                     ") hold " + std::to_string(e.nodes * L) + " chips; " + need + " (the replicas must fill the nodes)");
  }
  if (chips > L && chips % L != 0) {
    throw InputError(need + ": a replica of " + std::to_string(chips) + " chips spans nodes and must fill whole nodes of " + std::to_string(L));
  }
  if (chips < L && L % chips != 0) {
    throw InputError(need + ": replicas of " + std::to_string(chips) + " chips do not pack evenly into nodes of " + std::to_string(L));
  }
  if (chips > L) return "nodes:" + std::to_string(chips / L) + "x" + std::to_string(L);
  return chips > 1 ? "switch:" + std::to_string(chips) : "";
}

}  // namespace

// Micro-batches when none are given: one per stage (GPipe), or as many as the batch divides
// into (batch 1 runs one micro-batch through the stages).
std::int64_t experiment_microbatches(const Experiment& e) {
  if (e.microbatches > 0) return e.microbatches;
  for (std::int64_t m = e.pp; m > 1; --m) {
    if (e.batch % (m * e.ep) == 0) return m;
  }
  return 1;
}

// The experiment's parallelism and MoE call on a pass (micro-batches are the caller's).
void put_machine(const Experiment& e, ForwardPass& pass) {
  pass.tp = e.tp;
  pass.pp = e.pp;
  pass.ep = e.ep;
  pass.routing = e.routing;
  pass.moe_kernel = e.moe_kernel;
  pass.fusion = e.fusion;
  pass.weight_only_moe_eager_host_s = e.weight_only_moe_eager_host_s;
  pass.moe_tp = e.moe_tp;
}

// The forward pass of simulated step `step` (0 = prefill), with the experiment's parallelism.
ForwardPass pass_for(const Experiment& e, int step) {
  ForwardPass pass = step == 0 ? prefill_pass(e.batch, e.prompt) : decode_pass(e.batch, e.prompt, step);
  put_machine(e, pass);
  pass.microbatches = experiment_microbatches(e);
  return pass;
}

PreparedMachine prepare_machine(const Experiment& e) {
  PreparedMachine r;
  // A hardware or model file that an experiment file names is refused at that file's line too.
  auto named_in_file = [&e](const std::string& setting, const std::string& value, const InputError& err) {
    if (!e.set_in_file.count(setting) || err.raw().find("${" + setting + "}") != std::string::npos) return InputError(err);
    return InputError("${" + setting + "} " + value + ": " + err.raw());
  };
  try {
    r.hw = e.hardware ? *e.hardware : load_hardware(e.hw);
  } catch (const InputError& err) {
    throw named_in_file("hw", e.hw, err);
  }
  // The launch mode is the run's, not the hardware's: GraphRun pays host.launch_interval only in
  // steps it launches op by op (Experiment::launch, ExperimentResult::launched_per_op).
  if (e.ideal) r.hw = make_ideal(r.hw);
  try {
    r.model = e.model_config ? *e.model_config : load_model(e.model);
  } catch (const InputError& err) {
    throw named_in_file("model", e.model, err);
  }
  if (!r.model.read_as.empty()) r.notes.push_back(r.model.read_as);
  if (!e.precision_source.empty()) r.notes.push_back(e.precision_source);
  const Precision& p = e.precision;
  if (!r.hw.matrix_supports(p.activations)) {
    throw InputError("${activations_dtype} " + std::string(dtype_name(p.activations)) + ": the matrix units of " + r.hw.name +
                     " do not compute in it; supported: " + [&] {
                       std::string s;
                       for (const auto& [t, rate] : r.hw.matrix.dtype_rate) s += (s.empty() ? "" : ", ") + std::string(dtype_name(t));
                       return s;
                     }());
  }
  if (p.activations != DType::bf16 && p.activations != DType::fp16 && p.activations != DType::fp8 &&
      p.activations != DType::nvfp4 && p.activations != DType::mxfp4) {
    throw InputError("${activations_dtype} " + std::string(dtype_name(p.activations)) +
                     ": activations must be bf16, fp16, fp8, nvfp4 or mxfp4");
  }
  if (p.scale_block_k > 0 && (p.weights != DType::fp8 || (p.activations != DType::bf16 && p.activations != DType::fp16))) {
    throw InputError("${fp8_scaling} block: needs fp8 weights and bf16 or fp16 activations (each linear quantizes its input "
                     "itself), not " + std::string(dtype_name(p.weights)) + " weights and " + std::string(dtype_name(p.activations)) +
                     " activations");
  }
  if (p.experts) {
    const Precision x = p.for_experts();
    if (!r.hw.matrix_supports(x.activations)) {
      throw InputError("the experts' activations " + std::string(dtype_name(x.activations)) + ": the matrix units of " + r.hw.name +
                       " do not compute in it");
    }
    if (x.scale_block_k > 0 && (x.weights != DType::fp8 || (x.activations != DType::bf16 && x.activations != DType::fp16))) {
      throw InputError("block-scaled experts need fp8 weights and bf16 or fp16 activations, not " + std::string(dtype_name(x.weights)) +
                       " weights and " + std::string(dtype_name(x.activations)) + " activations");
    }
  }
  if (p.kv != DType::bf16 && p.kv != DType::fp16 && p.kv != DType::fp8 && p.kv != DType::int8) {
    throw InputError("${kv_dtype} " + std::string(dtype_name(p.kv)) + ": the KV cache must be bf16, fp16, fp8 or int8");
  }
  if (p.weights == DType::tf32 || p.weights == DType::fp32) {
    throw InputError("${weights_dtype} " + std::string(dtype_name(p.weights)) + ": weights must be bf16, fp16, fp8, int8, int4, nvfp4 or mxfp4");
  }
  try {
    check_tensor_parallel(r.model, e.tp);
    check_pipeline(r.model, pass_for(e, 0));
    check_expert_parallel(r.model, pass_for(e, 0));
  } catch (const InputError& err) {
    // These name the model; one from a file is named with its path (the file may be what is wrong).
    if (e.model_config || !looks_like_config_path(e.model)) throw;
    throw InputError(err.raw() + " (${model} " + e.model + ")");
  }
  const std::int64_t chips = e.tp * e.pp * e.ep;
  if (r.model.mla && e.tp > 1) {
    r.notes.push_back("latent attention: every one of the " + std::to_string(e.tp) + " TP ranks holds the whole latent KV cache (" +
                      std::to_string(r.model.mla->cache_dims()) + " values per token and layer) of its sequences, as vLLM and "
                      "SGLang do without DP attention; the heads split");
  }
  if (r.model.sliding_window > 0) {
    std::int64_t sliding = 0;
    for (std::int64_t l = 0; l < r.model.layers; ++l) sliding += r.model.sliding_layer(l) ? 1 : 0;
    r.notes.push_back(std::to_string(sliding) + " of " + std::to_string(r.model.layers) + " layers attend through a sliding window of " +
                      std::to_string(r.model.sliding_window) + " tokens: they read and cache at most that many keys");
  }
  if (r.model.is_moe() && e.moe_kernel == MoeKernel::trtllm_cutlass && e.precision.for_experts().weight_only() &&
      e.weight_only_moe_eager_host_s > 0) {
    r.notes.push_back("weight-only experts run TensorRT-LLM's Triton MoE, a call the host runs outside the CUDA graph: " +
                      format_seconds(e.weight_only_moe_eager_host_s) + " of host time per MoE layer, which the chip waits for where its own work is shorter");
  }
  if (r.model.attention_sinks) {
    r.notes.push_back("attention sinks (one logit per head in the softmax) are not simulated: no cache, negligible work");
  }
  if (!r.model.mla && e.tp > r.model.kv_heads) {
    r.notes.push_back((r.model.kv_heads == 1 ? std::string("the one KV head") : "each of the " + std::to_string(r.model.kv_heads) + " KV heads") +
                      " is replicated on " + std::to_string(e.tp / r.model.kv_heads) + " chips (tp " + std::to_string(e.tp) + ")");
  }
  if (r.model.layers % e.pp != 0) {
    r.notes.push_back("the " + std::to_string(r.model.layers) + " layers split unevenly over " + std::to_string(e.pp) +
                      " stages: the largest holds " + std::to_string((r.model.layers + e.pp - 1) / e.pp));
  }
  r.layout = ChipLayout{static_cast<int>(e.tp), static_cast<int>(e.ep), static_cast<int>(e.pp)};
  std::unique_ptr<Topology>& topology = r.topology;
  if (chips == 1 && !e.topology.empty()) {
    const Topology t = parse_topology(e.topology);
    throw InputError("${topology} " + t.name() + " has " + std::to_string(t.chips()) +
                     " chips; ${tp} 1 x ${pp} 1 x ${ep} 1 runs on one");
  }
  const std::string placed = place_on_nodes(r.hw, e);
  if (!placed.empty() && !e.topology.empty() && parse_topology(e.topology).name() != placed) {
    throw InputError("${topology} " + parse_topology(e.topology).name() + ": ${nodes} " + std::to_string(e.nodes) + " puts each replica on " +
                     placed + " (leave ${topology} out)");
  }
  if (chips > 1) {
    const std::string fallback = !placed.empty() ? placed : default_topology(r.hw, chips, e.tp);
    topology = std::make_unique<Topology>(parse_topology(e.topology.empty() ? fallback : e.topology));
    if (topology->chips() != chips) {
      throw InputError("${topology} " + topology->name() + " has " + std::to_string(topology->chips()) + " chips; ${tp} " +
                       std::to_string(e.tp) + " x ${pp} " + std::to_string(e.pp) + " x ${ep} " + std::to_string(e.ep) +
                       " needs " + std::to_string(chips));
    }
  }
  return r;
}

}  // namespace roofsim
