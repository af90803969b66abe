#pragma once
// Single ops on one chip (`roofsim op`, the Python module's op()), and the GEMM intensity sweep
// that shows the emergent roofline (`roofsim sweep`): simulated beside their analytic bounds.
#include <optional>
#include <string>
#include <vector>

#include "components/simulation.hpp"
#include "workloads/moe_kernels.hpp"
#include "workloads/attention_kernel.hpp"
#include "validation/analytic.hpp"
#include "validation/knee.hpp"

namespace roofsim {

struct SimulatedOp {
  OpSpec spec;
  OpCost cost;
  OpBound bound;
  OpResult result;
  double achieved_flops() const { return result.flops / result.seconds(); }
  double percent_of_roof() const { return 100.0 * bound.bound_time_s / result.seconds(); }
};

// The kernel's own counters for one simulation.
struct SimulationSpeed {
  std::uint64_t events = 0, server_jobs = 0;
  double wall_s = 0;  // kernel time, elaboration excluded
};

// Ops simulated one after another on one chip, each beside its bound.
struct OpsRunResult {
  HardwareSpec hw;
  bool ideal = false;
  std::vector<SimulatedOp> ops;
  SimulationSpeed speed;
};

// The hardware of a run: `hw` as loaded, made ideal when asked.
HardwareSpec hardware_for_run(const HardwareSpec& hw, bool ideal);

// Simulates `ops` in order on `hw` (already ideal if wanted). Throws InputError for shapes the
// chip cannot run (a dtype its matrix units lack, non-positive sizes).
// `launched_at_s`: when the host launches each op (ChipJob::launched_at_s; empty: all at once).
OpsRunResult run_ops(const HardwareSpec& hw, bool ideal, const std::vector<OpSpec>& ops,
                     Granularity granularity = Granularity::coarse, double max_events = kDefaultMaxEvents,
                     const std::vector<double>& launched_at_s = {});

// A GEMM M x N x K (batch > 1: a batched GEMM) in one dtype, named as `roofsim op` names it.
OpSpec gemm_op(const GemmShape& g, const std::string& label);
// A vector-unit op of that shape, named `name` as given.
OpSpec vector_op(const VectorShape& v, const std::string& name);
// A linear layer with fp8 weights whose bf16 activations are quantized to fp8 on the fly, as
// the ops a software stack launches: per-tensor scaling first finds the tensor's absolute
// maximum (a reduction over m x k) and then quantizes (read bf16, write fp8); block scaling
// (1 x 128 blocks) quantizes in one pass, each block's scale from its own maximum. Then the
// fp8 GEMM (bf16 output).
enum class Fp8Scaling { per_tensor, block };
// A linear's GEMM on operands already quantized to `t` (activations and weights), into bf16;
// scale_block_k > 0: block-scaled (one scale per that many values of K).
OpSpec quantized_gemm_op(std::int64_t m, std::int64_t n, std::int64_t k, DType t, std::int64_t scale_block_k);
std::vector<OpSpec> fp8_dynamic_linear_ops(std::int64_t m, std::int64_t n, std::int64_t k, Fp8Scaling scaling);
// A linear with fp8 weights and a static (calibrated) activation scale, as vLLM's Fp8LinearOp
// runs it with `activation_scheme = "static"`: one kernel quantizes the bf16 activations with
// the known scale, then the per-tensor scaled fp8 GEMM (CUTLASS scaled_mm, which does not split
// K), bf16 out.
std::vector<OpSpec> fp8_static_linear_ops(std::int64_t m, std::int64_t n, std::int64_t k);
// TensorRT-LLM's NVFP4 linear (Blackwell): the activations quantized to nvfp4 with the layer's
// static global scale and per-16 block scales (fp4_quantize: one pass, no amax), then the
// nvfp4 GEMM into bf16.
std::vector<OpSpec> nvfp4_linear_ops(std::int64_t m, std::int64_t n, std::int64_t k);

// One call of an attention kernel on one layer's heads (`roofsim op --attention`, the kernel
// tables): the ops the kernel builds (workloads/attention_kernels/). "trtllm" is TensorRT-LLM's
// attention op, with the kernels its call launches before the attention kernel
// (attentionOp.cpp): in prefill the decoder-info kernel and the QKV preprocessing (RoPE, the
// new K and V into the cache); in decode the preprocessing before XQA on a 16-bit cache.
std::vector<OpSpec> attention_call_ops(const AttentionShape& s, const std::string& kernel);

// One MoE layer's expert computation on one GPU, as TensorRT-LLM's CUTLASS MoE runs it
// (routing and the tokens' permutation, the grouped gate/up GEMM over the touched local
// experts, the activation, the grouped down GEMM, and the un-permutation with the weighted
// sum), no communication. `tokens` enter the layer on this GPU; the GPU holds experts / ep
// experts, each inter / tp wide.
struct MoeCall {
  std::int64_t tokens = 0, hidden = 0, inter = 0, experts = 0, topk = 0, tp = 1, ep = 1;
  bool gated = true;         // gate and up projections (SwiGLU); false: one up projection
  double power_law = 0;      // 0: balanced routing; > 0: power-law routing of this exponent (workloads/moe_routing)
  DType dtype = DType::bf16;  // weights and the GEMMs' inputs (fp8: activations quantized on permutation)
  std::int64_t scale_block_k = 0;  // block-scaled fp8: one scale per this many values of K (GemmShape)
  std::optional<DType> weight_only;  // weight-only experts: weights in this format, GEMMs in dtype
};
// Throws InputError (no location: the caller adds its flag or file:line) for a layer no model
// has: top-k above the experts, an EP rank without an expert, more than 65536 experts, or
// tokens x top-k x hidden or experts x inter x hidden beyond 2^48 elements.
void check_moe_call(const MoeCall& m);
// The layer's ops for one draw of its routing (draw 0 to moe_routing_draws(m) - 1): balanced
// routing has one; power-law routing is measured over kPowerLawDraws draws and its time is
// their mean.
int moe_routing_draws(const MoeCall& m);
// The token copies each of this GPU's experts receives in that draw, routed as the benchmark
// routes them (workloads/moe_routing.hpp): balanced, EP rank 0; power law, the busiest rank.
std::vector<std::int64_t> moe_local_loads(const MoeCall& m, int draw);
// The call's ops: TensorRT-LLM's CUTLASS MoE (workloads/moe_kernels.hpp), as the kernel tables
// measure it.
std::vector<OpSpec> moe_layer_ops(const MoeCall& m, int draw = 0);
MoeLayerShape moe_layer_shape(const MoeCall& m);

// c = a + b over n elements; row sums of rows x cols.
OpSpec elementwise_add_op(std::int64_t n, DType dtype);
OpSpec row_sum_op(std::int64_t rows, std::int64_t cols, DType dtype);
// The op's operands already in the tile buffer, as a benchmark replaying one call on the same
// buffers finds them (GemmShape::reads_resident). Throws InputError, naming `what` (a flag or
// argument), when the op touches more than that buffer keeps (capacity x resident_share).
void make_reads_resident(OpSpec& op, const HardwareSpec& hw, const std::string& what);

// GEMMs from about 1 to several thousand FLOP/B and the knee of what they achieved.
struct RooflineSweepResult {
  OpsRunResult run;
  DType dtype = DType::bf16;
  Knee knee;            // the simulated roofline
  Roofline analytic;    // the analytic one, same peaks
};
RooflineSweepResult run_roofline_sweep(const HardwareSpec& hw, bool ideal, DType dtype, int points);

}  // namespace roofsim
