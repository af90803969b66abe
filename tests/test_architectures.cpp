// The 2026 architectures in the operator graph: multi-head latent attention (prefill and
// absorbed decode forms), shared experts and dense first layers, sliding windows, parallel
// blocks, biases and QK norm; their shapes, bytes, TP splits, and simulations that never beat
// their bounds (the bounds and simulations: test_architectures_bounds.cpp). Fixtures:
// tests/models/*.toml.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>

#include "core/error.hpp"
#include "tests/architecture_fixtures.hpp"
#include "experiment/inference.hpp"
#include "workloads/model_catalog.hpp"
#include "serving/kv_cache.hpp"
#include "core/hardware.hpp"
#include "validation/analytic.hpp"
#include "validation/workload_bounds.hpp"
#include "workloads/transformer.hpp"

using namespace roofsim;
using namespace roofsim::test_architectures;

namespace {

// Bytes of the B operands (weights, or K and V) of the GEMMs whose class is in `classes`, or
// of every GEMM but attention when `classes` is empty.
double b_bytes(const OpGraph& g, const std::set<std::string>& classes = {}) {
  double bytes = 0;
  for (OpId v = 0; v < g.size(); ++v) {
    const OpNode& op = g.op(v);
    if (!op.is_gemm) continue;
    const bool take = classes.empty() ? op.op_class != "attention" : classes.count(op.op_class) > 0;
    if (take) bytes += static_cast<double>(op.gemm.batch * op.gemm.b_elements_per_batch()) * dtype_bytes(op.gemm.b);
  }
  return bytes;
}

const OpNode& op_named(const OpGraph& g, const std::string& name) {
  for (OpId v = 0; v < g.size(); ++v) {
    if (g.op(v).name == name) return g.op(v);
  }
  FAIL("no op " << name);
  throw;
}

bool has_op(const OpGraph& g, const std::string& name) {
  for (OpId v = 0; v < g.size(); ++v) {
    if (g.op(v).name == name) return true;
  }
  return false;
}

OpId id_of(const OpGraph& g, const std::string& name) {
  for (OpId v = 0; v < g.size(); ++v) {
    if (g.op(v).name == name) return v;
  }
  FAIL("no op " << name);
  throw;
}

bool reaches(const OpGraph& g, OpId from, OpId to) {
  std::vector<OpId> stack{from};
  std::vector<bool> seen(g.size(), false);
  while (!stack.empty()) {
    const OpId v = stack.back();
    stack.pop_back();
    if (v == to) return true;
    if (seen[v]) continue;
    seen[v] = true;
    for (OpId s : g.successor_range(v)) stack.push_back(s);
  }
  return false;
}

// Parameters no GEMM reads: the norms' gains (and MLA's two latent norms), the input
// embedding table (a lookup), and the final norm.
double non_gemm_params(const ModelConfig& m) {
  double p = static_cast<double>(m.layers) * 2.0 * static_cast<double>(m.hidden) + static_cast<double>(m.hidden) +
             static_cast<double>(m.vocab * m.hidden);
  if (m.mla) p += static_cast<double>(m.layers * (m.mla->q_lora_rank + m.mla->kv_lora_rank));
  return p;
}

}  // namespace

TEST_CASE("DeepSeek-V3's fixture has the published sizes: 671B total, 37B active", "[systemc][architectures]") {
  const ModelConfig m = load_model(fixture("deepseek-v3"));
  CHECK(m.total_params() == Approx(671e9).epsilon(0.005));
  CHECK(m.active_params_per_token() == Approx(37e9).epsilon(0.02));
  CHECK(m.mtp_params() == Approx(11.5e9).epsilon(0.05));  // the published 14B includes its embedding and head
}

