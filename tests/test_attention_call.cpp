// TensorRT-LLM's attention call as roofsim builds it (experiment/single_op.hpp,
// attention_call_ops; workloads/attention_kernels/trtllm.cpp): which kernels run, and what the
// CTA waves of the FMHA and of the decode kernels cost.
#include <catch2/catch.hpp>

#include "tests/op_spec_util.hpp"
#include "experiment/single_op.hpp"
#include "experiment/stack.hpp"
#include "workloads/transformer.hpp"

using namespace roofsim;
using roofsim::test::op_names;

namespace {
AttentionShape shape(bool prefill, std::int64_t batch, std::int64_t tokens, std::int64_t heads, std::int64_t kv_heads,
                     DType kv = DType::bf16) {
  AttentionShape s;
  s.prefill = prefill;
  s.sequences = batch;
  s.heads = heads;
  s.kv_heads = kv_heads;
  s.head_dim = 128;
  s.new_tokens = prefill ? tokens : 1;
  s.context = prefill ? tokens : tokens + 1;
  s.precision.kv = kv;
  return s;
}


double call_seconds(const std::vector<OpSpec>& ops, const HardwareSpec& hw) {
  const OpsRunResult r = run_ops(hw, false, ops);
  return to_seconds(r.ops.back().result.end_ps - r.ops.front().result.start_ps);
}
}  // namespace

TEST_CASE("TensorRT-LLM's attention call: the kernels it launches and the decode kernel its dispatcher picks", "[systemc][attention]") {
  // Prefill: decoder info, QKV preprocessing, the FMHA with one CTA per sequence, head and
  // 128-row query tile.
  const std::vector<OpSpec> prefill = attention_call_ops(shape(true, 2, 300, 32, 8), "trtllm");
  REQUIRE(op_names(prefill).size() == 3);
  CHECK(op_names(prefill)[0] == "decoder info");
  CHECK(op_names(prefill)[1] == "qkv preprocessing");
  CHECK(prefill[2].is_gemm);
  CHECK(prefill[2].gemm.kernel_ctas == 2 * 32 * 3);
  CHECK_FALSE(prefill[2].gemm.decode_kernel);
  // On a bf16 cache the FMHA runs in bf16 on the prompt's own keys; on an fp8 cache it is
  // TensorRT-LLM's FP8 context FMHA: fp8 queries against the fp8 paged cache, bf16 out.
  CHECK(prefill[2].gemm.a == DType::bf16);
  CHECK(prefill[2].gemm.b == DType::bf16);
  const OpSpec fp8_context = attention_call_ops(shape(true, 2, 300, 32, 8, DType::fp8), "trtllm").back();
  CHECK(fp8_context.gemm.a == DType::fp8);
  CHECK(fp8_context.gemm.b == DType::fp8);
  CHECK(fp8_context.gemm.c == DType::bf16);
  // Whole key tiles (fmha_v2's Hopper key loop: 128 keys at head dim 128 in bf16, 256 in fp8):
  // 300 tokens in query tiles of 128, 128 and 44 rows compute 128, 256 and 300 keys each (every
  // key tile up to the diagonal, the last one cut at the context), where the exact causal
  // average is (300 + 2) / 2 = 151.
  CHECK(prefill[2].gemm.k == 151);
  CHECK(prefill[2].gemm.kernel_keys == (128 * 128 + 128 * 256 + 44 * 300 + 299) / 300);
  CHECK(fp8_context.gemm.kernel_keys == (128 * 256 + 128 * 256 + 44 * 300 + 299) / 300);  // capped at the context
  // A 128-key window: each query tile touches two key tiles (256 keys) where it attends to 128.
  AttentionShape windowed = shape(true, 1, 1024, 32, 8);
  windowed.window = 128;
  const OpSpec band = attention_call_ops(windowed, "trtllm").back();
  CHECK(band.gemm.k <= 128);
  CHECK(band.gemm.kernel_keys >= 2 * 128 - 16);
  // The plain fused kernel keeps the prompt's keys in bf16 and computes in bf16.
  const OpSpec fused_fp8_cache = attention_call_ops(shape(true, 2, 300, 32, 8, DType::fp8), "fused").back();
  CHECK(fused_fp8_cache.gemm.a == DType::bf16);
  CHECK(fused_fp8_cache.gemm.b == DType::bf16);

  // Decode, GQA with enough work: XQA, after the preprocessing on a bf16 cache, alone on fp8.
  const AttentionShape xqa = shape(false, 64, 2048, 32, 8);
  CHECK(trtllm_decode_kernel(xqa) == TrtllmDecodeKernel::xqa);
  CHECK(attention_call_ops(xqa, "trtllm").size() == 2);
  CHECK(attention_call_ops(shape(false, 64, 2048, 32, 8, DType::fp8), "trtllm").size() == 1);
  const OpSpec& x = attention_call_ops(xqa, "trtllm").back();
  CHECK(x.gemm.decode_kernel);
  CHECK(x.gemm.kernel_k_splits > 1);  // multi-block: the keys split over CTAs
  CHECK(x.gemm.kernel_ctas == 64 * 8 * x.gemm.kernel_k_splits);
  // Its CTAs as XQA's two Hopper kernels are built: on a bf16 cache mha.cu, one CTA per SM (its
  // shared memory), the group's 4 query rows padded to 16; on an fp8 cache mha_sm90.cu, 3 per
  // SM up to 2048 query elements (its launch bounds), else 2, rows padded to 8.
  CHECK(x.gemm.gqa_decode_kernel);
  CHECK(x.gemm.kernel_ctas_per_unit == 1);
  CHECK(x.gemm.kernel_cta_query_elements == 16 * 128);
  const OpSpec& q = attention_call_ops(shape(false, 64, 2048, 32, 8, DType::fp8), "trtllm").back();
  CHECK(q.gemm.kernel_ctas_per_unit == 3);
  CHECK(q.gemm.kernel_cta_query_elements == 8 * 128);
  const OpSpec& q32 = attention_call_ops(shape(false, 64, 2048, 64, 2, DType::fp8), "trtllm").back();
  CHECK(q32.gemm.kernel_ctas_per_unit == 2);
  CHECK(q32.gemm.kernel_cta_query_elements == 32 * 128);
  // The generic fused kernel's decode is not XQA.
  CHECK_FALSE(attention_call_ops(xqa, "fused").back().gemm.gqa_decode_kernel);

  // The gate: KV heads x sequences x 128-token blocks x 4 >= 132 SMs. 8 x 1 x 4 x 4 = 128 is
  // not enough at 512 cached tokens; at 1024 it is.
  CHECK(trtllm_decode_kernel(shape(false, 1, 512, 32, 8)) == TrtllmDecodeKernel::mmha);
  CHECK(trtllm_decode_kernel(shape(false, 1, 1024, 32, 8)) == TrtllmDecodeKernel::xqa);
  // Below the gate an fp8 cache under bf16 queries still runs XQA: MMHA does not take it.
  CHECK(trtllm_decode_kernel(shape(false, 1, 512, 32, 8, DType::fp8)) == TrtllmDecodeKernel::xqa);
  // Plain MHA and groups beyond 32 heads run MMHA: one vector op, RoPE and the cache write inside.
  for (const AttentionShape& s : {shape(false, 64, 2048, 32, 32), shape(false, 64, 2048, 128, 2)}) {
    CHECK(trtllm_decode_kernel(s) == TrtllmDecodeKernel::mmha);
    const std::vector<OpSpec> ops = attention_call_ops(s, "trtllm");
    REQUIRE(ops.size() == 1);
    CHECK_FALSE(ops[0].is_gemm);
    CHECK(ops[0].vector.kernel_ctas == s.sequences * s.heads);
    CHECK(ops[0].vector.decode_kernel);
  }
  // Other kernels build their ops alone.
  CHECK(attention_call_ops(xqa, "fused").size() == 1);
}

