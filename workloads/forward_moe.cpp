// The mixture-of-experts ops of a forward pass (ForwardBuilder, workloads/forward_builder.hpp).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "workloads/forward_builder.hpp"

namespace roofsim {

auto ForwardBuilder::route(int l, std::int64_t tokens, std::int64_t copies, std::int64_t ep) const -> RoutedExperts {
  RoutedExperts r;
  if (pass_.routing.kind == MoeRouting::Kind::uniform) {
    r.touched = std::min(m_.experts / ep, ceil_div(experts_touched(m_, tokens), ep));
    r.rows = ceil_div(copies, r.touched);
    r.copies = copies;
  } else {
    const MoeRoutingShape shape{tokens, m_.experts, m_.experts_per_token, ep};
    const std::vector<std::int64_t> loads = routed_loads(pass_.routing, shape, static_cast<std::uint64_t>(l % kPowerLawDraws));
    const GroupedRows g = grouped_rows(loads, kMoeTileRows);
    r.touched = g.touched;
    r.rows = g.rows;
    r.copies = g.copies;
  }
  r.total = r.touched * r.rows;
  return r;
}

auto ForwardBuilder::experts(int l, OpId in, std::int64_t in_elements, const RoutedExperts& r, const OpId* after) -> std::vector<Input> {
  const ExpertPrecisionScope expert_precision(*this);
  const std::int64_t h = m_.hidden, touched = r.touched, rows = r.rows;
  std::vector<Input> outs;
  const std::int64_t I = ceil_div(m_.expert_width(), moe_tp_), up_cols = (m_.gated_mlp ? 2 : 1) * I;
  const DType act = p_.activations;
  GemmShape up_shape{touched, rows, up_cols, h, act, p_.weights, act};
  up_shape.grouped = true;
  OpId up = gemm_op(std::string("experts.") + (m_.gated_mlp ? "gate_up" : "up"), "mlp_up", l, up_shape, {{in, in_elements}});
  if (after) g_.connect_control(*after, up);
  // The activation and the combine see the copies themselves: tile padding rows exist only
  // inside the grouped GEMMs.
  const std::int64_t bias = m_.mlp_bias ? touched * up_cols : 0;
  OpId a = vector_op("experts.activation", "activation", l, r.copies * up_cols + bias, r.copies * I, kActMulFlops,
                     {{up, r.copies * up_cols}});
  GemmShape down_shape{touched, rows, h, I, act, p_.weights, act};
  down_shape.grouped = true;
  OpId down = gemm_op("experts.down", "mlp_down", l, down_shape, {{a, r.copies * I}});
  outs.push_back({down, r.copies * h});
  return outs;
}

auto ForwardBuilder::shared_experts(int l, OpId in, std::vector<Input>& outs) -> void {
  if (m_.shared_experts == 0) return;
  outs.push_back({mlp(l, "shared.", in, rows_, m_.shared_experts * m_.shared_width()), rows_ * m_.hidden});
}

auto ForwardBuilder::combine_bias(std::int64_t touched) const -> std::int64_t {
  return m_.mlp_bias ? (touched + (m_.shared_experts > 0 ? 1 : 0)) * m_.hidden : 0;
}

auto ForwardBuilder::moe(int l, OpId in) -> OpId {
  // TensorRT-LLM's CUTLASS MoE takes 16-bit or fp8 (W8A8) experts; weight-only ones (Hopper's
  // mxfp4) run its Triton MoE, which the kernel tables measure as the same call
  // (moe_torch_flow: trtllm_cutlass_moe_ops with weight-only experts).
  const Precision pe = p_.for_experts();
  const bool cutlass = pass_.moe_kernel == MoeKernel::trtllm_cutlass &&
                       ((pe.weights == pe.activations && (pe.weights == DType::bf16 || pe.weights == DType::fp16 || pe.weights == DType::fp8)) ||
                        (pe.scale_block_k > 0 && pe.weights == DType::fp8) || pe.weight_only());
  if (pass_.ep > 1 && !cutlass) return moe_expert_parallel(l, in);
  const std::int64_t h = m_.hidden, T = rows_;
  OpId router = gemm_op("router", "router", l, {1, T, m_.experts, h, p_.activations, p_.weights, p_.activations},
                        {{in, T * h}});
  if (cutlass) return trtllm_moe(l, in, router);
  // With experts spread inside the TP group, each chip runs its own experts on all the tokens.
  const RoutedExperts routed = route(l, T, ceil_div(T * m_.experts_per_token, moe_ep_), moe_ep_);
  // The router's decision gates every expert.
  std::vector<Input> outs = experts(l, in, T * h, routed, &router);
  shared_experts(l, in, outs);
  const std::int64_t shared = m_.shared_experts > 0 ? T * h : 0;
  return vector_op("combine", "moe_combine", l, routed.total * h + shared + combine_bias(routed.touched), T * h, 2, outs);
}

auto ForwardBuilder::expert_loads(int l, std::int64_t tokens, std::int64_t ep) const -> std::vector<std::int64_t> {
  if (pass_.routing.kind != MoeRouting::Kind::uniform) {
    const MoeRoutingShape shape{tokens, m_.experts, m_.experts_per_token, ep};
    return routed_loads(pass_.routing, shape, static_cast<std::uint64_t>(l % kPowerLawDraws));
  }
  const std::int64_t copies = ceil_div(tokens * m_.experts_per_token, ep);
  const std::int64_t touched = std::max<std::int64_t>(1, std::min(m_.experts / ep, ceil_div(experts_touched(m_, tokens), ep)));
  std::vector<std::int64_t> loads(static_cast<std::size_t>(touched), copies / touched);
  for (std::int64_t e = 0; e < copies % touched; ++e) ++loads[static_cast<std::size_t>(e)];
  return loads;
}

auto ForwardBuilder::trtllm_moe(int l, OpId in, OpId router) -> OpId {
  // Experts spread over the EP ranks (attention data parallel) or inside the TP group.
  const std::int64_t h = m_.hidden, T = rows_, ep = pass_.ep, all = T * ep, local_ep = ep > 1 ? ep : moe_ep_;
  OpId tokens = in;
  if (ep > 1) {
    tokens = collective_op("layer" + std::to_string(l) + ".moe_allgather", "moe_allgather", l, in, T * h, false);
    g_.op_mut(tokens).collective_elements = all * h;
    g_.op_mut(tokens).ep_exchange = OpNode::EpExchange::allgather;
    g_.connect_control(router, tokens);  // the routing's choices travel with the tokens
  }
  const std::vector<std::int64_t> loads = expert_loads(l, all, local_ep);
  // Weight-only experts: their 16-bit activations' GEMMs on weights converted in them.
  const Precision pe = p_.for_experts();
  const bool weight_only = pe.weight_only();
  const MoeLayerShape shape{all,      h,         m_.expert_width(), m_.experts,
                            m_.experts_per_token, moe_tp_, local_ep, m_.gated_mlp,
                            weight_only ? pe.activations : pe.weights, pe.scale_block_k,
                            weight_only ? std::optional<DType>(pe.weights) : std::nullopt};
  // TensorRT-LLM's Triton MoE (weight-only experts) may be a module call its host runs outside
  // the CUDA graph (the stack's [eager_calls] moe_torch_flow): the whole call, routing included.
  const double eager_host_s = weight_only ? pass_.weight_only_moe_eager_host_s : 0.0;
  OpId previous = ep > 1 ? tokens : router, data = tokens;
  bool call_started = false;
  for (const MoeKernelOp& k : trtllm_cutlass_moe_ops(shape, loads)) {
    OpNode op;
    op.name = layer_op_name(l, k.key);
    op.op_class = k.op_class;
    op.layer = l;
    op.is_gemm = k.is_gemm;
    op.gemm = k.gemm;
    op.vector = k.vector;
    op.continues_host_call = !k.new_host_call;
    if (eager_host_s > 0) {
      op.eager_host_s = call_started ? 0.0 : eager_host_s;
      op.continues_host_call = call_started;
      call_started = true;
    }
    std::vector<Input> inputs;
    // With EP the top-k reads every rank's logits; this rank's router made its own share.
    if (k.feed == MoeFeed::router_logits) inputs.push_back({router, std::min(k.feed_elements, T * m_.experts)});
    if (k.feed == MoeFeed::hidden) inputs.push_back({tokens, k.feed_elements});
    if (k.feed == MoeFeed::previous) inputs.push_back({data, k.feed_elements});
    const OpId id = add(std::move(op), inputs);
    if (inputs.empty() || inputs.front().from != previous) g_.connect_control(previous, id);
    if (k.feed != MoeFeed::none && k.feed != MoeFeed::router_logits) data = id;
    previous = id;
  }
  if (ep > 1) {
    data = collective_op("layer" + std::to_string(l) + ".moe_reducescatter", "moe_reducescatter", l, data, all * h, false);
    g_.op_mut(data).ep_exchange = OpNode::EpExchange::reducescatter;
  }
  std::vector<Input> outs{{data, T * h}};
  shared_experts(l, in, outs);
  if (outs.size() == 1) return data;
  return vector_op("combine", "moe_combine", l, 2 * T * h, T * h, 1, outs);
}

auto ForwardBuilder::moe_expert_parallel(int l, OpId in) -> OpId {
  const std::int64_t h = m_.hidden, T = rows_, k = m_.experts_per_token, ep = pass_.ep;
  OpId router = gemm_op("router", "router", l, {1, T, m_.experts, h, p_.activations, p_.weights, p_.activations},
                        {{in, T * h}});
  const std::int64_t copies = T * k;
  // Uniform routing: every rank receives T x k copies; the benchmark's routings load the
  // measured rank's experts as they fall, and that rank receives (and sends back) what they hold.
  const RoutedExperts routed = route(l, T * ep, copies, ep);
  const std::int64_t received = std::max(copies, routed.copies);
  // The dispatch reads the tokens and sends their k copies (rows of h) once routed.
  OpId dispatch = collective_op("layer" + std::to_string(l) + ".dispatch", "alltoall", l, in, T * h, false, true);
  g_.op_mut(dispatch).collective_elements = received * h;
  g_.connect_control(router, dispatch);
  std::vector<Input> outs = experts(l, dispatch, received * h, routed, nullptr);
  OpId gathered = vector_op("expert_outputs", "moe_combine", l, routed.total * h, received * h, 0, outs);
  OpId back = collective_op("layer" + std::to_string(l) + ".combine_alltoall", "alltoall", l, gathered, received * h,
                            false, true);
  std::vector<Input> combine_in{{back, received * h}};
  shared_experts(l, in, combine_in);
  const std::int64_t shared = m_.shared_experts > 0 ? T * h : 0;
  return vector_op("combine", "moe_combine", l, received * h + shared + combine_bias(routed.touched), T * h, 2, combine_in);
}

}  // namespace roofsim
