#include "serving/case_models.hpp"

#include <algorithm>
#include <cctype>

#include "core/parse.hpp"
#include "core/presets.hpp"
#include "workloads/model.hpp"

namespace roofsim::case_rows {

namespace {

bool loads(const std::string& name) {
  try {
    load_model(name);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace

ModelMatch resolve_model(const std::string& model_path) {
  if (loads(model_path)) return {model_path, ""};
  const auto slash = model_path.find('/');
  const std::string org = slash == std::string::npos ? "" : model_path.substr(0, slash);
  std::string name = slash == std::string::npos ? model_path : model_path.substr(slash + 1);
  std::vector<std::string> names{name};
  for (const char* quant : {"-FP8-dynamic", "-FP8-Dynamic", "-FP8", "-fp8", "-AWQ", "-GPTQ-Int4", "-GPTQ-Int8", "-W4A16", "-W8A8", "-NVFP4", "-MXFP4"}) {
    if (const auto base = without_suffix(name, quant)) names.push_back(*base);
  }
  // Variants of one architecture: instruction-tuned, chat, reasoning, base and experimental
  // checkpoints (DeepSeek-V3.2-Exp has V3.2's layers and indexer).
  const auto without_variant = [](const std::string& n) {
    for (const char* suffix : {"-Instruct", "-instruct", "-Chat", "-chat", "-it", "-Base", "-Thinking", "-Exp"}) {
      if (const auto base = without_suffix(n, suffix)) return *base;
    }
    return n;
  };
  for (std::size_t i = 0, n = names.size(); i < n; ++i) {
    if (without_variant(names[i]) != names[i]) names.push_back(without_variant(names[i]));
  }
  const std::vector<std::string> shipped = list_hub_configs();
  for (const std::string& candidate : names) {
    const std::string same_org = org.empty() ? candidate : org + "/" + candidate;
    if (loads(same_org)) return {same_org, "model " + model_path + " read as " + same_org + "'s layers"};
    for (const std::string& hub : shipped) {
      if (hub.size() > candidate.size() && ends_with(hub, "/" + candidate)) {
        return {hub, "model " + model_path + " read as " + hub + " (the same name under another organisation)"};
      }
    }
  }
  // Another variant shipped (Qwen3-Next's Thinking model as its Instruct one's config).
  for (const std::string& candidate : names) {
    for (const std::string& hub : shipped) {
      const std::string hub_name = hub.substr(hub.find('/') + 1);
      if (without_variant(hub_name) == without_variant(candidate)) {
        return {hub, "model " + model_path + " read as " + hub + " (another variant of the same architecture)"};
      }
    }
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
  if (label == "int8" || label == "sq" || label == "int8_sq" || label == "w8a8" || label == "w8a8_sq") {
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
  const std::vector<int> v = version_numbers(version);
  if (v.empty() || (backend == "trtllm" && v[0] != 1)) return "";
  return backend == "trtllm" || backend == "vllm" || backend == "sglang" ? version : "";
}

std::string backend_stack(const std::string& backend, const std::string& version, std::vector<std::string>& assumptions) {
  if (backend == "trtllm") {
    const std::vector<int> v = version_numbers(version);
    if (!version.empty() && (v.empty() || v[0] != 1)) {
      assumptions.push_back("TensorRT-LLM version '" + version + "' run as trtllm-1.x (the PyTorch flow; nearest documented)");
    }
    return "trtllm-1.x";
  }
  const std::vector<int> v = version_numbers(version);
  if (backend == "vllm" && !v.empty() && (v[0] == 0 && v.size() > 1 && v[1] < 8)) {
    assumptions.push_back("vLLM version '" + version + "' (the V0 engine) run as vllm, V1's scheduler (nearest documented)");
  }
  if (backend == "sglang" && !v.empty() && (v[0] > 0 || (v.size() > 1 && v[1] > 5))) {
    assumptions.push_back("SGLang version '" + version + "' run as sglang, the 0.5.x behaviour (extend batches eager; later releases "
                          "capture them as piecewise CUDA graphs by default)");
  }
  return backend;
}

}  // namespace roofsim::case_rows
