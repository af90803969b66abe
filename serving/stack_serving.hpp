#pragma once
// A software stack's serving defaults ([serving] of configs/stacks, experiment/stack.hpp) put on a
// serving setup: its scheduler (chunked prefill, token budget, KV admission, prompts per
// iteration, late slots) and its fitted host costs (per iteration, per sequence, API server).
// One function for every front end, so `serve --stack`, `cases serving` and the rest run a
// stack the same way.
#include <functional>
#include <string>

#include "experiment/stack.hpp"
#include "serving/serving.hpp"

namespace roofsim {

// Sets each value the stack gives, except those whose setting name `keep` returns true for
// (the user set them): "chunked_prefill", "priority", "max_tokens", "admission", "max_prompts",
// "late_release", "limits_per_rank", "kv_dtype" (an fp8 KV cache where the machine's weights are fp8), "iteration_overhead_ms", "sequence_overhead_us", "frontend_request_us",
// "frontend_response_us" (the names of `serve`'s flags with underscores).
void apply_stack_serving(const StackServing& stack, ServingSetup& s, const std::function<bool(const std::string&)>& keep);

}  // namespace roofsim
