// The analytic model reproduces the roofline numbers everyone quotes.
#include <catch2/catch.hpp>

#include "core/hardware.hpp"
#include "validation/analytic.hpp"
#include "validation/workload_bounds.hpp"
#include "workloads/model.hpp"

using namespace roofsim;

TEST_CASE("derived peaks reproduce the datasheets", "[analytic]") {
  HardwareSpec h100 = load_hardware("h100_sxm5");
  CHECK(h100.matrix_peak_flops(DType::bf16) == Approx(989.4e12).epsilon(0.001));
  CHECK(h100.matrix_peak_flops(DType::fp8) == Approx(1979e12).epsilon(0.001));
  CHECK(h100.matrix_peak_flops(DType::tf32) == Approx(494.5e12).epsilon(0.001));
  CHECK(h100.vector_peak_flops() == Approx(67.0e12).epsilon(0.002));
  CHECK(h100.matrix_peak_flops(DType::int4) == 0);

  HardwareSpec v4 = load_hardware("tpu_v4");
  CHECK(v4.matrix_peak_flops(DType::bf16) == Approx(275e12).epsilon(0.001));
  CHECK(v4.matrix_peak_flops(DType::int8) == Approx(275e12).epsilon(0.001));

  HardwareSpec a100 = load_hardware("a100_sxm4_80gb");
  CHECK(a100.matrix_peak_flops(DType::bf16) == Approx(312e12).epsilon(0.001));
  CHECK(a100.matrix_peak_flops(DType::int8) == Approx(624e12).epsilon(0.001));
  CHECK(a100.vector_peak_flops() == Approx(19.5e12).epsilon(0.001));
}

TEST_CASE("ridge points", "[analytic]") {
  CHECK(roofline_for(load_hardware("h100_sxm5"), DType::bf16).ridge() == Approx(295).epsilon(0.005));
  CHECK(roofline_for(load_hardware("h100_sxm5"), DType::fp8).ridge() == Approx(590).epsilon(0.005));
  CHECK(roofline_for(load_hardware("a100_sxm4_80gb"), DType::bf16).ridge() == Approx(153).epsilon(0.005));
  CHECK(roofline_for(load_hardware("tpu_v4"), DType::bf16).ridge() == Approx(229).epsilon(0.005));
}

TEST_CASE("attainable FLOP/s follows min(peak, bandwidth x intensity)", "[analytic]") {
  Roofline h100 = roofline_for(load_hardware("h100_sxm5"), DType::bf16);
  CHECK(h100.attainable(1.0) == Approx(3.35e12));
  CHECK(h100.attainable(100.0) == Approx(335e12));
  CHECK(h100.attainable(h100.ridge()) == Approx(h100.peak_flops));
  CHECK(h100.attainable(10 * h100.ridge()) == Approx(h100.peak_flops));
}

TEST_CASE("GEMM, GEMV, batched GEMM and vector op bounds", "[analytic]") {
  HardwareSpec h = load_hardware("h100_sxm5");
  SECTION("a large square GEMM is compute-bound") {
    OpBound b = bound_op(gemm_cost({1, 8192, 8192, 8192}), h);
    CHECK(b.flops == Approx(2.0 * 8192.0 * 8192.0 * 8192.0));
    CHECK(b.bytes == Approx(3.0 * 8192.0 * 8192.0 * 2));
    CHECK(b.intensity == Approx(8192.0 / 3));
    CHECK(b.roof == Roof::compute);
    CHECK(b.bound_time_s == Approx(b.flops / 989.4e12).epsilon(0.001));
  }
  SECTION("a GEMV is memory-bound at about 1 FLOP/byte") {
    OpBound b = bound_op(gemm_cost({1, 1, 4096, 4096}), h);
    CHECK(b.intensity == Approx(1.0).epsilon(0.001));
    CHECK(b.roof == Roof::memory);
    CHECK(b.bound_time_s == Approx(b.bytes / 3.35e12));
  }
  SECTION("batched GEMM multiplies both counts") {
    OpCost one = gemm_cost({1, 128, 128, 64});
    OpCost many = gemm_cost({32, 128, 128, 64});
    CHECK(many.flops == Approx(32 * one.flops));
    CHECK(many.bytes() == Approx(32 * one.bytes()));
  }
  SECTION("int4 weights halve the weight bytes of int8") {
    GemmShape g{1, 1, 4096, 4096, DType::bf16, DType::int8, DType::bf16};
    double int8_bytes = gemm_cost(g).read_bytes;
    g.b = DType::int4;
    CHECK(int8_bytes - gemm_cost(g).read_bytes == Approx(4096.0 * 4096 / 2));
  }
  SECTION("an element-wise add runs on the vector roof") {
    OpBound b = bound_op(vector_cost({2 << 20, 1 << 20, 0.5, DType::fp32}), h);
    CHECK(b.bytes == Approx(12.0 * (1 << 20)));
    CHECK(b.flops == Approx(1 << 20));
    CHECK(b.roof == Roof::memory);
  }
  SECTION("a row reduction writes one value per row") {
    OpCost c = vector_cost({1024 * 4096, 1024, 1, DType::bf16});
    CHECK(c.write_bytes == Approx(2048));
    CHECK(c.read_bytes == Approx(1024.0 * 4096 * 2));
  }
}