TEST_CASE("MLA decode reads (kv_lora_rank + rope) values per cached token and layer: 70,272 B for DeepSeek-V3 in bf16",
          "[systemc][architectures]") {
  const ModelConfig m = load_model(fixture("deepseek-v3"));
  CHECK(m.kv_bytes_per_token(DType::bf16) == 70272);
  const std::int64_t batch = 2, prompt = 1000;
  const ForwardPass pass = decode_pass(batch, prompt, 23);  // context 1024
  for (std::int64_t tp : {1, 8}) {
    INFO("tp " << tp);
    const OpGraph g = graph(m, pass, tp);
    // Every TP rank reads the whole latent cache of its sequences (the heads split, not it).
    CHECK(b_bytes(g, {"attention"}) == static_cast<double>(batch * pass.context) * 70272);
  }
  const OpGraph g = graph(m, pass);
  const OpNode& attn = op_named(g, "layer10.attention");
  CHECK(attn.gemm.fused_attention);
  CHECK(attn.gemm.shared_kv);
  CHECK(attn.gemm.batch == batch);         // one latent "KV head" per sequence
  CHECK(attn.gemm.m == 128);               // every head's query against it
  CHECK(attn.gemm.n == 576);               // key dims: kv_lora_rank + rope
  CHECK(attn.gemm.out_n() == 512);         // values: the latent
  CHECK(attn.gemm.k == pass.context);
  const OpNode& q_abs = op_named(g, "layer10.q_absorb");
  CHECK((q_abs.gemm.batch == 128 && q_abs.gemm.m == batch && q_abs.gemm.n == 512 && q_abs.gemm.k == 128));
  const OpNode& v_up = op_named(g, "layer10.v_up");
  CHECK((v_up.gemm.batch == 128 && v_up.gemm.n == 128 && v_up.gemm.k == 512));
  CHECK_FALSE(has_op(g, "layer10.kv_b"));
  // The cache write: 576 values per new token in the cache's type.
  CHECK(op_named(g, "layer10.kv_write").vector.elements_out == batch * 576);
}

TEST_CASE("MLA prefill expands the latent per head (kv_b) and attends with qk 192 and v 128", "[systemc][architectures]") {
  const ModelConfig m = load_model(fixture("deepseek-v3"));
  const std::int64_t prompt = 512;
  const OpGraph g = graph(m, prefill_pass(1, prompt));
  const OpNode& kv_b = op_named(g, "layer5.kv_b");
  CHECK((kv_b.gemm.m == prompt && kv_b.gemm.n == 128 * (128 + 128) && kv_b.gemm.k == 512));
  const OpNode& attn = op_named(g, "layer5.attention");
  CHECK(attn.gemm.batch == 128);  // (sequence, head) pairs: keys per head after the expansion
  CHECK(attn.gemm.n == 192);
  CHECK(attn.gemm.out_n() == 128);
  CHECK_FALSE(attn.gemm.shared_kv);
  CHECK(attn.gemm.k == (prompt + 2) / 2);
  CHECK(attn.gemm.b == DType::bf16);
  CHECK_FALSE(has_op(g, "layer5.q_absorb"));
  // The down projections and the norms: q_lora 1536 + latent 512 + rope 64 columns.
  CHECK(op_named(g, "layer5.qkv_a").gemm.n == 1536 + 576);
  CHECK(op_named(g, "layer5.q_b").gemm.n == 128 * 192);
  // TP 8: the up projections and heads split, the down projections replicated.
  const OpGraph g8 = graph(m, prefill_pass(1, prompt), 8);
  CHECK(op_named(g8, "layer5.qkv_a").gemm.n == 1536 + 576);
  CHECK(op_named(g8, "layer5.q_b").gemm.n == 16 * 192);
  CHECK(op_named(g8, "layer5.kv_b").gemm.n == 16 * 256);
  CHECK(op_named(g8, "layer5.attention").gemm.batch == 16);
  CHECK(op_named(g8, "layer5.o_proj").gemm.k == 16 * 128);
}

TEST_CASE("MLA without query compression (DeepSeek-V2-Lite: q_lora_rank 0) has one plain query projection",
          "[systemc][architectures]") {
  ModelConfig m = load_model(fixture("mla-moe-small"));
  m.mla->q_lora_rank = 0;
  const OpGraph g = graph(m, prefill_pass(1, 2048));
  CHECK_FALSE(has_op(g, "layer2.q_a_norm"));
  const OpNode& q = op_named(g, "layer2.q_proj");
  CHECK((q.gemm.k == m.hidden && q.gemm.n == 16 * 96));
  CHECK(op_named(g, "layer2.qkv_a").gemm.n == 128 + 32);
  CHECK(b_bytes(g) == Approx((m.total_params() - non_gemm_params(m)) * 2).epsilon(1e-12));
}

