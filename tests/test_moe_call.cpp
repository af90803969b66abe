// One MoE layer's experts on one GPU as TensorRT-LLM's CUTLASS MoE runs them
// (experiment/single_op.hpp, moe_layer_ops): which experts the copies touch, and the kernels.
#include <catch2/catch.hpp>

#include "experiment/single_op.hpp"

using namespace roofsim;

namespace {
MoeCall layer(std::int64_t tokens, std::int64_t experts, std::int64_t topk, std::int64_t ep, double power_law) {
  MoeCall m;
  m.tokens = tokens;
  m.hidden = 4096;
  m.inter = 2048;
  m.experts = experts;
  m.topk = topk;
  m.ep = ep;
  m.power_law = power_law;
  return m;
}
const OpSpec& up(const std::vector<OpSpec>& ops) {
  for (const OpSpec& op : ops) {
    if (op.is_gemm) return op;
  }
  FAIL("no GEMM");
  return ops.front();
}
}  // namespace

TEST_CASE("MoE layer: the copies touch as many experts as they can and each touched expert's weights are read", "[systemc][moe]") {
  // 8 tokens x top-22 = 176 copies over 512 experts: 176 experts with one copy each.
  const std::vector<OpSpec> few = moe_layer_ops(layer(8, 512, 22, 1, 0));
  CHECK(up(few).gemm.batch == 176);
  CHECK(up(few).gemm.m == 64);  // one row, padded to the grouped GEMM's 64-row tile
  // Balanced with plenty of tokens: every local expert, tokens x topk / experts rows each.
  const std::vector<OpSpec> many = moe_layer_ops(layer(4096, 64, 8, 4, 0));
  CHECK(up(many).gemm.batch == 16);
  CHECK(up(many).gemm.m == 4096 * 8 / 64);
  CHECK(up(many).gemm.n == 2 * 2048);  // gate and up
  // Skewed routing gives this GPU's experts unequal loads: the padded tiles grow, and a
  // steeper law loads the hottest expert more.
  const std::vector<OpSpec> skewed = moe_layer_ops(layer(4096, 64, 8, 4, 1.2));
  CHECK(up(skewed).gemm.batch * up(skewed).gemm.m > up(many).gemm.batch * up(many).gemm.m);
  // The kernels: top-k, expert offsets, permutation, up, activation, down, finalize.
  REQUIRE(many.size() == 7);
  CHECK(many[0].name == "moe top-k");
  CHECK(many[6].name == "moe finalize");
  CHECK(many[6].vector.elements_out == 4096 * 4096);
  // fp8 experts: the permutation writes fp8 copies and the GEMMs compute in fp8.
  MoeCall f = layer(4096, 64, 8, 4, 0);
  f.dtype = DType::fp8;
  const std::vector<OpSpec> fp8 = moe_layer_ops(f);
  CHECK(fp8[2].vector.output_dtype() == DType::fp8);
  CHECK(up(fp8).gemm.a == DType::fp8);
}
