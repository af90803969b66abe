#include "workloads/transformer.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include "core/error.hpp"
#include "workloads/forward_builder.hpp"
#include "workloads/gemv_kernel.hpp"

namespace roofsim {

std::optional<Fusion> parse_fusion(const std::string& text) {
  if (text == "none") return Fusion{};
  if (text == "elementwise") return Fusion{true, true, true};
  Fusion f;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    const std::string part = text.substr(from, comma - from);
    bool* flag = part == "add_norm" ? &f.add_norm : part == "activation" ? &f.activation : part == "rope" ? &f.rope : nullptr;
    if (flag == nullptr || *flag) return std::nullopt;  // unknown, or named twice
    *flag = true;
    from = comma + 1;
  }
  return f;
}

std::string fusion_name(const Fusion& f) {
  if (f == Fusion{}) return "none";
  if (f == Fusion{true, true, true}) return "elementwise";
  std::string out;
  for (const auto& [on, name] : {std::pair{f.add_norm, "add_norm"}, {f.activation, "activation"}, {f.rope, "rope"}}) {
    if (on) out += (out.empty() ? "" : ",") + std::string(name);
  }
  return out;
}

std::string layer_op_name(int layer, const std::string& name) {
  if (layer < 0) return name;
  char number[16];  // to_chars, not snprintf: every op of every pass is named here
  const std::size_t digits = static_cast<std::size_t>(std::to_chars(number, number + sizeof number, layer).ptr - number);
  std::string out;
  out.reserve(5 + digits + 1 + name.size());
  out.append("layer").append(number, digits).append(1, '.').append(name);
  return out;
}

auto ForwardBuilder::build() -> OpGraph {
  for (std::int64_t mb = 0; mb < pass_.microbatches; ++mb) {
    prefix_ = pass_.microbatches > 1 ? "mb" + std::to_string(mb) + "." : "";
    OpId x = 0;
    for (std::int64_t s = 0; s < pass_.pp; ++s) {
      device_ = static_cast<int>(s);
      // A stage works through its micro-batches one after another (a GPipe schedule): the
      // first op of this micro-batch waits for the last op of the previous one.
      if (mb > 0) wait_for_[static_cast<std::size_t>(s)] = last_on_[static_cast<std::size_t>(s)];
      if (s == 0) {
        x = vector_op("embed", "embedding", -1, rows_ * m_.hidden, rows_ * m_.hidden, 0, {});
      } else {
        x = send(x, rows_ * m_.hidden);
      }
      const auto [first, last] = stage_layers(m_, pass_.pp, s);
      for (int l = first; l < last; ++l) {
        const std::size_t before = g_.size();
        x = layer(l, x);
        // Once one layer shows how many ops a layer has, room for all of them: a growing
        // graph moves every op it holds each time it grows.
        if (!reserved_) {
          reserved_ = true;
          const auto layers = static_cast<std::size_t>(m_.layers * pass_.microbatches);
          g_.reserve(g_.size() + (g_.size() - before) * layers + 16 * static_cast<std::size_t>(pass_.microbatches * pass_.pp));
        }
      }
    }
    // Only the last position of each prefill needs logits; a decode needs them for every token
    // it adds (speculative decoding verifies each drafted token).
    const std::int64_t last_rows = logit_rows_;
    OpId norm = residual_normed_ == x ? x
                                      : vector_op("final_norm", "norm", -1, last_rows * m_.hidden, last_rows * m_.hidden, kNormFlops,
                                                  {{x, last_rows * m_.hidden}});
    // Vocabulary-parallel LM head: each chip scores its share of the vocabulary.
    gemm_op("lm_head", "lm_head", -1,
            {1, last_rows, ceil_div(m_.vocab, tp_), m_.hidden, p_.activations, p_.weights, p_.activations},
            {{norm, last_rows * m_.hidden}});
  }
  g_.validate();
  return std::move(g_);
}

auto ForwardBuilder::gemm(const std::string& name, const std::string& op_class, const GemmShape& shape, const std::vector<OpInput>& inputs) -> OpId {
  return gemm_op(group_prefix_ + name, op_class, attention_layer_, shape, inputs);
}

