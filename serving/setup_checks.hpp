#pragma once
// What a serving run refuses before it starts: settings out of range or in conflict (each named
// as its setting, ${name}), and requests no instance can serve on its own.
#include <cstdint>
#include <string>
#include <vector>

#include "serving/kv_cache.hpp"
#include "serving/serving.hpp"

namespace roofsim {

// Throws InputError for the first setting of `s` out of range or in conflict with another.
void check_serving_setup(const ServingSetup& s);

// A request as messages name it: a trace's by its file and line, a generated one by its number.
std::string serving_request_name(const ServingSetup& s, const RequestSpec& r);

// Every request must be servable on its own: within the model's context, its prompt within the
// token budget (unless chunked), its KV blocks within the cache (`pool`'s, split over `ep_ranks`).
void check_serving_requests(const ServingSetup& s, const std::vector<RequestSpec>& requests, const ModelConfig& model,
                            const KvBlockPool& pool, std::int64_t ep_ranks = 1);

}  // namespace roofsim