TEST_CASE("An attention kernel pays its CTAs fixed latency once per wave of resident CTAs and the ideal chip drops it", "[systemc][attention]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  REQUIRE(hw.matrix.attention_cta_cycles > 0);
  // One-token prompts: the FMHA is all CTAs and no work. 132 x 8 CTAs take 8 waves, 132 x 16
  // take 16: the second call is later by 8 waves' fixed cycles (within the small work).
  const double wave = hw.matrix.attention_cta_cycles / hw.matrix.sustained_clock_hz;
  const double t8 = call_seconds({attention_call_ops(shape(true, 132, 1, 8, 8), "fused")}, hw);
  const double t16 = call_seconds({attention_call_ops(shape(true, 264, 1, 8, 8), "fused")}, hw);
  CHECK(t8 >= 8 * wave);
  CHECK(t16 - t8 == Approx(8 * wave).epsilon(0.15));
  const double ideal = call_seconds({attention_call_ops(shape(true, 264, 1, 8, 8), "fused")}, make_ideal(hw));
  CHECK(ideal < 0.1 * t16);
}

TEST_CASE("XQA's CTA costs keep its SMs busy while the keys stream: they add up where the keys are few and hide where HBM binds, and its blocks' merge comes after", "[systemc][attention]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  REQUIRE(hw.matrix.gqa_decode_cta_cycles > 0);
  REQUIRE(hw.matrix.gqa_decode_cycles_per_query_element > 0);
  HardwareSpec free_ctas = hw;
  free_ctas.matrix.gqa_decode_cta_cycles = 0;
  free_ctas.matrix.gqa_decode_cycles_per_query_element = 0;
  // One CTA per SM on a bf16 cache: each costs the fixed cycles and 16 x 128 query elements.
  const double per_cta =
      (hw.matrix.gqa_decode_cta_cycles + 16 * 128 * hw.matrix.gqa_decode_cycles_per_query_element) / hw.matrix.sustained_clock_hz;
  // A two-token cache: the CTAs are the work. 132 sequences of 8 KV heads are 8 CTAs per SM,
  // 264 are 16: the second call is later by 8 CTAs' costs.
  const auto xqa_seconds = [](const AttentionShape& s, const HardwareSpec& h) {
    REQUIRE(trtllm_decode_kernel(s) == TrtllmDecodeKernel::xqa);
    return call_seconds({attention_call_ops(s, "trtllm").back()}, h);
  };
  const double t8 = xqa_seconds(shape(false, 132, 1, 32, 8), hw);
  const double t16 = xqa_seconds(shape(false, 264, 1, 32, 8), hw);
  CHECK(t8 >= 8 * per_cta);
  CHECK(t16 - t8 == Approx(8 * per_cta).epsilon(0.1));
  // A long cache at batch 64: reading 4 GiB of keys and values takes far longer than the CTAs'
  // costs, which the streaming hides almost wholly.
  const AttentionShape long_cache = shape(false, 64, 16384, 32, 8);
  const std::int64_t ctas = attention_call_ops(long_cache, "trtllm").back().gemm.kernel_ctas;
  const double cta_work = static_cast<double>((ctas + 131) / 132) * per_cta;
  const double with = xqa_seconds(long_cache, hw), without = xqa_seconds(long_cache, free_ctas);
  CHECK(with > without);
  CHECK(with - without < 0.25 * cta_work);
  // One sequence of 16k tokens: multi-block mode splits it into 32 blocks of 512, whose last
  // CTA merges them one after another, after the rest: the call is later by 32 merges.
  const AttentionShape one = shape(false, 1, 16384, 32, 8);
  const OpSpec xqa_one = attention_call_ops(one, "trtllm").back();
  REQUIRE(xqa_one.gemm.kernel_k_splits == 32);
  HardwareSpec no_merge = hw;
  no_merge.matrix.gqa_decode_merge_cycles_per_block = 0;
  const double merges = 32 * hw.matrix.gqa_decode_merge_cycles_per_block / hw.matrix.sustained_clock_hz;
  REQUIRE(merges > 0);
  CHECK(xqa_seconds(one, hw) - xqa_seconds(one, no_merge) == Approx(merges).epsilon(0.01));
}

