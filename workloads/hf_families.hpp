#pragma once
// The architecture families of Hugging Face config.json files roofsim reads: one reader per
// model_type, each reading the keys its transformers class reads (workloads/hf_families.cpp).
#include <map>
#include <string>
#include <vector>

#include "workloads/hf_reader.hpp"
#include "workloads/model.hpp"

namespace roofsim {

using HfFamilyReader = void (*)(const HfReader&, ModelConfig&);

// Each supported model_type's reader.
const std::map<std::string, HfFamilyReader>& hf_families();
// Multimodal model_types and the model_types their text_config may have (the first when it
// names none).
const std::map<std::string, std::vector<std::string>>& hf_multimodal_wrappers();
// The config's own name for a ModelConfig member (model_problem's field) in a config of `type`.
std::string hf_config_key(const std::string& type, const std::string& field);

}  // namespace roofsim