auto ForwardBuilder::vector(const std::string& name, const std::string& op_class, std::int64_t in, std::int64_t out, double flops,
                            const std::vector<OpInput>& inputs, DType out_dtype, bool convert, std::optional<DType> in_dtype,
                            std::int64_t kernel_ctas, std::int64_t ctas_per_unit) -> OpId {
  const OpId id = vector_op(group_prefix_ + name, op_class, attention_layer_, in, out, flops, inputs, out_dtype, convert, in_dtype);
  g_.op_mut(id).vector.kernel_ctas = kernel_ctas;
  g_.op_mut(id).vector.kernel_ctas_per_unit = ctas_per_unit;
  g_.op_mut(id).vector.decode_kernel = kernel_ctas > 0;  // attention kernels on the vector units decode
  return id;
}

auto ForwardBuilder::add(OpNode op, const std::vector<Input>& inputs) -> OpId {
  if (!prefix_.empty()) op.name = prefix_ + op.name;
  op.device = device_;
  op.input_elements.reserve(inputs.size());
  for (const Input& in : inputs) op.input_elements.push_back(in.elements);
  const std::size_t device = static_cast<std::size_t>(op.device);
  OpId id = g_.add(std::move(op));
  if (wait_for_.size() <= device) {
    wait_for_.resize(device + 1, -1);
    last_on_.resize(device + 1, -1);
  }
  if (wait_for_[device] >= 0) {
    g_.connect_control(static_cast<OpId>(wait_for_[device]), id);
    wait_for_[device] = -1;
  }
  last_on_[device] = static_cast<long>(id);
  for (const Input& in : inputs) g_.connect(in.from, id, in.elements, p_.activations);  // named "from->to" in messages
  return id;
}

auto ForwardBuilder::vector_op(const std::string& name, const std::string& cls, int layer, std::int64_t in, std::int64_t out,
                               double flops, const std::vector<Input>& inputs, DType out_dtype, bool convert,
                               std::optional<DType> in_dtype) -> OpId {
  OpNode op;
  op.name = layer_op_name(layer, name);
  op.op_class = cls;
  op.layer = layer;
  op.is_gemm = false;
  op.vector = VectorShape{in, out, flops, in_dtype.value_or(p_.activations), out_dtype, !convert};
  return add(std::move(op), inputs);
}

auto ForwardBuilder::quantize_op(const std::string& name, int layer, const VectorShape& v, const std::vector<Input>& inputs) -> OpId {
  OpNode q;
  q.name = layer >= 0 ? "layer" + std::to_string(layer) + "." + name + "_quantize" : name + "_quantize";
  q.op_class = "quantize";
  q.layer = layer;
  q.is_gemm = false;
  q.vector = v;
  return add(std::move(q), inputs);
}

auto ForwardBuilder::gemm_op(const std::string& name, const std::string& cls, int layer, GemmShape shape, std::vector<Input> inputs) -> OpId {
  // A linear with fp8 weights quantizes its 16-bit input first. The router and the LM head
  // stay 16-bit in those checkpoints; attention's GEMMs have no weights.
  const bool fp8_linear = shape.b == DType::fp8 && shape.batch == 1 && !shape.fused_attention && cls != "router" && cls != "lm_head";
  if (fp8_linear && p_.scale_block_k > 0 && shape.a != DType::fp8) {
    // Block-scaled (TensorRT-LLM's fp8_block): 1x128 groups (fp8_quantize_1x128, the dense
    // launch of SMs x 8 blocks of 8 warps), then the block-scaled GEMM (DeepGEMM's kernel), the
    // two kernels the kernel tables' fp8_block rows measure.
    VectorShape q = quantize_1x128_shape(shape.m, shape.k, kDenseQuantWarpsPerSm);
    q.dtype = shape.a;
    inputs = {{quantize_op(name, layer, q, inputs), shape.m * shape.k}};
    shape.a = DType::fp8;
    shape.scale_block_k = p_.scale_block_k;
  } else if (fp8_linear && p_.fp8_input_quantize && p_.scale_block_k == 0 && shape.a == DType::fp8) {
    // Per-tensor: the static scale applied in one pass (read bf16, scale, write fp8; one CTA per
    // token, whose fixed cost the stack sets: vector.token_cta_cycles). The graph's activations
    // are fp8 already; the producer of a real engine writes them in bf16, which this pass reads.
    inputs = {{quantize_op(name, layer, fp8_token_quantize_shape(shape.m, shape.k), inputs), shape.m * shape.k}};
  }
  if (fp8_linear && p_.scale_block_k == 0 && shape.a == DType::fp8) apply_fp8_linear_kernel(shape, p_.fp8_linear);
  OpNode op;
  op.name = layer_op_name(layer, name);
  op.op_class = cls;
  op.layer = layer;
  if (p_.weight_only_gemv && weight_only_formats(shape.a, shape.b) && shape.batch == 1 && !shape.fused_attention && !shape.grouped &&
      shape.m <= kGemvMaxTokens) {
    op.is_gemm = false;  // the stack's CUDA-core GEMV (workloads/gemv_kernel.hpp)
    op.vector = weight_only_gemv_shape(shape.m, shape.n, shape.k, shape.b);
  } else {
    op.gemm = shape;
  }
  return add(std::move(op), inputs);
}

