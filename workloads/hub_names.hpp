#pragma once
// Hugging Face hub ids as people write them, read as the shipped config of the same
// architecture. Checkpoints of one architecture carry tokens after its name: a variant
// (-Instruct, -Thinking, -Exp), a release date (-0528, -2507), a version (-v2) and the
// quantization they ship in (-FP8, -FP4, -AWQ). `match_hub_name` strips those tokens from both
// the asked id and the shipped ones and pairs equal stems; the quantization token, when the
// config read does not declare the same, becomes the checkpoint's format.
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace roofsim {

struct HubNameMatch {
  std::string hub_id;  // the shipped config read
  std::string note;    // how the name was read, for the run's notes
  // The weights the checkpoint's name declares (-FP8, -NVFP4, -AWQ...), when the config read is
  // not that checkpoint's own: nullopt otherwise.
  std::optional<DType> name_weights;
  std::string name_token;  // the token that said so ("FP8")
};

// The weight type a checkpoint name's quantization token stands for: FP8 (and -FP8-dynamic),
// FP4 / NVFP4, MXFP4, AWQ / GPTQ-Int4 / W4A16 / INT4, W8A8 / INT8; nullopt for any other token.
std::optional<DType> quantization_token_weights(const std::string& token);

// `hub_id` (ORG/NAME or NAME, not itself shipped) matched against `shipped` ids: the same stem, the
// same organisation preferred, then a shipped id whose own quantization token is the asked one.
// nullopt when no shipped stem equals the asked one.
std::optional<HubNameMatch> match_hub_name(const std::string& hub_id, const std::vector<std::string>& shipped);

}  // namespace roofsim
