// Operator graphs of transformers: counts against closed forms, and bad graphs refused.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "tests/test_util.hpp"
#include "validation/workload_bounds.hpp"
#include "workloads/chip_layout.hpp"
#include "workloads/hf_config.hpp"
#include "workloads/transformer.hpp"

using namespace roofsim;
using namespace roofsim::test;

namespace {

double gemm_weight_bytes(const OpGraph& g, const std::string& op_class) {
  double bytes = 0;
  for (OpId v = 0; v < g.size(); ++v) {
    const OpNode& op = g.op(v);
    if (op.is_gemm && op.op_class == op_class) {
      bytes += static_cast<double>(op.gemm.batch * op.gemm.b_elements_per_batch()) * dtype_bytes(op.gemm.b);
    }
  }
  return bytes;
}

double intensity(const OpGraph& g) { return g.total_flops() / g.total_bytes(); }

}  // namespace

TEST_CASE("a decode step does about 2 x parameters FLOPs per token", "[workloads]") {
  for (const char* name : {"llama-2-7b", "llama-3-8b", "mistral-7b", "gpt-j-6b"}) {
    ModelConfig m = load_model(name);
    OpGraph g = build_forward(m, decode_pass(1, 512, 1), Precision{}, AttentionImpl::fused);
    INFO(name);
    // The closed form: every matmul weight once per token, attention over the context.
    CHECK(g.total_flops() == Approx(forward_flops(m, 1, 1, 514)).epsilon(0.01));
    const double table = static_cast<double>(m.vocab * m.hidden);
    CHECK(g.total_flops() == Approx(2 * (m.total_params() - table)).epsilon(0.05));
  }
}

TEST_CASE("prefill FLOPs match the closed form with causal attention", "[workloads]") {
  ModelConfig m = load_model("llama-2-7b");
  OpGraph g = build_forward(m, prefill_pass(2, 2048), Precision{}, AttentionImpl::fused);
  // Logits only for the last position: the LM head runs on 2 rows, not 4096.
  const double lm_head_all_rows = 2.0 * static_cast<double>(m.vocab * m.hidden) * (2 * 2048 - 2);
  CHECK(g.total_flops() == Approx(forward_flops(m, 2, 2048, 2049 / 2.0) - lm_head_all_rows).epsilon(0.01));
}

TEST_CASE("the KV cache read per step: MHA vs GQA, and its dtype", "[workloads]") {
  ModelConfig mha = load_model("llama-2-7b"), gqa = load_model("llama-3-8b");
  const std::int64_t context = 1000;
  auto kv_read = [&](const ModelConfig& m, DType kv) {
    Precision p;
    p.kv = kv;
    return gemm_weight_bytes(build_forward(m, decode_pass(4, context - 1, 0), p, AttentionImpl::fused), "attention");
  };
  CHECK(kv_read(mha, DType::bf16) == Approx(4.0 * context * mha.kv_bytes_per_token(DType::bf16)));
  CHECK(kv_read(gqa, DType::bf16) == Approx(4.0 * context * gqa.kv_bytes_per_token(DType::bf16)));
  CHECK(kv_read(mha, DType::bf16) == Approx(4 * kv_read(gqa, DType::bf16)));  // 32 vs 8 KV heads
  CHECK(kv_read(gqa, DType::fp8) == Approx(kv_read(gqa, DType::bf16) / 2));
}

TEST_CASE("MoE at batch 1 reads only the chosen experts' weights", "[workloads]") {
  ModelConfig m = load_model("mixtral-8x7b");
  OpGraph one = build_forward(m, decode_pass(1, 128, 0), Precision{}, AttentionImpl::fused);
  const double expert_bytes = m.mlp_params_per_expert() * 2;
  CHECK(gemm_weight_bytes(one, "mlp_up") + gemm_weight_bytes(one, "mlp_down") ==
        Approx(static_cast<double>(m.layers * m.experts_per_token) * expert_bytes));
  OpGraph many = build_forward(m, decode_pass(64, 128, 0), Precision{}, AttentionImpl::fused);
  CHECK(gemm_weight_bytes(many, "mlp_up") + gemm_weight_bytes(many, "mlp_down") ==
        Approx(static_cast<double>(m.layers * m.experts) * expert_bytes));
  CHECK(experts_touched(m, 1) == 2);
  CHECK(experts_touched(m, 2) == 4);  // 8 (1 - (3/4)^2) = 3.5, rounded up
}

