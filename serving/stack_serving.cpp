#include "serving/stack_serving.hpp"

namespace roofsim {

void apply_stack_serving(const StackServing& v, ServingSetup& s, const std::function<bool(const std::string&)>& keep) {
  auto set = [&](const char* name, const auto& value, auto apply) {
    if (value && !keep(name)) apply(*value);
  };
  set("chunked_prefill", v.chunked_prefill, [&](bool x) { s.scheduler.chunked_prefill = x; });
  set("priority", v.priority, [&](const std::string& x) { s.scheduler.priority = x; });
  set("max_tokens", v.max_num_tokens, [&](std::int64_t x) { s.scheduler.max_tokens = x; });
  set("admission", v.kv_admission, [&](const std::string& x) { s.kv.admission = x; });
  set("max_prompts", v.max_prompts, [&](std::int64_t x) { s.scheduler.max_prompts = x; });
  set("late_release", v.late_release, [&](bool x) { s.scheduler.late_release = x; });
  set("schedule_ahead", v.schedule_ahead, [&](bool x) { s.scheduler.schedule_ahead = x; });
  set("prefill_schedule_ahead", v.prefill_schedule_ahead, [&](bool x) { s.disaggregation.prefill_schedule_ahead = x; });
  set("limits_per_rank", v.limits_per_rank, [&](bool x) { s.scheduler.limits_per_rank = x; });
  set("kv_dtype", v.fp8_kv_cache_with_fp8_weights, [&](bool x) {
    if (x && s.machine.precision.weights == DType::fp8) s.machine.precision.kv = DType::fp8;
  });
  set("iteration_overhead_ms", v.iteration_overhead_us, [&](double us) { s.iteration_overhead_s = us * 1e-6; });
  set("sequence_overhead_us", v.sequence_overhead_us, [&](double us) { s.sequence_overhead_s = us * 1e-6; });
  set("frontend_request_us", v.frontend_request_us, [&](double us) { s.frontend.request_s = us * 1e-6; });
  set("frontend_response_us", v.frontend_response_us, [&](double us) { s.frontend.response_s = us * 1e-6; });
}

}  // namespace roofsim