TEST_CASE("A chip plans a context FMHA with whole CTAs even after the same shape ran without counted CTAs", "[systemc][attention]") {
  // The chip keeps one plan per GEMM shape; whether the kernel counts its CTAs (and so keeps
  // them whole) and whether it is a decode kernel change the plan, so they are part of the key.
  const HardwareSpec hw = load_hardware("h100_sxm5");
  GemmShape plain{2, 512, 128, 512, DType::bf16, DType::bf16, DType::bf16, true};
  GemmShape fmha = plain;
  fmha.kernel_ctas = 2 * 4 * 4;  // few CTAs: a free tiler would split them over the SMs
  const OpsRunResult alone = run_ops(hw, false, {gemm_op(fmha, "fmha")});
  const OpsRunResult after = run_ops(hw, false, {gemm_op(plain, "plain"), gemm_op(fmha, "fmha")});
  const auto duration = [](const SimulatedOp& op) { return op.result.end_ps - op.result.start_ps; };
  CHECK(after.ops.back().result.plan == alone.ops.front().result.plan);
  CHECK(duration(after.ops.back()) == duration(alone.ops.front()));
  CHECK(after.ops.front().result.plan != alone.ops.front().result.plan);  // the shapes do plan differently
}

TEST_CASE("MMHA launches as TensorRT-LLM's launcher sizes it: CTAs of 256 to 1024 threads, keys split over CTAs when the pairs cannot fill the SMs", "[systemc][attention]") {
  auto mmha = [](std::int64_t batch, std::int64_t tokens, std::int64_t heads, std::int64_t window = 0) {
    AttentionShape s = shape(false, batch, tokens, heads, heads);
    s.window = window;
    REQUIRE(trtllm_decode_kernel(s) == TrtllmDecodeKernel::mmha);
    const std::vector<OpSpec> ops = attention_call_ops(s, "trtllm");
    REQUIRE(ops.size() == 1);
    return std::pair{ops[0].vector.kernel_ctas, ops[0].vector.kernel_ctas_per_unit};
  };
  // 2048 (sequence, head) pairs fill 132 SMs x 4 CTAs of 256 threads: one CTA per pair.
  CHECK(mmha(64, 2048, 32) == std::pair<std::int64_t, std::int64_t>{2048, 4});
  // 192 pairs: CTAs of 512 threads (two per SM by registers), still one per pair.
  CHECK(mmha(8, 4096, 24) == std::pair<std::int64_t, std::int64_t>{192, 2});
  // 32 pairs: CTAs of 1024 threads, one per SM, each pair's keys split over ceil(132 / 32) = 5
  // CTAs (at most one wave's worth), as long as each gets a pass of the key loop (512 keys at
  // head dim 128); 100 keys are one pass, so no split.
  CHECK(mmha(8, 2048, 4) == std::pair<std::int64_t, std::int64_t>{160, 1});
  CHECK(mmha(8, 100, 4) == std::pair<std::int64_t, std::int64_t>{32, 1});
  // A sliding window reads 128 keys but the split counts the whole context, as the launcher does.
  CHECK(mmha(8, 32767, 4, 128) == std::pair<std::int64_t, std::int64_t>{160, 1});
  // Shared memory holds each CTA's scores (24 bytes per 4 keys of 225 KiB): 100,001 keys need 3 CTAs.
  CHECK(mmha(1, 100000, 528) == std::pair<std::int64_t, std::int64_t>{3 * 528, 4});
}

