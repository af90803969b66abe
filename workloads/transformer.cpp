#include "workloads/transformer.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/error.hpp"

namespace roofsim {

namespace {

// Vector-op FLOPs per input element (fp32 arithmetic on the vector units).
constexpr double kNormFlops = 4;      // square, accumulate, scale, multiply by gain
constexpr double kRopeFlops = 3;      // two multiplies and an add per rotated element
constexpr double kActMulFlops = 6;    // SiLU(gate) * up, or GELU
constexpr double kAddFlops = 0.5;     // one add per output from two inputs
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

class Builder : public AttentionGraph {
 public:
  Builder(const ModelConfig& m, const ForwardPass& pass, const Precision& p, const AttentionKernel& attention)
      : m_(m), pass_(pass), p_(p), attention_(attention), groups_(groups_of(pass)), seqs_(0), rows_(0), tp_(pass.tp),
        // Heads that do not divide evenly: the busiest chip (which sets the pace) has the ceiling.
        heads_(ceil_div(m.heads, pass.tp)), kv_heads_(std::max<std::int64_t>(1, ceil_div(m.kv_heads, pass.tp))) {
    for (const SequenceGroup& g : groups_) {
      seqs_ += g.count;
      rows_ += g.count * g.new_tokens;
      logit_rows_ += g.prefill ? g.count : g.count * g.new_tokens;
    }
  }

  OpGraph build() {
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
      OpId norm = vector_op("final_norm", "norm", -1, last_rows * m_.hidden, last_rows * m_.hidden, kNormFlops,
                            {{x, last_rows * m_.hidden}});
      // Vocabulary-parallel LM head: each chip scores its share of the vocabulary.
      gemm_op("lm_head", "lm_head", -1,
              {1, last_rows, ceil_div(m_.vocab, tp_), m_.hidden, p_.activations, p_.weights, p_.activations},
              {{norm, last_rows * m_.hidden}});
    }
    g_.validate();
    return std::move(g_);
  }

 private:
  using Input = OpInput;

  // A uniform pass is one group of a micro-batch's share of the sequences on this EP rank.
  static std::vector<SequenceGroup> groups_of(const ForwardPass& pass) {
    if (!pass.groups.empty()) return pass.groups;
    return {SequenceGroup{pass.batch / pass.microbatches / pass.ep, pass.new_tokens, pass.context, pass.prefill}};
  }

  // AttentionGraph: the attention kernel's ops belong to the layer being built.
  OpId gemm(const std::string& name, const std::string& op_class, const GemmShape& shape, const std::vector<OpInput>& inputs) override {
    return gemm_op(group_prefix_ + name, op_class, attention_layer_, shape, inputs);
  }
  OpId vector(const std::string& name, const std::string& op_class, std::int64_t in, std::int64_t out, double flops,
              const std::vector<OpInput>& inputs, DType out_dtype, bool convert, std::optional<DType> in_dtype) override {
    return vector_op(group_prefix_ + name, op_class, attention_layer_, in, out, flops, inputs, out_dtype, convert, in_dtype);
  }