auto ForwardBuilder::layer(int l, OpId x) -> OpId {
  const std::int64_t h = m_.hidden, T = rows_;
  // Row-parallel biases (o_proj, a dense MLP's down) are added once, in the residual: their
  // bytes fold into the add that reads the sum anyway (engines fuse them into the GEMM's
  // epilogue; a separate pass over the activations would overstate them).
  const std::int64_t o_bias = m_.o_bias ? h : 0;
  const std::int64_t down_bias = m_.mlp_bias && !m_.moe_layer(l) ? h : 0;
  // Fused: the previous layer's last residual add wrote x and its normed copy at once.
  const bool fuse = pass_.fusion.add_norm;
  OpId norm = residual_normed_ == x ? x : vector_op("attn_norm", "norm", l, T * h, T * h, kNormFlops, {{x, T * h}});
  OpId attn = m_.linear_layer(l) ? linear_attention(l, norm) : m_.mla ? latent_attention(l, norm) : attention(l, norm);
  if (m_.parallel_block) {
    // GPT-J, GPT-NeoX, Falcon: the MLP reads the same normed input as attention, so the two
    // branches have no path between them; their row-parallel partial sums are added and
    // all-reduced once (Megatron's and TensorRT-LLM's parallel residual), then the residual.
    OpId mlp_out = mlp_block(l, norm);
    if (tp_ == 1) {
      // x + attention + MLP: two adds per output from three inputs.
      return residual_op("residual", l, 3 * T * h + o_bias + down_bias, 2.0 / 3.0, {{x, T * h}, {attn, T * h}, {mlp_out, T * h}});
    }
    OpId sum = vector_op("parallel_sum", "residual", l, 2 * T * h, T * h, kAddFlops, {{attn, T * h}, {mlp_out, T * h}});
    sum = all_reduce("allreduce", l, sum, T * h);
    return residual_op("residual", l, 2 * T * h + o_bias + down_bias, kAddFlops, {{x, T * h}, {sum, T * h}});
  }
  OpId o = all_reduce("attn_allreduce", l, attn, T * h);
  OpId x1 = residual_op("attn_residual", l, 2 * T * h + o_bias, kAddFlops, {{x, T * h}, {o, T * h}});

  OpId norm2 = fuse ? x1 : vector_op("mlp_norm", "norm", l, T * h, T * h, kNormFlops, {{x1, T * h}});
  OpId mlp_out = all_reduce("mlp_allreduce", l, mlp_block(l, norm2), T * h);
  return residual_op("mlp_residual", l, 2 * T * h + down_bias, kAddFlops, {{x1, T * h}, {mlp_out, T * h}});
}

auto ForwardBuilder::residual_op(const std::string& name, int l, std::int64_t in, double flops, const std::vector<Input>& inputs) -> OpId {
  const std::int64_t out = rows_ * m_.hidden;
  if (!pass_.fusion.add_norm) return vector_op(name, "residual", l, in, out, flops, inputs);
  // Fused with the RMSNorm that follows it: the sum and its normed copy written side by side.
  const double fused_flops = (flops * static_cast<double>(in) + kNormFlops * static_cast<double>(out)) / static_cast<double>(in);
  const OpId id = vector_op(name + "_norm", "residual_norm", l, in, 2 * out, fused_flops, inputs);
  residual_normed_ = id;
  return id;
}

auto ForwardBuilder::mlp_block(int l, OpId in) -> OpId {
  if (m_.moe_layer(l)) return moe(l, in);
  return mlp(l, "", in, rows_, m_.intermediate);
}