TEST_CASE("The softmax's exponentials cost the MMAs only their exposed share: the time grows linearly with it", "[systemc][attention]") {
  // A compute-bound causal prefill (4 prompts of 4096 tokens, 32 query heads of 128): the
  // exponentials on the SFUs (16 per clock per SM) are about a third of the serialized time.
  const HardwareSpec h100 = load_hardware("h100_sxm5");
  CHECK(h100.matrix.exp_exposed_share == Approx(0.8));  // the Hopper FMHA's, fitted (configs/hardware)
  CHECK(load_hardware("a100_sxm4_80gb").matrix.exp_exposed_share == 1.0);
  auto seconds = [&](double share) {
    HardwareSpec hw = h100;
    hw.matrix.exp_exposed_share = share;
    return call_seconds({attention_call_ops(shape(true, 4, 4096, 32, 8), "fused").back()}, hw);
  };
  const double none = seconds(0), half = seconds(0.5), all = seconds(1);
  INFO("hidden " << none << " s, half " << half << " s, exposed " << all << " s");
  CHECK(none < half);
  CHECK(half < all);
  CHECK(half - none == Approx((all - none) / 2).epsilon(0.1));
  // At head dim 128 the exponentials take about half the MMAs' time (8 scores per clock per SM
  // on the tensor cores, 16 on the SFUs): exposed, the call is about 1.5x the hidden one.
  CHECK(all / none == Approx(1.5).epsilon(0.1));
}

TEST_CASE("An fp8 context FMHA runs head 192 at 256, as fmha_v2 pads it, where bf16 keeps 192", "[systemc][attention]") {
  // kernel_traits.h: D = min(round_up(head, 128 / element bytes), next power of two).
  auto fmha = [](std::int64_t head, DType kv) {
    AttentionShape s = shape(true, 4, 4096, 32, 8, kv);
    s.head_dim = head;
    return attention_call_ops(s, "trtllm").back();
  };
  CHECK(fmha(192, DType::fp8).gemm.kernel_head_dim == 256);
  CHECK(fmha(192, DType::bf16).gemm.kernel_head_dim == 0);  // 192 is whole 128-byte rows in bf16
  CHECK(fmha(128, DType::fp8).gemm.kernel_head_dim == 0);
  CHECK(fmha(96, DType::bf16).gemm.kernel_head_dim == 128);
  CHECK(fmha(192, DType::fp8).gemm.kernel_value_dim == 256);
  // MLA's prefill: query/key head 192, value head 128 - only QK^T is padded.
  AttentionShape mla = shape(true, 4, 4096, 32, 32, DType::fp8);
  mla.head_dim = 192;
  mla.v_dim = 128;
  const OpSpec mla_fmha = attention_call_ops(mla, "trtllm").back();
  CHECK(mla_fmha.gemm.kernel_head_dim == 256);
  CHECK(mla_fmha.gemm.kernel_value_dim == 0);
  // A compute-bound call: the MMAs at 256 where the data is 192 cost what head 256 costs, less
  // the exponentials' and the bytes' share; the FLOPs stay head 192's.
  const HardwareSpec hw = load_hardware("h100_sxm5");
  const OpsRunResult padded = run_ops(hw, false, {fmha(192, DType::fp8)});
  const OpsRunResult wide = run_ops(hw, false, {fmha(256, DType::fp8)});
  const OpsRunResult bf16 = run_ops(hw, false, {fmha(192, DType::bf16)}), bf16_wide = run_ops(hw, false, {fmha(256, DType::bf16)});
  const double fp8_ratio = padded.ops.front().result.seconds() / wide.ops.front().result.seconds();
  const double bf16_ratio = bf16.ops.front().result.seconds() / bf16_wide.ops.front().result.seconds();
  INFO("fp8 192/256 " << fp8_ratio << ", bf16 192/256 " << bf16_ratio);
  CHECK(fp8_ratio > 0.95);
  CHECK(fp8_ratio <= 1.0);
  CHECK(bf16_ratio < 0.9);
  CHECK(padded.ops.front().result.flops == Approx(wide.ops.front().result.flops * 192.0 / 256.0).epsilon(0.01));
}