  OpId add(OpNode op, const std::vector<Input>& inputs) {
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

  // Reads `in` elements of the activations' type (or `in_dtype`) and writes `out` of the same
  // type, or of `out_dtype` when `convert`.
  OpId vector_op(const std::string& name, const std::string& cls, int layer, std::int64_t in, std::int64_t out,
                 double flops, const std::vector<Input>& inputs, DType out_dtype = DType::bf16, bool convert = false,
                 std::optional<DType> in_dtype = std::nullopt) {
    OpNode op;
    op.name = layer >= 0 ? "layer" + std::to_string(layer) + "." + name : name;
    op.op_class = cls;
    op.layer = layer;
    op.is_gemm = false;
    op.vector = VectorShape{in, out, flops, in_dtype.value_or(p_.activations), out_dtype, !convert};
    return add(std::move(op), inputs);
  }

  OpId gemm_op(const std::string& name, const std::string& cls, int layer, GemmShape shape,
               const std::vector<Input>& inputs) {
    OpNode op;
    op.name = layer >= 0 ? "layer" + std::to_string(layer) + "." + name : name;
    op.op_class = cls;
    op.layer = layer;
    op.gemm = shape;
    return add(std::move(op), inputs);
  }

  OpId layer(int l, OpId x) {
    // Per chip: its share of the heads (KV heads replicate when fewer than the TP degree).
    const std::int64_t h = m_.hidden, hd = m_.head_dim, H = heads_, Hkv = kv_heads_;
    const std::int64_t T = rows_, group = std::max<std::int64_t>(1, ceil_div(H, Hkv));
    const DType act = p_.activations;

    OpId norm = vector_op("attn_norm", "norm", l, T * h, T * h, kNormFlops, {{x, T * h}});
    const std::int64_t qkv_cols = (H + 2 * Hkv) * hd;
    OpId qkv = gemm_op("qkv", "qkv", l, {1, T, qkv_cols, h, act, p_.weights, act}, {{norm, T * h}});
    // Rotary embedding on Q and K; the new K and V go into the cache in its storage type.
    OpId rope = vector_op("rope", "rope", l, T * (H + Hkv) * hd, T * (H + Hkv) * hd, kRopeFlops,
                          {{qkv, T * (H + Hkv) * hd}});
    OpId kv_write = vector_op("kv_write", "kv_write", l, T * 2 * Hkv * hd, T * 2 * Hkv * hd, 0,
                              {{rope, T * 2 * Hkv * hd}}, p_.kv, true);

    // Attention per (sequence, KV head): the group's query heads share one K and one V; the
    // kernel (workloads/attention_kernels/) decides which ops that takes.
    (void)group;
    attention_layer_ = l;
    // A mixed pass runs the kernel once per group (ops named g0., g1., ...); o_proj reads
    // every group's output.
    std::vector<Input> attn_out;
    for (std::size_t i = 0; i < groups_.size(); ++i) {
      const SequenceGroup& g = groups_[i];
      group_prefix_ = groups_.size() > 1 ? "g" + std::to_string(i) + "." : "";
      const std::int64_t rows = g.count * g.new_tokens;
      const OpId attn = attention_.build(*this, AttentionShape{rope, kv_write, g.count, H, Hkv, hd, g.new_tokens, g.context,
                                                               g.prefill, p_});
      attn_out.push_back({attn, rows * H * hd});
    }
    group_prefix_.clear();
    OpId o = gemm_op("o_proj", "o_proj", l, {1, T, h, H * hd, act, p_.weights, act}, attn_out);
    o = all_reduce("attn_allreduce", l, o, T * h);
    OpId x1 = vector_op("attn_residual", "residual", l, 2 * T * h, T * h, kAddFlops, {{x, T * h}, {o, T * h}});

    OpId norm2 = vector_op("mlp_norm", "norm", l, T * h, T * h, kNormFlops, {{x1, T * h}});
    OpId mlp_out;
    if (m_.experts > 1) {
      mlp_out = moe(l, norm2);
    } else {
      mlp_out = mlp(l, "", norm2, T);
    }
    mlp_out = all_reduce("mlp_allreduce", l, mlp_out, T * h);
    return vector_op("mlp_residual", "residual", l, 2 * T * h, T * h, kAddFlops, {{x1, T * h}, {mlp_out, T * h}});
  }

  // A collective on `elements` activations that `in` produced.
  OpId collective_op(const std::string& name, const std::string& cls, int layer, OpId in, std::int64_t elements,
                     bool send_to_next, bool all_to_all = false) {
    OpNode op;
    op.name = name;
    op.op_class = cls;
    op.layer = layer;
    op.is_gemm = false;
    op.is_collective = true;
    op.send_to_next = send_to_next;
    op.all_to_all = all_to_all;
    op.collective_elements = elements;
    op.vector.dtype = p_.activations;
    return add(std::move(op), {{in, elements}});
  }

  // The activations leave this stage for the next; the send belongs to the sending stage.
  OpId send(OpId in, std::int64_t elements) {
    const int receiver = device_;
    device_ = receiver - 1;
    OpId id = collective_op("send_to_stage" + std::to_string(receiver), "pipeline_send", -1, in, elements, true);
    device_ = receiver;
    return id;
  }

  // Row-parallel outputs are partial sums: all-reduce them over the TP group (none at tp 1).
  OpId all_reduce(const std::string& name, int layer, OpId in, std::int64_t elements) {
    if (tp_ == 1) return in;
    return collective_op("layer" + std::to_string(layer) + "." + name, "allreduce", layer, in, elements, false);
  }

  // One dense MLP (or one expert) over `rows` tokens.
  OpId mlp(int l, const std::string& prefix, OpId in, std::int64_t rows, const OpId* after = nullptr) {
    const std::int64_t h = m_.hidden, I = ceil_div(m_.intermediate, tp_);  // column-parallel share
    const DType act = p_.activations;
    const std::int64_t up_cols = (m_.gated_mlp ? 2 : 1) * I;
    OpId up = gemm_op(prefix + (m_.gated_mlp ? "gate_up" : "up"), "mlp_up", l, {1, rows, up_cols, h, act, p_.weights, act},
                      {{in, rows * h}});
    if (after) g_.connect_control(*after, up);
    OpId a = vector_op(prefix + "activation", "activation", l, rows * up_cols, rows * I, kActMulFlops, {{up, rows * up_cols}});
    return gemm_op(prefix + "down", "mlp_down", l, {1, rows, h, I, act, p_.weights, act}, {{a, rows * I}});
  }

  // Mixture of experts: a router, then only the touched experts run, on the tokens routed to
  // them (uniform routing), and their outputs are combined.
  OpId moe(int l, OpId in) {
    if (pass_.ep > 1) return moe_expert_parallel(l, in);
    const std::int64_t h = m_.hidden, T = rows_;
    OpId router = gemm_op("router", "router", l, {1, T, m_.experts, h, p_.activations, p_.weights, p_.activations},
                          {{in, T * h}});
    const std::int64_t touched = experts_touched(m_, T);
    const std::int64_t rows = ceil_div(T * m_.experts_per_token, touched);
    std::vector<Input> outs;
    for (std::int64_t e = 0; e < touched; ++e) {
      // The router's decision gates every expert.
      OpId out = mlp(l, "expert" + std::to_string(e) + ".", in, rows, &router);
      outs.push_back({out, rows * h});
    }
    return vector_op("combine", "moe_combine", l, touched * rows * h, T * h, 2, outs);
  }

  // Expert parallel MoE: route this chip's tokens, send each token's k copies to the chips
  // holding its experts (all-to-all), run the local experts on what arrives, send the results
  // back (all-to-all) and combine. Uniform routing: every chip receives T x k token copies.
  // With TP, each TP rank dispatches the same tokens over its own EP group and runs its column
  // share of the local experts; layer() all-reduces the combined partial sums over the TP
  // group afterwards (combining is linear, so reducing after it moves T rows, not T x k).
  OpId moe_expert_parallel(int l, OpId in) {
    const std::int64_t h = m_.hidden, T = rows_, k = m_.experts_per_token, ep = pass_.ep;
    OpId router = gemm_op("router", "router", l, {1, T, m_.experts, h, p_.activations, p_.weights, p_.activations},
                          {{in, T * h}});
    const std::int64_t copies = T * k;
    // The dispatch reads the tokens and sends their k copies (rows of h) once routed.
    OpId dispatch = collective_op("layer" + std::to_string(l) + ".dispatch", "alltoall", l, in, T * h, false, true);
    g_.op_mut(dispatch).collective_elements = copies * h;
    g_.connect_control(router, dispatch);
    const std::int64_t local_experts = m_.experts / ep;
    const std::int64_t touched = std::min(local_experts, ceil_div(experts_touched(m_, T * ep), ep));
    const std::int64_t rows = ceil_div(copies, touched);
    std::vector<Input> outs;
    for (std::int64_t e = 0; e < touched; ++e) {
      OpId out = mlp(l, "expert" + std::to_string(e) + ".", dispatch, rows, nullptr);
      outs.push_back({out, rows * h});
    }
    OpId gathered = vector_op("expert_outputs", "moe_combine", l, touched * rows * h, copies * h, 0, outs);
    OpId back = collective_op("layer" + std::to_string(l) + ".combine_alltoall", "alltoall", l, gathered, copies * h,
                              false, true);
    return vector_op("combine", "moe_combine", l, copies * h, T * h, 2, {{back, copies * h}});
  }

  const ModelConfig& m_;
  ForwardPass pass_;
  Precision p_;
  const AttentionKernel& attention_;
  int attention_layer_ = -1;  // the layer whose attention the kernel is building
  std::vector<SequenceGroup> groups_;  // the pass's sequences by shape (one for a uniform pass)
  std::string group_prefix_;           // "g2." while building group 2's attention in a mixed pass
  std::int64_t seqs_;  // sequences per micro-batch
  std::int64_t rows_;  // tokens per micro-batch
  std::int64_t logit_rows_ = 0;  // tokens that get logits
  std::int64_t tp_, heads_, kv_heads_;
  std::string prefix_;  // "mb3." with several micro-batches
  int device_ = 0;      // pipeline stage of the ops being added
  std::vector<long> last_on_;   // per stage: the op added last (-1: none)
  std::vector<long> wait_for_;  // per stage: the op the next added op must follow (-1: none)
  OpGraph g_;
  bool reserved_ = false;
};

}  // namespace

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
  if (pass.ep == 1) return;
  if (m.experts <= 1) throw InputError("${ep} " + std::to_string(pass.ep) + ": " + m.name + " has no experts");
  if (m.experts % pass.ep != 0) {
    throw InputError("${ep} " + std::to_string(pass.ep) + " must divide the " + std::to_string(m.experts) + " experts");
  }
  if (pass.batch % (pass.ep * pass.microbatches) != 0) {
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
  if (!pass.groups.empty() && (pass.microbatches != 1 || pass.ep != 1)) {
    throw InputError("a mixed pass (serving) runs as one micro-batch without expert parallelism");
  }
  return Builder(m, pass, p, attention_kernels().get(attention.name, "attention")).build();
}

}  // namespace roofsim
