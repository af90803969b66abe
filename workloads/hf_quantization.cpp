#include "workloads/hf_quantization.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace roofsim {

void read_hf_quantization(const HfReader& top, ModelConfig& m) {
  if (!top.has("quantization_config")) return;
  const HfReader q = top.nested("quantization_config");
  const std::string method = q.string_or("quant_method", "");
  WeightFormat f;
  if (method == "fp8") {  // DeepSeek-V3/R1, Qwen3-*-FP8: e4m3, per tensor or 128 x 128 blocks
    f.weights = DType::fp8;
    if (q.has("weight_block_size")) {
      const std::vector<std::int64_t> block = q.integers("weight_block_size");
      if (block.size() != 2 || block[0] <= 0 || block[1] <= 0 || block[0] > 65536 || block[1] > 65536) {
        q.fail("weight_block_size", "expected [rows, columns] of a scale block, each from 1 to 65536");
      }
      f.scale_block_k = block[1];
    }
    m.quantization = "fp8" + std::string(f.scale_block_k > 0 ? " with " + std::to_string(f.scale_block_k) + "-wide block scales" : " per tensor");
  } else if (method == "modelopt") {  // NVIDIA's TensorRT Model Optimizer checkpoints
    const std::string algo = q.string_or("quant_algo", "");
    if (algo == "FP8") {
      f.weights = DType::fp8;
    } else if (algo == "NVFP4") {
      f.weights = DType::nvfp4;
    } else {
      q.fail("quant_algo", "'" + algo + "' is not modelled (supported: FP8, NVFP4)");
    }
    m.quantization = "modelopt " + algo;
  } else if (method == "mxfp4") {  // gpt-oss: only the experts; attention, router and embeddings stay 16-bit
    m.expert_format.weights = DType::mxfp4;
    m.quantization = "mxfp4 experts";
    return;
  } else if (method == "awq" || method == "gptq") {
    const std::int64_t bits = q.positive_or("bits", q.positive_or("w_bit", 4));
    if (bits != 4 && bits != 8) q.fail("bits", "expected 4 or 8, got " + std::to_string(bits));
    f.weights = bits == 4 ? DType::int4 : DType::int8;
    m.quantization = method + " int" + std::to_string(bits) + " (weight-only)";
  } else if (method == "compressed-tensors") {
    // llm-compressor's checkpoints (Kimi-K2-Thinking, Kimi-K2.5): each config group's weights in
    // num_bits integers; without input_activations the activations stay 16-bit (weight-only).
    // Layers the ignore list names keep 16 bits: when it names the attention (self_attn), the
    // groups' format is the routed experts' only (the Kimi files also ignore the shared experts
    // and the dense MLPs).
    const HfReader groups = q.nested("config_groups");
    std::int64_t bits = 0;
    for (const std::string& name : groups.keys()) {
      const HfReader g = groups.nested(name);
      if (g.has("input_activations")) g.fail("input_activations", "quantized activations are not modelled for compressed-tensors (weight-only: null)");
      const HfReader w = g.nested("weights");
      if (w.string_or("type", "int") != "int") w.fail("type", "expected int (integer weights)");
      const std::int64_t b = w.positive("num_bits");
      if ((b != 4 && b != 8) || (bits != 0 && b != bits)) w.fail("num_bits", "expected 4 or 8, the same in every group, got " + std::to_string(b));
      bits = b;
    }
    if (bits == 0) groups.fail("config_groups", "no quantization group");
    f.weights = bits == 4 ? DType::int4 : DType::int8;
    m.quantization = "compressed-tensors int" + std::to_string(bits) + " (weight-only)";
    const std::vector<std::string> ignore = q.has("ignore") ? q.strings("ignore") : std::vector<std::string>{};
    const bool experts_only = std::any_of(ignore.begin(), ignore.end(), [](const std::string& e) { return e.find("self_attn") != std::string::npos; });
    if (experts_only && m.is_moe()) {
      m.expert_format = f;
      m.quantization += " experts";
      return;
    }
  } else {
    q.fail("quant_method", "'" + method + "' is not modelled (supported: fp8, modelopt, mxfp4, awq, gptq, compressed-tensors)");
  }
  m.dense_format = m.expert_format = f;
}

}  // namespace roofsim
