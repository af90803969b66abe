#pragma once
// A checkpoint's weight formats from its config.json's quantization_config
// (workloads/hf_quantization.cpp).
#include "workloads/hf_reader.hpp"
#include "workloads/model.hpp"

namespace roofsim {

// The checkpoint's weight formats from its quantization_config (the quant_method vocabularies
// of transformers' quantizers as hub configs write them). Formats roofsim has no type for are
// refused, naming the key: a silent bf16 would double or quadruple the weights' bytes.
void read_hf_quantization(const HfReader& top, ModelConfig& m);

}  // namespace roofsim
