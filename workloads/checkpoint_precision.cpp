#include "workloads/checkpoint_precision.hpp"

namespace roofsim {

LinearFormat checkpoint_format(const WeightFormat& w) {
  LinearFormat f;
  f.format = w;
  if (w.weights == DType::fp8) {
    f.activations = w.scale_block_k > 0 ? DType::bf16 : DType::fp8;
  } else {
    // 16-bit weights compute in their type; 4-bit and int8 as W4A4 / W8A8 where the chip has
    // the rate, else weight-only (on_chip).
    f.activations = w.weights;
  }
  return f;
}

LinearFormat on_chip(LinearFormat f, const HardwareSpec& hw, const std::string& what, std::vector<std::string>& notes) {
  if (f.activations != DType::bf16 && f.activations != DType::fp16 && !hw.matrix_supports(f.activations)) {
    notes.push_back(what + " in " + std::string(dtype_name(f.format.weights)) + " run weight-only (bf16 activations): " + hw.name +
                    " has no " + std::string(dtype_name(f.activations)) + " matrix rate");
    f.activations = DType::bf16;
    f.weight_only = true;
  }
  return f;
}

Precision checkpoint_precision(const ModelConfig& m, const HardwareSpec& hw, Precision base, std::vector<std::string>& notes) {
  if (m.quantization.empty()) return base;
  const LinearFormat dense = on_chip(checkpoint_format(m.dense_format), hw, "dense linears", notes);
  const LinearFormat experts = m.is_moe() ? on_chip(checkpoint_format(m.expert_format), hw, "experts", notes) : dense;
  base.weights = dense.format.weights;
  base.activations = dense.activations;
  base.scale_block_k = dense.format.scale_block_k;
  base.experts.reset();
  if (experts.format != dense.format || experts.activations != dense.activations) {
    base.experts = Precision::Experts{experts.format.weights, experts.activations, experts.format.scale_block_k};
  }
  return base;
}

}  // namespace roofsim