TEST_CASE("XQA on an fp8 cache applies RoPE itself only to a rotary part within the head, in multiples of 16", "[systemc][attention]") {
  // kernelUtils.cpp, appliesRoPEInXqaKernel; otherwise invokeQKVPreprocessing runs first, as it
  // always does before XQA on a 16-bit cache. The public benchmark rotates 128 dims at every head.
  auto kernels = [](std::int64_t head, std::int64_t rotary, DType kv) {
    AttentionShape s = shape(false, 64, 2048, 32, 8, kv);
    s.head_dim = head;
    s.rotary_dim = rotary;
    REQUIRE(trtllm_decode_kernel(s) == TrtllmDecodeKernel::xqa);
    const std::vector<OpSpec> ops = attention_call_ops(s, "trtllm");
    REQUIRE(ops.back().is_gemm);  // XQA
    return ops.size() == 2 && ops.front().name == "qkv preprocessing" ? "separate" : ops.size() == 1 ? "fused" : "?";
  };
  CHECK(std::string(kernels(128, 0, DType::fp8)) == "fused");       // the whole head
  CHECK(std::string(kernels(256, 128, DType::fp8)) == "fused");     // a partial rotary part
  CHECK(std::string(kernels(64, 128, DType::fp8)) == "separate");   // wider than the head
  CHECK(std::string(kernels(128, 72, DType::fp8)) == "separate");   // not a multiple of 16
  CHECK(std::string(kernels(128, 0, DType::bf16)) == "separate");   // mha.cu never fuses it
}

TEST_CASE("XQA's Hopper kernel on an fp8 cache pays its own CTA cost, or the 16-bit kernel's where it has none", "[systemc][attention]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  REQUIRE(hw.matrix.gqa_decode_qgmma_cta_cycles > 0);
  REQUIRE(hw.matrix.gqa_decode_qgmma_cta_cycles != hw.matrix.gqa_decode_cta_cycles);
  // A two-token cache: the CTAs are the work, so the call's time follows the wave cost.
  const AttentionShape fp8 = shape(false, 264, 1, 32, 8, DType::fp8);
  const OpSpec xqa = attention_call_ops(fp8, "trtllm").back();
  HardwareSpec shared = hw;
  shared.matrix.gqa_decode_qgmma_cta_cycles = 0;  // falls back to gqa_decode_cta_cycles
  HardwareSpec as_bf16 = hw;
  as_bf16.matrix.gqa_decode_qgmma_cta_cycles = hw.matrix.gqa_decode_cta_cycles;
  const double own = call_seconds({xqa}, hw), fallback = call_seconds({xqa}, shared), same = call_seconds({xqa}, as_bf16);
  CHECK(fallback == Approx(same).epsilon(1e-9));
  CHECK((own < fallback) == (hw.matrix.gqa_decode_qgmma_cta_cycles < hw.matrix.gqa_decode_cta_cycles));
  CHECK(own != Approx(fallback).epsilon(0.01));
  // A bf16 cache's XQA ignores the key.
  const OpSpec bf16 = attention_call_ops(shape(false, 264, 1, 32, 8), "trtllm").back();
  CHECK(call_seconds({bf16}, hw) == Approx(call_seconds({bf16}, shared)).epsilon(1e-9));
}

