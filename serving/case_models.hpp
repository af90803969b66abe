#pragma once
// What a serving-cases row names, as roofsim has it: its model (a hub id, a re-upload, a
// quantized or other variant of a shipped config), its weight formats (the source's
// quantization labels) and the software stack of its backend and version. Internal to the
// serving-cases reader (serving/serving_cases.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/checkpoint_precision.hpp"

namespace roofsim::case_rows {

// A hub id as roofsim's catalog has it: as given; without an instruction-tuning suffix; under
// another organisation's name (a re-upload: RedHatAI/..., nvidia/...); without a quantization
// suffix (-FP8, -AWQ...), whose format the row's quantization columns then give. "" when none.
struct ModelMatch {
  std::string model;
  std::string assumption;  // how the name was read, when not as given
};
ModelMatch resolve_model(const std::string& model_path);

// A weight format as the source's vocabulary labels it, with the type its GEMMs compute in
// (workloads/checkpoint_precision.hpp); nullopt for a label roofsim does not know.
std::optional<LinearFormat> parse_quant_label(const std::string& label);

// Whether aiconfigurator's generator passed --enable-mixed-chunk to an aggregated SGLang worker
// of this version: its templates from 0.5.3 on do; 0.5.1.post1's misspells the key. A blank
// version is a recent one.
bool sglang_mixed_chunk(const std::string& version);

// The tokens aiconfigurator's generator allows an iteration beyond its prompts (rule_plugin/*.rule:
// max_num_tokens = batch + isl + 1500, max_prefill_tokens = isl + 1500).
constexpr std::int64_t kGeneratorSpareTokens = 1500;

// A backend label as the sources write it, as roofsim's backend name: trtllm (trt, trt-llm,
// tensorrt-llm, tensorrt_llm, and NVIDIA Dynamo's dynamo-trt), vllm (dynamo-vllm), sglang
// (dynamo-sglang, sglang-disagg), in any case; nullopt for another.
std::optional<std::string> canonical_backend(const std::string& label);

// A mode label: agg (aggregated), disagg (disaggregated), in any case; nullopt for another.
std::optional<std::string> canonical_mode(const std::string& label);

// The stack (configs/stacks) a backend and version run as; versions without a stack of their
// own take the nearest documented one, said in `assumptions`.
std::string backend_stack(const std::string& backend, const std::string& version, std::vector<std::string>& assumptions);

// The backend's version a container image's tag names, where the image is the backend's own
// (vllm/vllm-openai:v0.10.2, lmsysorg/sglang:v0.5.8-cu130, nvcr.io/nvidia/tensorrt-llm/release:
// 1.1.0rc2): "" for another's (NVIDIA Dynamo's runtimes are tagged with Dynamo's version).
std::string image_version(const std::string& backend, const std::string& image);

// The release of that stack a row's version names ("0.12.0": the stack's [releases] up to it
// apply), or "" where the stack does not document that version (TensorRT-LLM 0.x labels, which
// run as 1.x; 'gpt-oss-dev'), which runs the newest documented behaviour.
std::string stack_release(const std::string& backend, const std::string& version);

}  // namespace roofsim::case_rows