TEST_CASE("unfused attention moves the score matrix through HBM, fused does not", "[workloads]") {
  ModelConfig m = load_model("llama-2-7b");
  OpGraph fused = build_forward(m, prefill_pass(1, 2048), Precision{}, AttentionImpl::fused);
  OpGraph unfused = build_forward(m, prefill_pass(1, 2048), Precision{}, AttentionImpl::unfused);
  // Per layer: scores written, read and written by softmax, read again: 4 x heads x S x S x 2 B.
  const double scores = 4.0 * 32 * 2048.0 * 2048 * 2 * 32;
  CHECK(unfused.total_bytes() - fused.total_bytes() == Approx(scores).epsilon(0.02));
}

TEST_CASE("vector decode attention: the same KV bytes once per KV head, the work once per query head", "[workloads]") {
  ModelConfig gqa = load_model("llama-3-8b");  // 32 query heads on 8 KV heads
  const std::int64_t context = 1000;
  Precision p;
  p.kv = DType::fp8;
  auto attention_op = [&](const OpGraph& g) {
    for (OpId v = 0; v < g.size(); ++v) {
      if (g.op(v).op_class == "attention") return g.op(v);
    }
    FAIL("no attention op");
    return OpNode{};
  };
  const OpGraph fused = build_forward(gqa, decode_pass(4, context - 1, 0), p, AttentionImpl::fused);
  const OpGraph vector = build_forward(gqa, decode_pass(4, context - 1, 0), p, AttentionImpl::vector);
  const OpNode f = attention_op(fused), v = attention_op(vector);
  REQUIRE(f.is_gemm);
  REQUIRE_FALSE(v.is_gemm);
  // The cache is read once per KV head either way (the group's work items share it on chip).
  const double kv_bytes = 4.0 * context * gqa.kv_bytes_per_token(DType::fp8) / gqa.layers;
  CHECK(static_cast<double>(v.vector.elements_in) * dtype_bytes(v.vector.dtype) == Approx(kv_bytes));
  CHECK(static_cast<double>(f.gemm.batch * f.gemm.b_elements_per_batch()) == Approx(kv_bytes));
  // Each of the 4 query heads of a group does the arithmetic on every element it reads.
  const double per_head = v.vector.flops_per_element / 4;
  CHECK(per_head > 0);
  const OpNode mha = attention_op(build_forward(load_model("llama-2-7b"), decode_pass(4, context - 1, 0), p, AttentionImpl::vector));
  CHECK(mha.vector.flops_per_element == Approx(per_head));
  // Prefill keeps the fused kernel on the matrix units.
  CHECK(attention_op(build_forward(gqa, prefill_pass(1, 512), p, AttentionImpl::vector)).is_gemm);
}

TEST_CASE("batching moves decode to the right on the roofline", "[workloads]") {
  ModelConfig m = load_model("llama-3-8b");
  double previous = 0;
  for (std::int64_t b : {1, 4, 16, 64, 256}) {
    const double i = intensity(build_forward(m, decode_pass(b, 128, 0), Precision{}, AttentionImpl::fused));
    INFO("batch " << b << ": " << i << " FLOP/B");
    CHECK(i > previous);
    previous = i;
  }
  const double one = intensity(build_forward(m, decode_pass(1, 128, 0), Precision{}, AttentionImpl::fused));
  const double b64 = intensity(build_forward(m, decode_pass(64, 128, 0), Precision{}, AttentionImpl::fused));
  CHECK(one == Approx(1.0).epsilon(0.1));
  CHECK(b64 > 30 * one);
}