TEST_CASE("A mixed serving pass runs MLA's prefill form for its prompts and the absorbed form for its decodes",
          "[systemc][architectures]") {
  const ModelConfig m = load_model(fixture("mla-moe-small"));
  const OpGraph g = graph(m, mixed_pass({{6, 1, 700, false}, {1, 200, 200, true}, {1, 100, 500, true}}), 2);
  CHECK(op_named(g, "layer1.g0.attention").gemm.shared_kv);
  CHECK(op_named(g, "layer1.g0.attention").gemm.batch == 6);
  CHECK(has_op(g, "layer1.g0.q_absorb"));
  CHECK(op_named(g, "layer1.g1.kv_b").gemm.m == 200);
  // A chunk of 100 after 400 cached tokens expands all 500 latents.
  CHECK(op_named(g, "layer1.g2.kv_b").gemm.m == 500);
  CHECK(op_named(g, "layer1.g2.attention").gemm.k == 400 + 51);
  CHECK(op_named(g, "layer1.o_proj").gemm.m == 6 + 200 + 100);
}

TEST_CASE("Shared experts and dense first layers: ops and weight bytes = parameters x dtype bytes", "[systemc][architectures]") {
  const ModelConfig m = load_model(fixture("mla-moe-small"));
  // Enough tokens to touch all 64 experts: every weight is read once.
  const OpGraph g = graph(m, prefill_pass(1, 2048));
  CHECK(experts_touched(m, 2048) == 64);
  CHECK(b_bytes(g) == Approx((m.total_params() - non_gemm_params(m)) * 2).epsilon(1e-12));
  // Layer 0 is dense (the full intermediate), no router; layers 1.. route.
  CHECK(op_named(g, "layer0.gate_up").gemm.n == 2 * m.intermediate);
  CHECK_FALSE(has_op(g, "layer0.router"));
  CHECK(has_op(g, "layer1.router"));
  // 64 touched experts: one grouped GEMM per projection, batch = experts.
  const OpNode& up = op_named(g, "layer1.experts.gate_up");
  CHECK((up.gemm.batch == 64 && up.gemm.m == 2048 * 6 / 64 && up.gemm.n == 2 * 256 && up.gemm.k == m.hidden));
  // The two shared experts: one MLP of twice the expert width over every token.
  const OpNode& shared = op_named(g, "layer1.shared.gate_up");
  CHECK((shared.gemm.m == 2048 && shared.gemm.n == 2 * 2 * 256));
  // A decode step of one sequence touches 6 experts: still one grouped GEMM per projection (a
  // fused-MoE kernel launches once however few experts it runs), six experts of one row.
  const OpGraph d = graph(m, decode_pass(1, 100, 0));
  const OpNode& down = op_named(d, "layer3.experts.down");
  CHECK((down.gemm.batch == 6 && down.gemm.m == 1));
  CHECK(has_op(d, "layer3.shared.down"));
  // TP 2: the shared experts split like a dense MLP.
  CHECK(op_named(graph(m, decode_pass(1, 100, 0), 2), "layer3.shared.gate_up").gemm.n == 2 * 256);
}

TEST_CASE("DeepSeek-V3 at 256 experts stays a graph of thousands of ops, and its weights are its parameters",
          "[systemc][architectures]") {
  const ModelConfig m = load_model(fixture("deepseek-v3"));
  CHECK(experts_touched(m, 1) == 8);
  CHECK(experts_touched(m, 64) == 223);
  CHECK(experts_touched(m, 100000) == 256);
  const OpGraph g = graph(m, prefill_pass(1, 4096));
  CHECK(g.size() < 61 * 40);
  CHECK(b_bytes(g) == Approx((m.total_params() - non_gemm_params(m)) * 2).epsilon(1e-12));
  // Expert parallelism over 16 ranks: 16 local experts, shared experts on each rank's tokens.
  ForwardPass ep = decode_pass(64, 1000, 0);
  ep.ep = 16;
  const OpGraph e = graph(m, ep);
  CHECK(has_op(e, "layer3.shared.down"));
  CHECK(op_named(e, "layer3.shared.gate_up").gemm.m == 4);  // 64 / 16 sequences on this rank
  CHECK(op_named(e, "layer3.experts.down").gemm.batch == 14);  // ceil(223 / 16) experts
}

