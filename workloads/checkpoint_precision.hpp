#pragma once
// The precision a model's checkpoint runs in on a chip: its config.json's quantization_config
// (ModelConfig::dense_format, expert_format) as the linears' weight types and the types their
// GEMMs compute in. A server loads a checkpoint in its own formats, so a hub id alone
// (`--model Qwen/Qwen3-235B-A22B-FP8`) runs in fp8; flags and settings that name a dtype win.
#include <string>
#include <vector>

#include "core/hardware.hpp"
#include "workloads/attention_kernel.hpp"
#include "workloads/model.hpp"

namespace roofsim {

// A linear layer's weight format with the type its GEMMs compute in.
struct LinearFormat {
  WeightFormat format;
  DType activations = DType::bf16;
  bool weight_only = false;  // 16-bit activations, weights dequantized in the GEMM
};

// A checkpoint's format as a linear format: fp8 per tensor computes in fp8 (W8A8); fp8 with
// block scales keeps 16-bit activations, which each linear quantizes itself; 4-bit and int8
// formats compute in their own type (W4A4, W8A8) where the chip has the rate (on_chip).
LinearFormat checkpoint_format(const WeightFormat& w);

// A 4-bit or int8 format on a chip without its matrix rate runs weight-only: the GEMM
// dequantizes the weights to 16 bits (Marlin, TensorRT-LLM's weight-only kernels); Hopper has no
// 4-bit rate. Says so in `notes`, naming `what` ("dense linears", "experts").
LinearFormat on_chip(LinearFormat f, const HardwareSpec& hw, const std::string& what, std::vector<std::string>& notes);

// `base` with its weights, activations and scale blocks (dense and experts) as the checkpoint of
// `m` runs on `hw`; the KV cache's type and the rest of `base` kept. A model without a
// quantization_config runs 16-bit: `base` unchanged.
Precision checkpoint_precision(const ModelConfig& m, const HardwareSpec& hw, Precision base, std::vector<std::string>& notes);

}  // namespace roofsim