TEST_CASE("a cyclic graph is refused, naming an op on the cycle", "[workloads]") {
  OpGraph g;
  OpNode a, b;
  a.name = "a";
  a.is_gemm = false;
  a.vector = VectorShape{8, 8, 1};
  a.input_elements = {8};
  b = a;
  b.name = "b";
  OpId ia = g.add(a), ib = g.add(b);
  g.connect(ia, ib, "x", 8, DType::bf16);
  g.connect(ib, ia, "y", 8, DType::bf16);
  CHECK_THROWS_WITH(g.validate(), Catch::Contains("cycle through"));
}

TEST_CASE("a tensor of the wrong size is refused, naming both ops", "[workloads]") {
  OpGraph g;
  OpNode producer;
  producer.name = "producer";
  producer.gemm = GemmShape{1, 4, 64, 32};
  OpNode consumer;
  consumer.name = "consumer";
  consumer.gemm = GemmShape{1, 4, 16, 64};  // reads 4 x 64 = 256 elements
  consumer.input_elements = {256};
  OpId p = g.add(producer), c = g.add(consumer);
  g.connect(p, c, "h", 128, DType::bf16);
  CHECK_THROWS_WITH(g.validate(), Catch::Contains("has 128 elements, but consumer reads 256"));
}

TEST_CASE("every builder graph validates", "[workloads]") {
  for (const char* name : {"llama-2-70b", "mixtral-8x7b", "gpt-3-175b", "palm-540b"}) {
    ModelConfig m = load_model(name);
    for (AttentionImpl a : {AttentionImpl::fused, AttentionImpl::unfused}) {
      CHECK_NOTHROW(build_forward(m, prefill_pass(2, 64), Precision{}, a));
      CHECK_NOTHROW(build_forward(m, decode_pass(3, 64, 5), Precision{}, a));
    }
  }
}

TEST_CASE("Hugging Face config.json import", "[workloads][hf]") {
  const std::string llama = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16"})";
  ModelConfig m = load_hf_config(write_temp(llama, "config") + "");
  CHECK(m.total_params() == Approx(load_model("llama-3-8b").total_params()));
  CHECK(m.kv_heads == 8);

  const std::string mixtral = R"({"model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 32000,
    "num_local_experts": 8, "num_experts_per_tok": 2})";
  CHECK(load_hf_config(write_temp(mixtral, "config")).total_params() ==
        Approx(load_model("mixtral-8x7b").total_params()));

  const std::string gptj = R"({"model_type": "gptj", "n_embd": 4096, "n_layer": 28, "n_head": 16,
    "n_inner": null, "vocab_size": 50400, "rotary_dim": 64})";
  // The import counts GPT-J's MLP biases (up and down, 28 layers), which the TOML preset leaves out.
  CHECK(load_hf_config(write_temp(gptj, "config")).total_params() ==
        Approx(load_model("gpt-j-6b").total_params() + 28.0 * (16384 + 4096)));

  CHECK_THROWS_WITH(load_hf_config(write_temp(R"({"model_type": "bert", "hidden_size": 768})", "config")),
                    Catch::Contains("unsupported architecture 'bert'"));
  CHECK_THROWS_WITH(load_hf_config(write_temp("{\n\"model_type\": \"llama\",\n\"hidden_size\": 4096,,\n}", "config")),
                    Catch::Contains(":3: JSON syntax error"));
  CHECK_THROWS_WITH(load_hf_config(write_temp(R"({"model_type": "llama", "hidden_size": -1})", "config")),
                    Catch::Contains("hidden_size: expected a positive integer"));
}