TEST_CASE("Sliding windows: decode at 8192 reads 4096 keys on sliding layers, prefill is banded, the cache is capped",
          "[systemc][architectures]") {
  const ModelConfig m = load_model(fixture("gemma2-like"));
  REQUIRE(m.sliding_layer(0));
  REQUIRE_FALSE(m.sliding_layer(1));
  const OpGraph d = graph(m, decode_pass(1, 8191, 0));  // context 8192
  CHECK(op_named(d, "layer0.attention").gemm.k == 4096);
  CHECK(op_named(d, "layer1.attention").gemm.k == 8192);
  const double per_token = m.kv_bytes_per_token_layer(DType::bf16) / 2;  // K or V of a token and layer, bf16 bytes
  CHECK(b_bytes(d, {"attention"}) == (21 * 4096 + 21 * 8192) * 2 * per_token);
  // Unfused and vector kernels read the window in decode too.
  ForwardPass pass = decode_pass(1, 8191, 0);
  CHECK(op_named(build_forward(m, pass, {}, AttentionImpl::unfused), "layer0.attention_v").gemm.k == 4096);
  CHECK(op_named(build_forward(m, pass, {}, AttentionImpl::vector), "layer0.attention").vector.elements_in ==
        8 * 4096 * 2 * 256);
  // Prefill of 8192: a query attends to min(position, 4096) keys on sliding layers.
  const OpGraph p = graph(m, prefill_pass(1, 8192));
  const std::int64_t banded = (4096 * 4097 / 2 + 4096 * 4096 + 8191) / 8192;
  CHECK(op_named(p, "layer0.attention").gemm.k == banded);
  CHECK(op_named(p, "layer1.attention").gemm.k == (8192 + 2) / 2);
  // A prompt inside the window is plain causal on every layer.
  CHECK(op_named(graph(m, prefill_pass(1, 1000)), "layer0.attention").gemm.k == 501);
  // A chunk of 1024 after 7168 earlier tokens: every query capped at the window.
  const OpGraph c = graph(m, mixed_pass({{1, 1024, 8192, true}}));
  CHECK(op_named(c, "layer0.attention").gemm.k == 4096);
  // Memory: the sliding half of the layers holds 4096 tokens.
  CHECK(m.kv_cache_bytes(DType::bf16, 8192) == Approx((21 * 4096 + 21 * 8192) * m.kv_bytes_per_token_layer(DType::bf16)));
  Experiment e;
  e.model = fixture("gemma2-like");
  e.prompt = 8000;
  e.generate = 192;
  CHECK(memory_need(m, e).kv_cache == Approx(m.kv_cache_bytes(DType::bf16, 8192)));
}

TEST_CASE("Chunked attention (Llama 4): decode reads the newest chunk's keys, global layers the context, the cache holds a chunk",
          "[systemc][architectures]") {
  const ModelConfig m = load_model(fixture("llama4-small"));
  REQUIRE(m.chunked_layer(0));
  REQUIRE_FALSE(m.chunked_layer(3));
  // Context 1000 = 3 chunks of 256 + 232: a chunked layer's newest token sees its chunk's 232.
  const OpGraph d = graph(m, decode_pass(1, 999, 0));
  CHECK(op_named(d, "layer0.attention").gemm.k == 232);
  CHECK(op_named(d, "layer3.attention").gemm.k == 1000);
  // At a chunk's end it sees the whole chunk; one token later, only itself.
  CHECK(op_named(graph(m, decode_pass(1, 1023, 0)), "layer0.attention").gemm.k == 256);
  CHECK(op_named(graph(m, decode_pass(1, 1024, 0)), "layer0.attention").gemm.k == 1);
  // A prompt within one chunk is plain causal on every layer.
  CHECK(op_named(graph(m, prefill_pass(1, 200)), "layer0.attention").gemm.k == 101);
  // Six of eight layers keep a chunk, two keep everything; a step reads what it attends to.
  const double per_token = m.kv_bytes_per_token_layer(DType::bf16);
  CHECK(m.kv_cache_bytes(DType::bf16, 1000) == Approx((6 * 256 + 2 * 1000) * per_token));
  CHECK(m.kv_read_bytes(DType::bf16, 1000) == Approx((6 * 232 + 2 * 1000) * per_token));
  // Experts on every other layer (moe_every = 2), a dense MLP on the others.
  CHECK(m.moe_layer_count() == 4);
  CHECK_FALSE(m.moe_layer(0));
  CHECK(m.moe_layer(1));
  CHECK(has_op(d, "layer1.router"));
  CHECK_FALSE(has_op(d, "layer0.router"));
  // Parameters: 4 MoE layers (16 experts + 1 shared of 2048, a router) and 4 dense ones (4096).
  const double h = 1024, attention = m.attention_params_per_layer();
  const double moe = 17 * 3 * h * 2048 + h * 16, dense = 3 * h * 4096;
  CHECK(m.total_params() == Approx(4 * (attention + moe + 2 * h) + 4 * (attention + dense + 2 * h) + 2 * 8192 * h + h));
}