TEST_CASE("an 8B fp16 model at batch 1 on H100: 4.78 ms per token, 209 tokens/s", "[analytic]") {
  HardwareSpec h = load_hardware("h100_sxm5");
  double step = decode_step_bound_s(8e9 * 2, 0, h.hbm.bandwidth);
  CHECK(step == Approx(4.776e-3).epsilon(0.001));
  CHECK(1.0 / step == Approx(209.4).epsilon(0.002));
}

TEST_CASE("model sizes match the published parameter counts", "[analytic]") {
  CHECK(load_model("llama-2-7b").total_params() == Approx(6.74e9).epsilon(0.005));
  CHECK(load_model("llama-2-13b").total_params() == Approx(13.0e9).epsilon(0.005));
  CHECK(load_model("llama-2-70b").total_params() == Approx(68.98e9).epsilon(0.005));
  CHECK(load_model("llama-3-8b").total_params() == Approx(8.03e9).epsilon(0.005));
  CHECK(load_model("llama-3-70b").total_params() == Approx(70.55e9).epsilon(0.005));
  CHECK(load_model("mistral-7b").total_params() == Approx(7.24e9).epsilon(0.005));
  CHECK(load_model("mixtral-8x7b").total_params() == Approx(46.7e9).epsilon(0.005));
  CHECK(load_model("mixtral-8x7b").active_params_per_token() == Approx(12.9e9).epsilon(0.01));
  CHECK(load_model("gpt-j-6b").total_params() == Approx(6.05e9).epsilon(0.01));
  CHECK(load_model("gpt-3-175b").total_params() == Approx(175e9).epsilon(0.01));
  CHECK(load_model("palm-540b").total_params() == Approx(540e9).epsilon(0.01));
}

TEST_CASE("KV cache per token: GQA and MQA shrink it by the head ratio", "[analytic]") {
  ModelConfig l2 = load_model("llama-2-7b");  // MHA, 32 KV heads
  ModelConfig l3 = load_model("llama-3-8b");  // GQA, 8 KV heads
  CHECK(l2.kv_bytes_per_token(DType::bf16) == Approx(2.0 * 32 * 32 * 128 * 2));
  CHECK(l3.kv_bytes_per_token(DType::bf16) == Approx(2.0 * 32 * 8 * 128 * 2));
  CHECK(l3.kv_bytes_per_token(DType::fp8) == Approx(l3.kv_bytes_per_token(DType::bf16) / 2));
  CHECK(load_model("palm-540b").kv_bytes_per_token(DType::bf16) == Approx(2.0 * 118 * 1 * 256 * 2));
}

TEST_CASE("inference bounds: decode memory-bound at batch 1, prefill compute-bound", "[analytic]") {
  HardwareSpec h = load_hardware("h100_sxm5");
  ModelConfig m = load_model("llama-3-8b");
  InferenceSetup s;  // batch 1, prompt 512, gen 128, bf16
  InferenceBound b = bound_inference(m, h, s);
  // Decode reads every weight but the input embedding table, plus the KV cache.
  double table = 128256.0 * 4096 * 2;
  double expected = (m.total_params() * 2 - table + (512 + 64) * m.kv_bytes_per_token(DType::bf16)) /
                    h.hbm.bandwidth;
  CHECK(b.tpot_s == Approx(expected).epsilon(1e-9));
  CHECK(b.decode_mean.memory_time_s > 50 * b.decode_mean.compute_time_s);
  CHECK(b.decode_mean.intensity() == Approx(1.0).epsilon(0.05));
  CHECK(b.prefill.compute_time_s > b.prefill.memory_time_s);
  // Batching moves decode to the right on the roofline.
  s.batch = 64;
  InferenceBound b64 = bound_inference(m, h, s);
  CHECK(b64.decode_mean.intensity() > 30 * b.decode_mean.intensity());
}

TEST_CASE("MoE at batch 1 reads only the chosen experts", "[analytic]") {
  HardwareSpec h = load_hardware("h100_sxm5");
  ModelConfig m = load_model("mixtral-8x7b");
  InferenceSetup s;
  InferenceBound b = bound_inference(m, h, s);
  double table = 32000.0 * 4096 * 2;
  double expected = m.active_params_per_token() * 2 - table;
  CHECK(b.decode_mean.bytes - 576 * m.kv_bytes_per_token(DType::bf16) == Approx(expected));
}