TEST_CASE("XQA counts the whole past for its blocks on a sliding-window layer: mha.cu's blocks before the window still cost their CTAs, mha_sm90's split follows the window", "[systemc][attention]") {
  auto windowed = [](std::int64_t batch, std::int64_t cached, std::int64_t kv_heads, DType kv) {
    AttentionShape s = shape(false, batch, cached, 8 * kv_heads, kv_heads, kv);
    s.window = 128;
    return s;
  };
  // 32 sequences x 2 KV heads at 4096 tokens with the new one: 32 blocks of 128 by the history, at most
  // round(sqrt(8 x 32)) = 16, under the 8-per-SM cap (132 x 8 / 64 = 16): 16 blocks, where the
  // 128 keys of the window alone make 1.
  const OpSpec bf16 = attention_call_ops(windowed(32, 4095, 2, DType::bf16), "trtllm").back();
  CHECK(bf16.gemm.gqa_decode_kernel);
  CHECK(bf16.gemm.kernel_k_splits == 16);
  CHECK(attention_call_ops(windowed(32, 511, 2, DType::bf16), "trtllm").back().gemm.kernel_k_splits == 4);
  const OpSpec fp8 = attention_call_ops(windowed(32, 4095, 2, DType::fp8), "trtllm").back();
  CHECK(fp8.gemm.gqa_decode_qgmma);
  CHECK(fp8.gemm.kernel_k_splits == 1);
  // The dispatcher's gain check counts the history too: 2 KV heads x 255 blocks x 4 >= 132 SMs
  // takes XQA, where the window's one block (2 x 1 x 4 = 8) would have left it to MMHA.
  CHECK(trtllm_decode_kernel(windowed(1, 32767, 2, DType::bf16)) == TrtllmDecodeKernel::xqa);
  // Time follows the blocks, not the keys (measured: 21 us at 1023 cached tokens, 31 us from 4095).
  const HardwareSpec hw = load_hardware("h100_sxm5");
  const double short_past = call_seconds(attention_call_ops(windowed(32, 1023, 2, DType::bf16), "trtllm"), hw);
  const double long_past = call_seconds(attention_call_ops(windowed(32, 4095, 2, DType::bf16), "trtllm"), hw);
  CHECK(long_past > 1.2 * short_past);
}

TEST_CASE("The decode kernels run a head of 192 at 256: XQA's tiles span headElems, MMHA's lanes Dh_MAX", "[systemc][attention]") {
  auto with_head = [](AttentionShape s, std::int64_t head) {
    s.head_dim = head;
    return s;
  };
  // XQA (GQA, bf16 or fp8 cache): its MMAs and its CTAs' query elements at the padded head;
  // the bytes read stay the head's own.
  for (DType kv : {DType::bf16, DType::fp8}) {
    const AttentionShape gqa = with_head(shape(false, 64, 2048, 32, 8, kv), 192);
    REQUIRE(trtllm_decode_kernel(gqa) == TrtllmDecodeKernel::xqa);
    const OpSpec x = attention_call_ops(gqa, "trtllm").back();
    CHECK(x.gemm.kernel_head_dim == 256);
    CHECK(x.gemm.kernel_value_dim == 256);
    CHECK(x.gemm.kernel_cta_query_elements % 256 == 0);
    CHECK(attention_call_ops(with_head(shape(false, 64, 2048, 32, 8, kv), 128), "trtllm").back().gemm.kernel_head_dim == 0);
  }
  // MMHA (plain MHA): per cached element, the issue slots of 256 lanes for a head of 192.
  const AttentionShape mha192 = with_head(shape(false, 8, 2048, 16, 16), 192), mha256 = with_head(shape(false, 8, 2048, 16, 16), 256);
  REQUIRE(trtllm_decode_kernel(mha192) == TrtllmDecodeKernel::mmha);
  const OpSpec m192 = attention_call_ops(mha192, "trtllm").back(), m256 = attention_call_ops(mha256, "trtllm").back();
  CHECK(m192.vector.flops_per_element == Approx(m256.vector.flops_per_element * 256.0 / 192.0));
  CHECK(m192.vector.elements_in * 256 == m256.vector.elements_in * 192);  // reads its own 192
}