// Inputs the fuzzers found (fuzz/regressions/hf_config/): each is a ConfigError naming file, line and key.
TEST_CASE("Hugging Face config.json: a number beyond a double, an overflowing width and heads that do not divide are refused", "[workloads][hf]") {
  const std::string big = write_temp("{\"model_type\": \"llama\",\n\"hidden_size\": 1e999}", "config");
  CHECK_THROWS_AS(load_hf_config(big), ConfigError);
  CHECK_THROWS_WITH(load_hf_config(big), Catch::StartsWith(big + ":2: hidden_size: a number beyond what a double holds") && Catch::Contains("number overflow"));

  const std::string gptj = write_temp("{\"model_type\": \"gptj\", \"n_embd\": 4611686018427387904,\n\"n_layer\": 1, \"n_head\": 1, \"vocab_size\": 1}", "config");
  CHECK_THROWS_AS(load_hf_config(gptj), ConfigError);
  CHECK_THROWS_WITH(load_hf_config(gptj), Catch::StartsWith(gptj + ":1: n_embd: too large"));

  const std::string heads = write_temp("{\"model_type\": \"llama\", \"hidden_size\": 8, \"num_hidden_layers\": 1,\n\"num_attention_heads\": 16, \"intermediate_size\": 8, \"vocab_size\": 8}", "config");
  CHECK_THROWS_WITH(load_hf_config(heads), Catch::StartsWith(heads + ":2: num_attention_heads: does not divide hidden_size"));
  const std::string neox = write_temp("{\"model_type\": \"gpt_neox\", \"hidden_size\": 8, \"num_hidden_layers\": 1,\n\"num_attention_heads\": 3, \"intermediate_size\": 8, \"vocab_size\": 8}", "config");
  CHECK_THROWS_WITH(load_hf_config(neox), Catch::StartsWith(neox + ":2: num_attention_heads: does not divide the hidden size"));
}

TEST_CASE("parameter counts of huge models do not overflow", "[workloads]") {
  // hidden x experts is 2^64: counted in doubles (it overflowed std::int64_t: fuzz_model).
  ModelConfig m;
  m.hidden = std::int64_t{1} << 40;
  m.layers = m.heads = m.kv_heads = m.head_dim = m.intermediate = m.vocab = 1;
  m.experts = std::int64_t{1} << 24;
  const double two64 = 18446744073709551616.0;
  // attention 4 x hidden, experts x 3 x hidden x intermediate, the router hidden x experts, two norms
  CHECK(m.params_per_layer() == Approx(4 * 0x1p40 + 3 * two64 + two64 + 2 * 0x1p40));
}

TEST_CASE("pipeline graphs: layers split over stages, one send per micro-batch per stage boundary", "[workloads]") {
  ModelConfig m = load_model("llama-2-13b");  // 40 layers
  ForwardPass pass = decode_pass(8, 128, 0);
  pass.pp = 4;
  pass.microbatches = 4;
  OpGraph g = build_forward(m, pass, Precision{}, AttentionImpl::fused);
  int sends = 0, devices_seen = 0;
  std::vector<int> qkv_per_device(4, 0);
  for (OpId v = 0; v < g.size(); ++v) {
    const OpNode& op = g.op(v);
    sends += op.send_to_next;
    if (op.op_class == "qkv") ++qkv_per_device[static_cast<std::size_t>(op.device)];
  }
  for (int n : qkv_per_device) devices_seen += n > 0;
  CHECK(sends == 3 * 4);
  CHECK(devices_seen == 4);
  CHECK(qkv_per_device[0] == 10 * 4);  // 10 layers x 4 micro-batches
  // The same FLOPs as without the pipeline.
  CHECK(g.total_flops() == Approx(build_forward(m, decode_pass(8, 128, 0), Precision{}, AttentionImpl::fused).total_flops()));
  pass.microbatches = 3;
  CHECK_THROWS_WITH(build_forward(m, pass, Precision{}, AttentionImpl::fused), Catch::Contains("must divide the batch"));
}

TEST_CASE("the chip layout: stage-major, then EP rank, then TP rank", "[workloads]") {
  const ChipLayout l{2, 4, 3};  // tp 2, ep 4, pp 3
  CHECK(l.chips() == 24);
  CHECK(l.stage_base(1) == 8);
  CHECK(l.chip(1, 2, 1) == 8 + 2 * 2 + 1);
  CHECK(l.tp_group(1, 2) == std::vector<int>{12, 13});         // consecutive: same stage and EP rank
  CHECK(l.ep_group(2, 1) == std::vector<int>{17, 19, 21, 23});  // every tp-th chip of the stage
}

