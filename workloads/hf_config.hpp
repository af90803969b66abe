#pragma once
// Hugging Face `config.json` import for Llama, Mistral, Mixtral, GPT-J and GPT-NeoX style
// models. Anything else is refused with the list of what is supported.
#include <string>

#include "workloads/model.hpp"

namespace roofsim {

ModelConfig load_hf_config(const std::string& path);

}  // namespace roofsim
