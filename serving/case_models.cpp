#include "serving/case_models.hpp"

#include <algorithm>
#include <cctype>

#include "core/parse.hpp"
#include "core/presets.hpp"
#include "workloads/hub_names.hpp"
#include "workloads/model.hpp"

namespace roofsim::case_rows {

ModelMatch resolve_model(const std::string& model_path) {
  // load_model reads a hub id people write (a variant, a dated release, a quantized checkpoint)
  // as the shipped config of its architecture and says how (workloads/hub_names.hpp).
  try {
    return {model_path, load_model(model_path).read_as};
  } catch (const InputError&) {
  }
  // A name without its organisation ("Qwen3-32B"): the shipped hub id of the same stem.
  if (model_path.find('/') == std::string::npos) {
    if (const std::optional<HubNameMatch> match = match_hub_name(model_path, list_hub_configs())) return {match->hub_id, match->note};
  }
  return {"", ""};
}

std::optional<LinearFormat> parse_quant_label(const std::string& label) {
  LinearFormat f;
  if (label == "float16" || label == "bfloat16" || label == "fp16" || label == "bf16") return f;
  if (label == "fp8" || label == "fp8_ootb" || label == "fp8_static" || label == "w8a8_fp8") {
    f.format.weights = f.activations = DType::fp8;
    return f;
  }
  if (label == "fp8_block") {
    f.format = {DType::fp8, 128};
    return f;
  }
  if (label == "nvfp4" || label == "w4a4_nvfp4") {
    f.format.weights = f.activations = DType::nvfp4;
    return f;
  }
  if (label == "mxfp4" || label == "w4a4_mxfp4") {
    f.format.weights = f.activations = DType::mxfp4;
    return f;
  }
  if (label == "w4a16_mxfp4") {
    f.format.weights = DType::mxfp4;
    f.weight_only = true;
    return f;
  }
  // 4-bit weights converted in the kernel to fp8 for fp8 MMAs: TensorRT-LLM's W4AFP8 MoE
  // (int4 weights) and Blackwell's MXFP4 x MXFP8 MoE (mxfp4 weights, fp8 activations with
  // block scales, here at the fp8 rate).
  if (label == "w4afp8" || label == "w4a8") {
    f.format.weights = DType::int4;
    f.activations = DType::fp8;
    return f;
  }
  if (label == "w4a8_mxfp4_mxfp8" || label == "w4a8_mxfp4_mxfp8_trtllm" || label == "mxfp4_mxfp8") {
    f.format.weights = DType::mxfp4;
    f.activations = DType::fp8;
    return f;
  }
  if (label == "int8" || label == "sq" || label == "int8_sq" || label == "w8a8" || label == "w8a8_sq" || label == "w8a8_dynamic") {
    f.format.weights = f.activations = DType::int8;
    return f;
  }
  if (label == "int4" || label == "int4_wo" || label == "w4a16" || label == "int4_awq" || label == "awq" || label == "gptq" ||
      label == "w4a16_awq" || label == "w4a16_gptq") {
    f.format.weights = DType::int4;
    f.weight_only = true;
    return f;
  }
  if (label == "int8_wo" || label == "w8a16") {
    f.format.weights = DType::int8;
    f.weight_only = true;
    return f;
  }
  return std::nullopt;
}

namespace {
// A TensorRT-LLM version label of the 1.x PyTorch flow (the disaggregated rows' 0.8.1 are NVIDIA
// Dynamo's runtime versions, not TensorRT-LLM releases).
bool trtllm_1x_label(const std::string& version) {
  const std::vector<int> v = version_numbers(version);
  return !v.empty() && v[0] == 1;
}

}  // namespace

std::optional<std::string> canonical_backend(const std::string& label) {
  const std::string l = lowercase(label);
  for (const char* a : {"trtllm", "trt", "trt-llm", "trt_llm", "tensorrt-llm", "tensorrt_llm", "tensorrtllm", "dynamo-trt", "dynamo-trtllm"}) {
    if (l == a) return std::string("trtllm");
  }
  for (const char* a : {"vllm", "dynamo-vllm"}) {
    if (l == a) return std::string("vllm");
  }
  for (const char* a : {"sglang", "dynamo-sglang", "sglang-disagg"}) {
    if (l == a) return std::string("sglang");
  }
  return std::nullopt;
}

std::optional<std::string> canonical_mode(const std::string& label) {
  const std::string l = lowercase(label);
  if (l == "agg" || l == "aggregated") return std::string("agg");
  if (l == "disagg" || l == "disaggregated") return std::string("disagg");
  return std::nullopt;
}

bool sglang_mixed_chunk(const std::string& version) {
  return version_numbers(version).empty() || version_at_least(version, "0.5.3");
}

std::string image_version(const std::string& backend, const std::string& image) {
  const auto colon = image.rfind(':');
  if (colon == std::string::npos || image.find("dynamo") != std::string::npos) return "";
  const std::string repository = image.substr(0, colon), tag = image.substr(colon + 1);
  const bool own = backend == "trtllm" ? repository.find("tensorrt-llm") != std::string::npos : repository.find(backend) != std::string::npos;
  if (!own || version_numbers(tag).empty()) return "";
  return tag.rfind('v', 0) == 0 ? tag.substr(1) : tag;
}

std::string stack_release(const std::string& backend, const std::string& version) {
  if (version_numbers(version).empty() || (backend == "trtllm" && !trtllm_1x_label(version))) return "";
  return backend == "trtllm" || backend == "vllm" || backend == "sglang" ? version : "";
}

std::string backend_stack(const std::string& backend, const std::string& version, std::vector<std::string>& assumptions) {
  if (backend == "trtllm") {
    if (!version.empty() && !trtllm_1x_label(version)) {
      assumptions.push_back("TensorRT-LLM version '" + version + "' run as trtllm-1.x (the PyTorch flow; nearest documented)");
    }
    return "trtllm-1.x";
  }
  const bool versioned = !version_numbers(version).empty();
  if (backend == "vllm" && versioned && !version_at_least(version, "0.8")) {
    assumptions.push_back("vLLM version '" + version + "' (the V0 engine) run as vllm, V1's scheduler (nearest documented)");
  }
  if (backend == "sglang" && versioned && version_at_least(version, "0.6")) {
    assumptions.push_back("SGLang version '" + version + "' run as sglang, the 0.5.x behaviour (extend batches eager; later releases "
                          "capture them as piecewise CUDA graphs by default)");
  }
  return backend;
}

}  // namespace roofsim::case_rows