TEST_CASE("DeepSeek Sparse Attention: attention reads the indexer's top-k, the indexer scores every cached token",
          "[systemc][architectures]") {
  const ModelConfig m = load_model(fixture("dsa-small"));
  REQUIRE(m.sparse);
  // Decode at context 1000: the latent attention over the 64 picked tokens, the indexer over all
  // 1000 index keys (4 heads sharing one 32-dim key), the top-k waiting for the scores.
  const OpGraph d = graph(m, decode_pass(1, 999, 0));
  CHECK(op_named(d, "layer1.attention").gemm.k == 64);
  const OpNode& scores = op_named(d, "layer1.indexer.attention");
  CHECK(scores.op_class == "indexer");
  CHECK(scores.gemm.k == 1000);
  CHECK(scores.gemm.b == DType::fp8);
  CHECK(reaches(d, id_of(d, "layer1.indexer_topk"), id_of(d, "layer1.attention")));
  // Below the top-k, every token is attended.
  CHECK(op_named(graph(m, decode_pass(1, 49, 0)), "layer1.attention").gemm.k == 50);
  // The cache keeps every token: the latent in bf16 and the indexer's fp8 key with its scale.
  CHECK(m.kv_bytes_per_token_layer(DType::bf16) == Approx((128 + 32) * 2 + 32 + 4));
  CHECK(m.kv_cache_bytes(DType::bf16, 1000) == Approx(6 * 1000 * m.kv_bytes_per_token_layer(DType::bf16)));
  CHECK(m.kv_read_bytes(DType::bf16, 1000) == Approx(6 * (64 * (128 + 32) * 2 + 1000 * 36.0)));
  // The indexer's weights: queries from the 384-wide compressed query, a key and a weight per head.
  const ModelConfig dense = load_model(fixture("mla-moe-small"));
  CHECK(m.attention_params_per_layer() - dense.attention_params_per_layer() == Approx(384 * 4 * 32 + 1024 * 32 + 2 * 32 + 1024 * 4));
}

TEST_CASE("Gated DeltaNet layers (Qwen3-Next): a recurrent state per sequence instead of a KV cache, gated attention between",
          "[systemc][architectures]") {
  const ModelConfig m = load_model(fixture("hybrid-linear-small"));
  REQUIRE(m.linear);
  CHECK(m.linear_layer_count() == 6);
  CHECK(m.linear_layer(0));
  CHECK_FALSE(m.linear_layer(3));
  // The state of one sequence and layer: 8 value heads of 64 x 64 in fp32, and the last 3
  // inputs of the 2 x 256 + 512 convolved channels in 16 bits.
  CHECK(m.linear->state_bytes() == Approx(8 * 64 * 64 * 4 + (2 * 256 + 512) * 3 * 2));
  // The cache: 2 attention layers of tokens and 6 fixed states; a step reads them all.
  const double per_token = m.kv_bytes_per_token_layer(DType::bf16);
  CHECK(m.kv_bytes_per_token(DType::bf16) == Approx(2 * per_token));
  CHECK(m.kv_cache_bytes(DType::bf16, 1000) == Approx(2 * 1000 * per_token + 6 * m.linear->state_bytes()));
  CHECK(m.kv_read_bytes(DType::bf16, 1000) == Approx(2 * 1000 * per_token + 6 * m.linear->state_bytes()));
  // Decode: the linear layer's delta rule reads and writes the state (fp32) whatever the
  // context; the attention layer reads the context; q_proj's gate doubles its query columns.
  const OpGraph d = graph(m, decode_pass(2, 999, 0));
  const OpNode& rule = op_named(d, "layer0.delta_rule");
  CHECK(rule.vector.dtype == DType::fp32);
  CHECK(rule.vector.elements_out >= 2 * 8 * 64 * 64);
  CHECK_FALSE(has_op(d, "layer0.attention"));
  CHECK(op_named(d, "layer3.attention").gemm.k == 1000);
  CHECK(op_named(d, "layer3.qkv").gemm.n == (8 + 2 * 2) * 128 + 8 * 128);
  CHECK(has_op(d, "layer3.attn_gate"));
  // Prefill runs the chunked form on the matrix units: a batched GEMM per value head.
  const OpGraph p = graph(m, prefill_pass(1, 512));
  CHECK(op_named(p, "layer0.delta_rule").is_gemm);
  CHECK(op_named(p, "layer0.delta_rule").gemm.batch == 8);
  // Weights: a linear layer's projections, convolution, decay and norm replace attention's.
  const double h = 1024, lin = h * (2 * 256 + 2 * 512 + 2 * 8) + (2 * 256 + 512) * 4 + 2 * 8 + 64 + 512 * h;
  CHECK(m.linear->params(1024) == Approx(lin));
}