auto ForwardBuilder::collective_op(const std::string& name, const std::string& cls, int layer, OpId in, std::int64_t elements,
                                   bool send_to_next, bool all_to_all) -> OpId {
  OpNode op;
  op.name = name;
  op.op_class = cls;
  op.layer = layer;
  op.is_gemm = false;
  op.is_collective = true;
  op.send_to_next = send_to_next;
  op.all_to_all = all_to_all;
  op.collective_elements = elements;
  op.vector.dtype = collective_dtype();
  return add(std::move(op), {{in, elements}});
}

auto ForwardBuilder::send(OpId in, std::int64_t elements) -> OpId {
  const int receiver = device_;
  device_ = receiver - 1;
  OpId id = collective_op("send_to_stage" + std::to_string(receiver), "pipeline_send", -1, in, elements, true);
  device_ = receiver;
  return id;
}

auto ForwardBuilder::all_reduce(const std::string& name, int layer, OpId in, std::int64_t elements) -> OpId {
  if (tp_ == 1) return in;
  return collective_op("layer" + std::to_string(layer) + "." + name, "allreduce", layer, in, elements, false);
}

auto ForwardBuilder::mlp(int l, const std::string& prefix, OpId in, std::int64_t rows, std::int64_t width, const OpId* after, std::int64_t split) -> OpId {
  const std::int64_t h = m_.hidden, I = ceil_div(width, split > 0 ? split : tp_);  // column-parallel share
  const DType act = p_.activations;
  const std::int64_t up_cols = (m_.gated_mlp ? 2 : 1) * I;
  GemmShape up_shape{1, rows, up_cols, h, act, p_.weights, act};
  // Fused: the activation (and the bias) in the epilogue, which writes the activated columns.
  up_shape.gated_output = pass_.fusion.activation && m_.gated_mlp;
  OpId up = gemm_op(prefix + (m_.gated_mlp ? "gate_up" : "up"), "mlp_up", l, up_shape, {{in, rows * h}});
  if (after) g_.connect_control(*after, up);
  const std::int64_t bias = m_.mlp_bias ? up_cols : 0;
  OpId a = pass_.fusion.activation
               ? up
               : vector_op(prefix + "activation", "activation", l, rows * up_cols + bias, rows * I, kActMulFlops, {{up, rows * up_cols}});
  return gemm_op(prefix + "down", "mlp_down", l, {1, rows, h, I, act, p_.weights, act}, {{a, rows * I}});
}

ForwardPass mixed_pass(std::vector<SequenceGroup> groups) {
  if (groups.empty()) throw InputError("a mixed pass needs at least one group of sequences");
  ForwardPass pass;
  pass.batch = 0;
  for (const SequenceGroup& g : groups) {
    if (g.count < 1 || g.new_tokens < 1 || g.context < g.new_tokens) {
      throw InputError("a group of " + std::to_string(g.count) + " sequences adding " + std::to_string(g.new_tokens) +
                       " tokens at context " + std::to_string(g.context) + ": needs at least one sequence, one new token "
                       "and a context that holds the new tokens");
    }
    if (!g.prefill && g.new_tokens > kMaxVerifyTokens) {
      throw InputError("a decode group adds at most " + std::to_string(kMaxVerifyTokens) +
                       " tokens per sequence (one and 64 drafted ones to verify)");
    }
    pass.batch += g.count;
  }
  pass.groups = std::move(groups);
  pass.new_tokens = pass.groups.front().new_tokens;
  pass.context = pass.groups.front().context;
  pass.prefill = pass.groups.front().prefill;
  return pass;
}

ForwardPass prefill_pass(std::int64_t batch, std::int64_t prompt) {
  return ForwardPass{batch, prompt, prompt, true};
}

ForwardPass decode_pass(std::int64_t batch, std::int64_t prompt, std::int64_t generated) {
  return ForwardPass{batch, 1, prompt + generated + 1, false};
}