TEST_CASE("EP with TP and PP: experts TP-split, attention TP-split over batch / (ep x micro-batches)", "[workloads]") {
  ModelConfig m = load_model("mixtral-8x7b");
  ForwardPass pass = decode_pass(16, 128, 0);
  pass.tp = 2;
  pass.ep = 4;
  pass.pp = 2;
  pass.microbatches = 2;
  OpGraph g = build_forward(m, pass, Precision{}, AttentionImpl::fused);
  int all_to_alls = 0, all_reduces = 0, sends = 0;
  for (OpId v = 0; v < g.size(); ++v) {
    const OpNode& op = g.op(v);
    all_to_alls += op.all_to_all;
    all_reduces += op.is_collective && !op.all_to_all && !op.send_to_next;
    sends += op.send_to_next;
    if (op.op_class == "qkv") {
      CHECK(op.gemm.m == 16 / 4 / 2);  // this EP rank's sequences of one micro-batch
      CHECK(op.gemm.n == (m.heads / 2 + 2 * m.kv_heads / 2) * m.head_dim);
    }
    if (op.op_class == "mlp_up") CHECK(op.gemm.n == 2 * m.intermediate / 2);  // gate and up, half the columns
  }
  CHECK(all_to_alls == 2 * 32 * 2);  // dispatch and combine, every layer, each micro-batch
  CHECK(all_reduces == 2 * 32 * 2);  // attention and expert outputs over the TP group
  CHECK(sends == 2);                 // one stage boundary, two micro-batches
  pass.batch = 12;                   // 12 sequences do not go 4 x 2 ways
  // The library names the setting (ep); the CLI shows it as its flag.
  std::string message;
  try {
    build_forward(m, pass, Precision{}, AttentionImpl::fused);
  } catch (const InputError& e) {
    message = render_setting_names(e.raw(), SettingNames::flag);
  }
  CHECK_THAT(message, Catch::Contains("--ep 4 x 2 micro-batches must divide the batch (12)"));
}

TEST_CASE("every registered attention kernel reads the whole KV cache in decode and does the attention FLOPs", "[workloads]") {
  // Covers kernels added later too: whatever ops a kernel builds, a decode step must read each
  // cached K and V element at least once and multiply it with every query head of its group.
  const ModelConfig m = load_model("mistral-7b");  // GQA: 4 query heads per KV head
  const std::int64_t batch = 4, context = 1024;
  const double kv_bytes = static_cast<double>(batch * m.kv_heads * (context + 1) * 2 * m.head_dim) * dtype_bytes(DType::bf16);
  const double min_flops = 2.0 * 2.0 * static_cast<double>(batch * m.heads * (context + 1) * m.head_dim);  // QK^T and AV
  CHECK(attention_kernels().names().size() >= 3);
  for (const std::string& name : attention_kernels().names()) {
    INFO(name);
    const OpGraph g = build_forward(m, decode_pass(batch, context, 0), Precision{}, AttentionImpl{name});
    double bytes = 0, flops = 0;
    for (OpId v = 0; v < g.size(); ++v) {
      const OpNode& op = g.op(v);
      if (op.op_class.rfind("attention", 0) != 0 && op.op_class != "softmax") continue;
      bytes += op.cost().bytes();
      flops += op.cost().flops;
    }
    CHECK(bytes >= kv_bytes);
    CHECK(flops >= min_flops * (1 - 1e-9));
    CHECK_NOTHROW(build_forward(m, prefill_pass(1, 256), Precision{}, AttentionImpl{name}));
  }
  CHECK_THROWS_WITH(parse_attention("flash", "--attention"), Catch::Contains("expected one of fused, trtllm, unfused, vector"));
}
