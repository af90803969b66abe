#pragma once
// Software stacks as configuration (configs/stacks/NAME.toml, `--stack NAME`): what a serving
// framework's kernels make of a chip, kept apart from the chip. A stack says which attention
// kernel the framework runs and how it launches a step, and sets the kernel parameters it was
// calibrated for ([hardware]: keys of the hardware file, each with its source in [provenance]),
// on whatever hardware it runs.
#include <cstdint>
#include <map>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "experiment/hardware_edit.hpp"
#include "experiment/inference.hpp"

namespace roofsim {

// How a stack's server runs requests (its [serving] table): the scheduler's documented defaults
// and the host costs fitted to that stack's own measured runs. Unset values leave the serving
// engine's defaults. A stack's fitted constants never apply to another stack: each file holds
// its own, with the rows they were fitted to in [provenance] (docs/serving.md).
// The names a stack file's [serving] `priority` and `kv_admission` may take, read live from the
// serving registries (plug-ins' policies included), which register the lookup here: the serving
// library sits above this one. Without it (a tool that links only the experiment library), the
// shipped names.
void set_stack_serving_choices(const std::string& key, std::function<std::vector<std::string>()> names);

struct StackServing {
  std::optional<bool> chunked_prefill;          // split prompts into chunks of the token budget (vLLM V1, SGLang)
  std::optional<std::string> priority;          // "decode_first" (prefill chunks beside the decodes) or "prefill_first"
  std::optional<std::int64_t> max_num_tokens;   // the token budget when the deployment does not set one
  std::optional<std::string> kv_admission;      // "reserve" (whole request at admission) or "on_demand" (blocks as tokens arrive)
  std::optional<std::int64_t> max_prompts;      // most prompts an iteration starts (0: no limit)
  std::optional<bool> late_release;             // a finished request frees its slot one step late
  std::optional<bool> schedule_ahead;           // an iteration's batch formed when the one before starts (an overlapped loop)
  std::optional<bool> prefill_schedule_ahead;   // the same for disaggregated prefill instances
  std::optional<bool> limits_per_rank;          // each attention-DP rank schedules with the whole batch and token limits
  std::optional<std::int64_t> batch_offset;     // batch limit = the deployment's max batch + this
  std::optional<bool> fp8_kv_cache_with_fp8_weights;  // an fp8 deployment keeps its KV cache in fp8
  std::optional<double> iteration_overhead_us;  // host time per iteration
  std::optional<double> sequence_overhead_us;   // host time per sequence and iteration
  std::optional<double> frontend_request_us;    // API server: per request taken in
  std::optional<double> frontend_response_us;   // API server: per streamed response
};

struct SoftwareStack {
  std::string name, description, file;
  std::string given;  // as asked for: NAME, NAME@VERSION or a path
  // The version asked for (`NAME@VERSION`; "": the newest documented) and the releases of the
  // file's [releases] applied for it ("0.14: async scheduling on by default ...").
  std::string version;
  std::vector<std::string> releases;
  std::optional<AttentionImpl> attention;
  std::optional<Launch> launch;
  std::optional<std::string> allreduce;
  // Whether a per-tensor fp8 linear quantizes its input in a kernel of its own
  // (Precision::fp8_input_quantize); unset: roofsim's default (it does).
  std::optional<bool> fp8_input_quantize;
  // The kernel of per-tensor fp8 linears (Precision::fp8_linear); unset: a library's.
  std::optional<Fp8LinearKernel> fp8_linear;
  // Whether its weight-only linears of at most four tokens run a GEMV on the CUDA cores
  // (Precision::weight_only_gemv); unset: they run its weight-only GEMM.
  std::optional<bool> weight_only_gemv;
  std::optional<Fusion> fusion;  // the element-wise ops its engine fuses (Experiment::fusion)
  std::optional<MoeKernel> moe;  // the kernels of its MoE layers (workloads/moe_kernels.hpp)  // the framework's all-reduce kernel (Experiment::allreduce)
  std::vector<HardwareEdit> hardware;  // set on the hardware document, in file order
  StackServing serving;
  // [eager_calls]: host time of one eager call of a library path (named as the measured
  // tables' kernel_source names it), microseconds: Python and launches that a benchmark
  // replaying the call without a CUDA graph pays once per call.
  std::map<std::string, double> eager_call_us;
  // [profiled_layers]: host time of one plugin layer of a TensorRT engine timed by TensorRT's
  // per-layer profiler, microseconds, by plugin and path ("WeightOnlyQuantMatmul_gemv"): from the
  // layer's start to its kernel's launch, which the layer's measured time holds.
  std::map<std::string, double> profiled_layer_us;
};

// The [eager_calls] key of TensorRT-LLM's Triton MoE (kernel_source moe_torch_flow in
// validation/kernels/h100/moe.csv): Hopper's weight-only mxfp4 experts, a call its host runs
// outside the CUDA graph; a stack that has it runs weight-only experts' calls so in every pass.
inline constexpr const char* kWeightOnlyMoeEagerCall = "moe_torch_flow";

// A preset name (configs/stacks) or a path, with "@VERSION" for a release of it (vllm@0.12.0);
// refuses unknown keys and values with file:line:key.
SoftwareStack load_stack(const std::string& name_or_path);

// The chip `hw` (a preset name or path) with the stack's kernel parameters set on it, checked
// as a hardware file is; the stack's parameters for a data type the chip has no rate for are
// left out. Named "CHIP + STACK" when the stack sets any.
HardwareSpec stack_hardware(const SoftwareStack& stack, const std::string& hw);

// Puts the stack on `e`: its kernel parameters on e's hardware (e.hardware becomes the edited
// document's spec), its all-reduce kernel, and its attention kernel and launch mode unless the
// caller set them itself.
void apply_stack(const SoftwareStack& stack, Experiment& e, bool keep_attention, bool keep_launch);
// Only the stack's kernel parameters ([hardware] edits) on e's chip: what a chip chosen after the
// stack needs again.
void apply_stack_hardware(const SoftwareStack& stack, Experiment& e);

}  // namespace roofsim
