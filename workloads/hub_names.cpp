#include "workloads/hub_names.hpp"

#include <algorithm>
#include <cctype>

#include "core/parse.hpp"

namespace roofsim {

namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// A checkpoint's variant of its architecture: instruction-tuned, chat, reasoning, base or
// experimental weights (DeepSeek-V3.2-Exp has V3.2's layers and indexer).
bool variant_token(const std::string& t) {
  for (const char* v : {"instruct", "chat", "it", "base", "thinking", "exp", "hf"}) {
    if (t == v) return true;
  }
  return false;
}

// A release date (DeepSeek-R1-0528, Qwen3-...-2507) or a re-release (-v2). A dotted version
// (Mistral-7B-v0.1) is not cut: such versions changed layers (v0.2 dropped the sliding window).
bool release_token(const std::string& t) {
  if (all_digits(t) && (t.size() == 4 || t.size() == 6)) return true;
  return t.size() >= 2 && t[0] == 'v' && all_digits(t.substr(1));
}

// Words that only qualify a quantization token before them (FP8-dynamic, FP8-KV, GPTQ-Int4).
bool quantization_qualifier(const std::string& t) { return t == "dynamic" || t == "static" || t == "kv" || t == "gptq"; }

struct Stem {
  std::string stem;
  std::string quantization;  // the quantization token as written ("" none)
};

// The name without its trailing variant, release and quantization tokens, and without a leading
// "Meta-" (Meta-Llama-3.1-8B is Llama-3.1-8B).
Stem stem_of(const std::string& name) {
  Stem s{lowercase(name).rfind("meta-", 0) == 0 ? name.substr(5) : name, ""};
  for (;;) {
    const auto dash = s.stem.rfind('-');
    if (dash == std::string::npos || dash == 0) return s;
    const std::string token = s.stem.substr(dash + 1), t = lowercase(token);
    const std::string before = s.stem.substr(0, dash);
    const auto dash2 = before.rfind('-');
    const std::string previous = dash2 == std::string::npos ? "" : lowercase(before.substr(dash2 + 1));
    if (quantization_token_weights(t) || t == "bf16" || t == "fp16") {
      if (s.quantization.empty() && quantization_token_weights(t)) s.quantization = token;
    } else if (quantization_qualifier(t) && (quantization_token_weights(previous) || t == "gptq")) {
      // cut with the token it qualifies (that one on the next pass)
    } else if (!variant_token(t) && !release_token(t)) {
      return s;
    }
    s.stem = before;
  }
}

}  // namespace

std::optional<DType> quantization_token_weights(const std::string& token) {
  const std::string t = lowercase(token);
  if (t == "fp8") return DType::fp8;
  if (t == "fp4" || t == "nvfp4") return DType::nvfp4;
  if (t == "mxfp4") return DType::mxfp4;
  if (t == "awq" || t == "int4" || t == "w4a16") return DType::int4;
  if (t == "int8" || t == "w8a8") return DType::int8;
  return std::nullopt;
}

std::optional<HubNameMatch> match_hub_name(const std::string& hub_id, const std::vector<std::string>& shipped) {
  // ORG/NAME, or NAME alone (any organisation's).
  const auto slash = hub_id.find('/');
  const std::string org = slash == std::string::npos ? "" : hub_id.substr(0, slash);
  const Stem asked = stem_of(slash == std::string::npos ? hub_id : hub_id.substr(slash + 1));
  const std::optional<DType> asked_weights = quantization_token_weights(asked.quantization);
  // Ranked: the same quantization token and organisation, the same token, the same
  // organisation, any; the shipped list's order breaks ties (it is sorted: deterministic).
  const std::string* best = nullptr;
  int best_rank = -1;
  std::optional<DType> best_weights;
  for (const std::string& id : shipped) {
    const auto s = id.find('/');
    if (s == std::string::npos) continue;
    const Stem candidate = stem_of(id.substr(s + 1));
    if (lowercase(candidate.stem) != lowercase(asked.stem)) continue;  // the hub takes ids in any case
    const std::optional<DType> weights = quantization_token_weights(candidate.quantization);
    const int rank = (weights == asked_weights ? 2 : 0) + (lowercase(id.substr(0, s)) == lowercase(org) ? 1 : 0);
    if (rank > best_rank) {
      best = &id;
      best_rank = rank;
      best_weights = weights;
    }
  }
  if (!best) return std::nullopt;
  HubNameMatch m;
  m.hub_id = *best;
  m.note = "model " + hub_id + " read as " + *best + "'s layers (the same architecture: both are " + asked.stem + " after their variant, release and quantization tokens)";
  if (asked_weights && best_weights != asked_weights) {
    m.name_weights = asked_weights;
    m.name_token = asked.quantization;
  }
  return m;
}

}  // namespace roofsim