TEST_CASE("A context FMHA rescales its output accumulators after every step of its key loop, on the CUDA cores, as exposed as its exponentials", "[systemc][attention]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  HardwareSpec fast_cores = hw;
  fast_cores.vector.flops_per_clock *= 16;  // the rescaling nearly free
  auto head = [](std::int64_t h) {
    AttentionShape s = shape(true, 4, 4096, 32, 8);
    s.head_dim = h;
    return s;
  };
  // fmha_v2's key steps: 256 keys at head 64, 128 at 128, 64 at 256 (bf16).
  CHECK(attention_call_ops(head(64), "trtllm").back().gemm.kernel_key_tile == 256);
  CHECK(attention_call_ops(head(128), "trtllm").back().gemm.kernel_key_tile == 128);
  CHECK(attention_call_ops(head(256), "trtllm").back().gemm.kernel_key_tile == 64);
  auto share = [&](std::int64_t h) {
    const std::vector<OpSpec> ops{attention_call_ops(head(h), "trtllm").back()};
    return 1.0 - call_seconds(ops, fast_cores) / call_seconds(ops, hw);
  };
  // Per key and query row the rescaling is value head / key step FMAs: 0.25 at head 64, 4 at 256,
  // so it weighs on head 256 far more than on 64.
  CHECK(share(256) > 0.05);
  CHECK(share(64) < 0.02);
  CHECK(share(256) > 4 * share(64));
  // Decode kernels (no key loop counted) pay none of it.
  CHECK(attention_call_ops(shape(false, 64, 2048, 32, 8), "trtllm").back().gemm.kernel_key_tile == 0);
}

TEST_CASE("An fp8 context FMHA on a sliding window pays matrix.fp8_window_key_tile_cycles per step of its key loop", "[systemc][attention]") {
  const HardwareSpec hw = load_hardware("h100_sxm5");
  REQUIRE(hw.matrix.fp8_window_key_tile_cycles > 0);
  HardwareSpec free_steps = hw;
  free_steps.matrix.fp8_window_key_tile_cycles = 0;
  auto windowed = [](DType kv, std::int64_t tokens, std::int64_t window) {
    AttentionShape s = shape(true, 4, tokens, 32, 8, kv);
    s.head_dim = 64;
    s.window = window;
    return attention_call_ops(s, "trtllm").back();
  };
  // 2048 tokens, window 128, 256-key steps: query tile 0 takes step 0; tile q (q >= 1) reaches
  // back to key 128 q - 127, so tiles of odd q take one step and tiles of even q two.
  const OpSpec fp8 = windowed(DType::fp8, 2048, 128);
  CHECK(fp8.gemm.kernel_key_tile == 256);
  CHECK(fp8.gemm.kernel_window_key_steps == 4 * 32 * (1 + 8 * 1 + 7 * 2));
  // Not that kernel: bf16 operands, no window, or a window the sequence does not outrun.
  CHECK(windowed(DType::bf16, 2048, 128).gemm.kernel_window_key_steps == 0);
  CHECK(windowed(DType::fp8, 2048, 0).gemm.kernel_window_key_steps == 0);
  CHECK(windowed(DType::fp8, 2048, 2048).gemm.kernel_window_key_steps == 0);
  // A TensorRT-LLM kernel's cost: the generic flash attention on fp8 operands does not pay it.
  {
    AttentionShape s = shape(true, 4, 2048, 32, 8, DType::fp8);
    s.head_dim = 64;
    s.window = 128;
    s.precision.activations = DType::fp8;
    CHECK(attention_call_ops(s, "fused").back().gemm.kernel_window_key_steps == 0);
    CHECK(attention_call_ops(s, "trtllm").back().gemm.kernel_window_key_steps > 0);
  }
  // On SM90 TensorRT-LLM takes the head-128 kernels with fp8 output from NVIDIA's cubins, which
  // measure no such cost; with bf16 output (bf16 attention on an fp8 cache) it compiles them.
  auto head128 = [](DType activations) {
    AttentionShape s = shape(true, 4, 16384, 32, 8, DType::fp8);
    s.window = 8192;
    s.precision.activations = activations;
    return attention_call_ops(s, "trtllm").back().gemm;
  };
  CHECK(head128(DType::fp8).kernel_window_key_steps == 0);
  CHECK(head128(DType::bf16).kernel_window_key_steps > 0);
  // The steps' cycles land on the SMs: 4 x 32 x 23 steps over 132 SMs, 23 steps each at most.
  const double extra = call_seconds({fp8}, hw) - call_seconds({fp8}, free_steps);
  const double per_sm_steps = static_cast<double>((4 * 32 * 23 + 131) / 132);
  CHECK(extra == Approx(per_sm_steps * hw.matrix.fp8_window_key_tile_cycles / hw.matrix.sustained_clock_hz).epsilon(0.05));
}

