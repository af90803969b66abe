#pragma once
// Hugging Face `config.json` import: llama, mistral, mixtral, phi3, qwen2, qwen2_moe, qwen3,
// qwen3_moe, gemma2, gemma3 (text), gpt_oss, falcon, gpt_neox, gptj, deepseek_v2, deepseek_v3
// and kimi_k2. Anything else is refused with the list of what is supported. Errors name the
// file, the line and the key. A config shipped under configs/models/hf/<org>/<name>/ gets the
// hub id <org>/<name>.
#include <string>

#include "workloads/model.hpp"

namespace roofsim {

ModelConfig load_hf_config(const std::string& path);

}  // namespace roofsim