void check_tensor_parallel(const ModelConfig& m, std::int64_t tp) {
  if (tp < 1) throw InputError("${tp} must be at least 1");
  if (tp > 4096) throw InputError("${tp} " + std::to_string(tp) + ": at most 4096 chips");
  // Engines split the query heads evenly (TensorRT-LLM and vLLM refuse anything else); KV
  // heads split evenly too, or, when there are fewer than chips, each is replicated on
  // tp / kv_heads chips (stated in the results).
  if (m.heads % tp != 0) {
    throw InputError("${tp} " + std::to_string(tp) + " must divide the " + std::to_string(m.heads) + " attention heads of " +
                     m.name);
  }
  if (m.kv_heads % tp != 0 && tp % m.kv_heads != 0) {
    throw InputError("${tp} " + std::to_string(tp) + " and the " + std::to_string(m.kv_heads) + " KV heads of " + m.name +
                     ": one must divide the other (KV heads split over the chips, or each replicated on tp / kv_heads chips)");
  }
}

void check_expert_parallel(const ModelConfig& m, const ForwardPass& pass) {
  if (pass.routing.kind != MoeRouting::Kind::uniform && m.experts <= 1) {
    throw InputError("${routing} " + moe_routing_name(pass.routing) + ": " + m.name + " has no experts to route to");
  }
  if (pass.moe_tp > 0 && pass.moe_tp != pass.tp) {
    const std::string what = "${moe_tp} " + std::to_string(pass.moe_tp);
    if (m.experts <= 1) throw InputError(what + ": " + m.name + " has no experts");
    if (pass.tp % pass.moe_tp != 0) throw InputError(what + " must divide ${tp} " + std::to_string(pass.tp));
    if (m.experts % (pass.tp / pass.moe_tp) != 0) {
      throw InputError(what + ": the " + std::to_string(m.experts) + " experts do not split evenly over tp / moe_tp = " +
                       std::to_string(pass.tp / pass.moe_tp) + " ways");
    }
    if (pass.ep > 1) throw InputError(what + " with ${ep} " + std::to_string(pass.ep) + ": experts spread both inside the TP group and over data-parallel ranks is not modelled");
  }
  if (pass.ep == 1) return;
  if (m.experts <= 1) throw InputError("${ep} " + std::to_string(pass.ep) + ": " + m.name + " has no experts");
  if (m.experts % pass.ep != 0) {
    throw InputError("${ep} " + std::to_string(pass.ep) + " must divide the " + std::to_string(m.experts) + " experts");
  }
  // A mixed pass (serving) holds one EP rank's sequences already.
  if (pass.groups.empty() && pass.batch % (pass.ep * pass.microbatches) != 0) {
    const std::string times = pass.microbatches > 1 ? " x " + std::to_string(pass.microbatches) + " micro-batches" : "";
    throw InputError("${ep} " + std::to_string(pass.ep) + times + " must divide the batch (" + std::to_string(pass.batch) +
                     "): attention is data parallel over the EP ranks");
  }
}

void check_pipeline(const ModelConfig& m, const ForwardPass& pass) {
  if (pass.pp < 1 || pass.pp > m.layers) {
    throw InputError("${pp} " + std::to_string(pass.pp) + ": between 1 and the model's " + std::to_string(m.layers) + " layers");
  }
  if (pass.microbatches < 1 || pass.batch % pass.microbatches != 0) {
    throw InputError("${microbatches} " + std::to_string(pass.microbatches) + " must divide the batch (" +
                     std::to_string(pass.batch) + ")");
  }
}

std::pair<int, int> stage_layers(const ModelConfig& m, std::int64_t pp, std::int64_t s) {
  const std::int64_t first = s * m.layers / pp, last = (s + 1) * m.layers / pp;
  return {static_cast<int>(first), static_cast<int>(last)};
}

std::int64_t experts_touched(const ModelConfig& m, std::int64_t tokens) {
  const double e = static_cast<double>(m.experts), k = static_cast<double>(m.experts_per_token);
  const double expected = e * (1.0 - std::pow(1.0 - k / e, static_cast<double>(tokens)));
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(expected - 1e-9)), m.experts_per_token, m.experts);
}

OpGraph build_forward(const ModelConfig& m, const ForwardPass& pass, const Precision& p, const AttentionImpl& attention) {
  check_tensor_parallel(m, pass.tp);
  check_pipeline(m, pass);
  check_expert_parallel(m, pass);
  if (!pass.groups.empty() && pass.microbatches != 1) throw InputError("a mixed pass (serving) runs as one micro-batch");
  return ForwardBuilder(m, pass, p, attention_kernels().get(attention.name, "attention")).build();
}

}  // namespace roofsim