TEST_CASE("vLLM's flash decoding on an fp8 cache pays matrix.fp8_cache_decode_key_tile_cycles per 128 keys: 1.2-1.4x a bf16 cache's speed, not 2x", "[systemc][attention]") {
  const HardwareSpec plain = load_hardware("h100_sxm5");
  REQUIRE(plain.matrix.fp8_cache_decode_key_tile_cycles == 0);  // a stack's kernel parameter, not the chip's
  const HardwareSpec vllm = stack_hardware(load_stack("vllm"), "h100_sxm5");
  REQUIRE(vllm.matrix.fp8_cache_decode_key_tile_cycles > 0);
  auto decode = [](DType kv, std::int64_t context, const char* kernel) {
    return attention_call_ops(shape(false, 16, context, 32, 4, kv), kernel);
  };
  // The fused kernel's decode on an fp8 cache counts its CTAs' 128-key tiles; on a bf16 cache, in
  // a prefill, or in TensorRT-LLM's XQA (its own fp8 kernel, calibrated on its tables) none.
  CHECK(decode(DType::fp8, 16384, "fused").back().gemm.kernel_fp8_cache_key_tiles == 16 * 4 * ((16384 + 1 + 127) / 128));  // the new token's key too
  CHECK(decode(DType::bf16, 16384, "fused").back().gemm.kernel_fp8_cache_key_tiles == 0);
  CHECK(decode(DType::fp8, 16384, "trtllm").back().gemm.kernel_fp8_cache_key_tiles == 0);
  CHECK(attention_call_ops(shape(true, 4, 2048, 32, 4, DType::fp8), "fused").back().gemm.kernel_fp8_cache_key_tiles == 0);
  // Without the cost the fp8 cache's keys stream twice as fast as bf16's (the added 16k keys);
  // with vLLM's, about 1.4x (vllm-project/flash-attention PR 96), the whole calls 1.2-1.4x.
  auto slope_ratio = [&](const HardwareSpec& hw) {
    const double bf16 = call_seconds(decode(DType::bf16, 32768, "fused"), hw) - call_seconds(decode(DType::bf16, 16384, "fused"), hw);
    const double fp8 = call_seconds(decode(DType::fp8, 32768, "fused"), hw) - call_seconds(decode(DType::fp8, 16384, "fused"), hw);
    return bf16 / fp8;
  };
  CHECK(slope_ratio(plain) == Approx(2.0).epsilon(0.05));
  CHECK(slope_ratio(vllm) == Approx(1.39).epsilon(0.05));
  const double whole = call_seconds(decode(DType::bf16, 16384, "fused"), vllm) / call_seconds(decode(DType::fp8, 16384, "fused"), vllm);
  CHECK(whole > 1.2);
  CHECK(whole < 1.45);
}

TEST_CASE("A context FMHA compiled from fmha_v2's source zeroes its tile counter first: one more small op in the call", "[systemc][attention]") {
  auto call = [](std::int64_t head, DType kv, DType activations, std::int64_t tokens) {
    AttentionShape s = shape(true, 2, tokens, 32, 8, kv);
    s.head_dim = head;
    s.precision.activations = activations;
    return op_names(attention_call_ops(s, "trtllm"));
  };
  // e4m3: compiled unless head 128 with fp8 output.
  REQUIRE(call(64, DType::fp8, DType::fp8, 1).size() == 4);
  CHECK(call(64, DType::fp8, DType::fp8, 1)[2] == "fmha tile counter memset");
  CHECK(call(128, DType::fp8, DType::bf16, 1).size() == 4);
  CHECK(call(128, DType::fp8, DType::fp8, 1).size() == 3);
  // 16-bit: the same warp-specialized kernel at every length; head 128 is a cubin.
  CHECK(call(64, DType::bf16, DType::bf16, 1).size() == 4);
  CHECK(call(64, DType::bf16, DType::bf16, 4096).size() == 4);
  CHECK(call(128, DType::bf16, DType::bf16, 1).size() == 3);
  CHECK(call(128, DType::bf16, DType::bf16, 4096).size() == 3);
  CHECK(call(256, DType::bf16, DType::bf16, 4096)[2] == "fmha tile counter memset");
}

TEST_CASE("TensorRT-LLM's attention decodes latent attention (MLA) on the tensor cores, not on MMHA's CUDA cores", "[systemc][attention]") {
  const ModelConfig model = load_model("deepseek-ai/DeepSeek-V2-Lite");
  REQUIRE(model.mla);
  const OpGraph g = build_forward(model, decode_pass(16, 512, 1), Precision{}, AttentionImpl{"trtllm"});
  const OpNode* attention = nullptr;
  for (OpId v = 0; v < g.size(); ++v) {
    if (g.op(v).layer == 0 && g.op(v).op_class == "attention") attention = &g.op(v);
  }
  REQUIRE(attention);
  CHECK(attention->is_gemm);  // a fused kernel over the shared latent
  AttentionShape latent;
  latent.shared_kv = true;
  latent.heads = 16;
  latent.kv_heads = 1;
  latent.head_dim = 576;
  CHECK(trtllm_decode_kernel(latent) == TrtllmDecodeKernel::mla);
  CHECK(attention->gemm.shared_kv);
  CHECK(attention->gemm.fused_attention);
}