TEST_CASE("Serving's paged KV cache counts a sliding layer's blocks up to the window only", "[systemc][architectures]") {
  KvBlockPool pool(1000, 16);
  CHECK(pool.blocks_for(8192) == 512);
  pool.set_sliding(4096, 21, 42);  // Gemma-2: every other of 42 layers slides at 4096
  CHECK(pool.blocks_for(100) == 7);
  CHECK(pool.blocks_for(4096) == 256);
  CHECK(pool.blocks_for(8192) == (8192 * 21 + 4096 * 21) / (16 * 42));  // 384: half the layers stopped at 4096
  CHECK(pool.blocks_for(8193) == 385);
}

TEST_CASE("Parallel blocks: attention and MLP have no path between them, one all-reduce per layer under TP",
          "[systemc][architectures]") {
  const ModelConfig m = load_model(fixture("gpt-j-parallel"));
  for (std::int64_t tp : {1, 2}) {
    INFO("tp " << tp);
    const OpGraph g = graph(m, prefill_pass(1, 64), tp);
    const OpId o = id_of(g, "layer3.o_proj"), down = id_of(g, "layer3.down"), qkv = id_of(g, "layer3.qkv"),
               up = id_of(g, "layer3.up");
    CHECK_FALSE(reaches(g, o, up));
    CHECK_FALSE(reaches(g, down, qkv));
    CHECK_FALSE(reaches(g, qkv, down));
    CHECK_FALSE(reaches(g, up, o));
    CHECK(reaches(g, o, id_of(g, "layer3.residual")));
    CHECK(reaches(g, down, id_of(g, "layer3.residual")));
    CHECK_FALSE(has_op(g, "layer3.mlp_norm"));
    int allreduces = 0;
    for (OpId v = 0; v < g.size(); ++v) allreduces += g.op(v).op_class == "allreduce" ? 1 : 0;
    CHECK(allreduces == (tp == 1 ? 0 : m.layers));
  }
}

TEST_CASE("Biases fold into the element-wise op that follows, QK norm is a vector op on Q and K", "[systemc][architectures]") {
  const ModelConfig m = load_model(fixture("bias-qknorm-small"));
  const std::int64_t T = 32, h = m.hidden, hd = m.head_dim;
  const OpGraph g = graph(m, prefill_pass(1, T));
  const std::int64_t qkv_cols = (m.heads + 2 * m.kv_heads) * hd;
  const OpNode& qk_norm = op_named(g, "layer0.qk_norm");
  CHECK(qk_norm.vector.elements_in == T * (m.heads + m.kv_heads) * hd);
  CHECK(op_named(g, "layer0.rope").vector.elements_in == T * (m.heads + m.kv_heads) * hd + qkv_cols);
  CHECK(op_named(g, "layer0.attn_residual").vector.elements_in == 2 * T * h + h);
  CHECK(op_named(g, "layer0.activation").vector.elements_in == T * 2 * m.intermediate + 2 * m.intermediate);
  CHECK(op_named(g, "layer0.mlp_residual").vector.elements_in == 2 * T * h + h);
  // Every weight and bias is read: GEMM weights plus the folded bias elements are the
  // parameters less the norms, sinks and input table.
  double biases = 0;
  for (OpId v = 0; v < g.size(); ++v) {
    const OpNode& op = g.op(v);
    if (op.op_class == "rope") biases += static_cast<double>(op.vector.elements_in - T * (m.heads + m.kv_heads) * hd);
    if (op.op_class == "residual") biases += static_cast<double>(op.vector.elements_in - 2 * T * h);
    if (op.op_class == "activation") biases += static_cast<double>(op.vector.elements_in - T * 2 * m.intermediate);
  }
  const double qk_norms = static_cast<double>(m.layers * 2 * hd), sinks = static_cast<double>(m.layers * m.heads);
  CHECK(b_bytes(g) / 2 + biases == Approx(m.total_params() - non_gemm_params(m) - qk_norms - sinks).epsilon(1e-12));
  // Sliding every other layer at 128: a decode at 300 reads 128 keys on layer 0.
  CHECK(op_named(graph(m, decode_pass(1, 299, 0)), "layer0.attention").gemm.k == 128);
  CHECK(op_named(graph(m, decode_pass(1, 299, 0)), "layer1.attention").gemm.k == 300);
}
