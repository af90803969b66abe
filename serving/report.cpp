#include "serving/report.hpp"

#include <cstdio>
#include <sstream>

#include "core/format.hpp"
#include "experiment/results.hpp"
#include "experiment/silicon.hpp"
#include "serving/batching_policy.hpp"
#include "serving/priority_policy.hpp"
#include "serving/serving_settings.hpp"

namespace roofsim {

namespace {

nlohmann::json percentiles_json(const Percentiles& p) {
  return {{"mean", p.mean}, {"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"max", p.max}};
}

}  // namespace

std::string groups_text(const std::vector<SequenceGroup>& groups) {
  std::string s;
  for (const SequenceGroup& g : groups) {
    if (!s.empty()) s += " + ";
    s += g.prefill ? std::to_string(g.count) + "x prefill " + std::to_string(g.new_tokens) + "@" + std::to_string(g.context)
                   : std::to_string(g.count) + "x decode @" + std::to_string(g.context);
  }
  return s;
}

namespace {

// TensorRT-LLM's batch waiting, when it can hold anything (both settings above 0).
std::string describe_batch_wait(const SchedulerConfig& c) {
  if (c.batch_wait_iters <= 0 || c.batch_wait_tokens_ratio <= 0) return "";
  std::ostringstream s;
  s << ", new prompts held while decodes run for up to " << c.batch_wait_iters << " iterations or until "
    << c.batch_wait_tokens_ratio << " x max tokens (batch waiting)";
  return s.str();
}

// TensorRT-LLM's attention-DP balancing, when on.
std::string describe_adp_balance(const SchedulerConfig& c) {
  if (c.adp_balance_timeout_iters <= 0 && c.adp_batching_wait_iters <= 0) return "";
  return ", with attention DP prompts held until every rank has one, up to " + std::to_string(c.adp_balance_timeout_iters) +
         " iterations (+" + std::to_string(c.adp_batching_wait_iters) + " batching; TensorRT-LLM's balancing)";
}

}  // namespace

std::string describe_scheduler(const SchedulerConfig& c, std::int64_t stages) {
  const std::int64_t micro_batches = c.micro_batches_on(stages);
  if (!batchings().get(c.policy, "scheduler").iteration_level()) return c.policy + " batches of up to " + std::to_string(c.max_batch);
  return std::string("continuous batching, ") +
         priorities().get(c.priority, "priority").summary() + ", max batch " +
         std::to_string(c.max_batch) + ", max " + std::to_string(c.max_tokens) + " tokens per iteration" +
         (c.max_prompts > 0 ? ", at most " + std::to_string(c.max_prompts) + (c.max_prompts == 1 ? " prompt" : " prompts") + " started per iteration" : "") +
         (c.chunked_prefill ? ", chunked prefill" : "") + describe_batch_wait(c) + describe_adp_balance(c) +
         (stages > 1 || micro_batches > 1 ? ", " + std::to_string(micro_batches) + " micro-batches under way at once" : "");
}

nlohmann::json serving_json(const ServingResult& r) {
  const ServingSetup& s = r.setup;
  const ServingSummary& m = r.summary;
  nlohmann::json j;
  j["schema_version"] = kSchemaVersion;
  j["kind"] = "serving";
  j["settings"] = serving_settings_json(s);
  j["hardware"] = r.hw.name;
  j["model"] = r.model.name;
  j["tp"] = s.machine.tp;
  j["pp"] = s.machine.pp;
  j["ep"] = s.machine.ep;
  j["routing"] = moe_routing_name(s.machine.routing);
  j["moe_kernel"] = moe_kernel_name(s.machine.moe_kernel);
  j["moe_tp"] = s.machine.moe_tp > 0 ? s.machine.moe_tp : s.machine.tp;
  j["chips"] = r.chips;
  j["topology"] = r.topology;
  j["weights_dtype"] = dtype_name(s.machine.precision.weights);
  j["activations_dtype"] = dtype_name(s.machine.precision.activations);
  j["kv_dtype"] = dtype_name(s.machine.precision.kv);
  j["scheduler"] = describe_scheduler(s.scheduler, s.machine.pp);
  j["workload"] = {{"requests", r.requests.size()},
                   {"arrivals", s.workload.arrivals.kind == Arrivals::Kind::closed_loop ? "closed_loop"
                                : s.workload.arrivals.kind == Arrivals::Kind::poisson   ? "poisson"
                                : s.workload.arrivals.kind == Arrivals::Kind::burst     ? "burst"
                                                                                        : "trace"},
                   {"concurrency", s.workload.arrivals.concurrency},
                   {"rate_per_s", s.workload.arrivals.rate_per_s},
                   {"seed", s.workload.seed},
                   {"warmup_requests", s.warmup_requests}};
  j["kv_cache"] = {{"blocks_per_chip", r.kv_blocks},
                   {"block_tokens", s.kv.block_tokens},
                   {"bytes_per_block", r.kv_bytes_per_block},
                   {"admission", s.kv.admission},
                   {"preemption", s.kv.preemption},
                   {"prefix_caching", s.kv.prefix_caching},
                   {"prefix_hits", r.prefix_hits},
                   {"prefix_tokens_reused", r.prefix_tokens_reused},
                   {"prefix_evictions", r.prefix_evictions}};
  j["memory_per_chip"] = {{"weights", r.weights_bytes}, {"activations", r.activations_bytes}};
  j["iteration_overhead_s"] = s.iteration_overhead_s;
  j["sequence_overhead_s"] = s.sequence_overhead_s;
  j["overlap_scheduler"] = s.overlap_host;
  j["late_release"] = s.late_release();
  j["schedule_ahead"] = s.schedule_ahead();
  j["batch_wait_iters"] = s.scheduler.batch_wait_iters;
  j["batch_wait_tokens_ratio"] = s.scheduler.batch_wait_tokens_ratio;
  j["adp_balance_timeout_iters"] = s.scheduler.adp_balance_timeout_iters;
  j["adp_batching_wait_iters"] = s.scheduler.adp_batching_wait_iters;
  j["limits_per_rank"] = s.scheduler.limits_per_rank;
  j["frontend"] = {{"request_s", s.frontend.request_s},
                   {"prompt_token_s", s.frontend.prompt_token_s},
                   {"response_s", s.frontend.response_s},
                   {"busy_share", r.frontend_busy_share}};
  j["buckets_per_octave"] = s.buckets_per_octave;
  j["sample_layers"] = s.sample_layers;
  j["notes"] = r.notes;
  j["summary"] = {{"requests", m.requests},
                  {"duration_s", m.duration_s},
                  {"output_tok_s", m.output_tok_s},
                  {"output_tok_s_per_chip", m.output_tok_s_per_chip},
                  {"total_tok_s", m.total_tok_s},
                  {"requests_per_s", m.requests_per_s},
                  {"tok_s_per_user", m.tok_s_per_user},
                  {"ttft_s", percentiles_json(m.ttft_s)},
                  {"tpot_s", percentiles_json(m.tpot_s)},
                  {"e2e_s", percentiles_json(m.e2e_s)},
                  {"slo_ttft_s", s.slo_ttft_s},
                  {"slo_tpot_s", s.slo_tpot_s},
                  {"goodput_requests_per_s", m.goodput_requests_per_s},
                  {"slo_attainment", m.slo_attainment},
                  {"preemptions", m.preemptions},
                  {"swapped_out_tokens", m.swapped_out_tokens},
                  {"swapped_in_tokens", m.swapped_in_tokens},
                  {"swap_share", m.swap_share},
                  {"mean_batch", m.mean_batch},
                  {"decode_intensity", m.decode_intensity},
                  {"tokens_per_step", m.tokens_per_step},
                  {"draft_share", m.draft_share},
                  {"roofline_share", m.roofline_share},
                  {"ep_imbalance", m.ep_imbalance},
                  {"energy_j", number_or_null(m.energy_modelled, m.energy_j)},
                  {"energy_per_token_j", number_or_null(m.energy_modelled && m.energy_per_output_token_j > 0, m.energy_per_output_token_j)},
                  {"energy_per_request_j", number_or_null(m.energy_modelled, m.energy_per_request_j)},
                  {"avg_power_w", number_or_null(m.energy_modelled, m.avg_power_w)}};
  // Silicon and cost of the chips (core/chip_area.hpp): each chip's output tokens/s over its die's
  // mm2 and over its cost in thousands of USD; null without [area] / [cost].
  const RunSilicon v = silicon_value(r.hw, 1, m.output_tok_s_per_chip);
  j["summary"]["chip_area_mm2"] = number_or_null(v.area_modelled, v.chip_area.total());
  j["summary"]["chip_cost_usd"] = number_or_null(v.cost_modelled, v.chip_cost.total_usd());
  j["summary"]["tokens_per_s_per_mm2"] = number_or_null(v.area_modelled, v.tokens_per_s_per_mm2);
  j["summary"]["tokens_per_s_per_kusd"] = number_or_null(v.cost_modelled, v.tokens_per_s_per_kusd);
  const DisaggregationConfig& g = s.disaggregation;
  j["disaggregation"] = !g.enabled ? nlohmann::json(nullptr)
                                   : nlohmann::json{{"prefill_instances", g.prefill_instances},
                                                    {"decode_instances", g.decode_instances},
                                                    {"prefill_tp", g.prefill_tp > 0 ? g.prefill_tp : s.machine.tp},
                                                    {"decode_tp", g.decode_tp > 0 ? g.decode_tp : s.machine.tp},
                                                    {"routing", g.routing},
                                                    {"first_token", first_token_name(g.first_token)},
                                                    {"decode_first_response", g.decode_first_response},
                                                    {"prefill_schedule_ahead", g.prefill_schedule_ahead},
                                                    {"prefill_kv_blocks", r.prefill_kv_blocks},
                                                    {"transfer_topology", r.transfer_topology},
                                                    {"kv_transfers", r.kv_transfers},
                                                    {"kv_transfer_bytes", r.kv_transfer_bytes},
                                                    {"kv_link_bytes", r.kv_link_bytes},
                                                    {"kv_transfer_s", r.kv_transfer_s}};
  const SpeculativeConfig& d = s.speculative;
  j["speculative"] = d.tokens == 0 ? nlohmann::json(nullptr)
                                   : nlohmann::json{{"tokens", d.tokens},
                                                    {"draft", d.draft},
                                                    {"acceptance", d.position_acceptance.empty() ? nlohmann::json(d.acceptance)
                                                                                                 : nlohmann::json(d.position_acceptance)}};
  j["iterations"] = r.iterations.size();
  j["shapes_simulated"] = r.shapes.size();
  j["simulated_s"] = r.simulated_s;
  j["wall_s"] = r.wall_s;
  j["sim_wall_s"] = r.sim_wall_s;
  nlohmann::json shapes = nlohmann::json::array();
  for (const IterationShape& sh : r.shapes) {
    shapes.push_back({{"shape", groups_text(sh.groups)}, {"pool", sh.pool}, {"seconds", sh.outcome.seconds},
                      {"bound_s", sh.outcome.bound_s}, {"uses", sh.uses},
                      {"flops", sh.outcome.flops}, {"bytes", sh.outcome.bytes}});
  }
  j["shapes"] = shapes;
  return j;
}

std::string requests_csv(const ServingResult& r) {
  return records_csv(serving_request_records(r), {"id", "arrival_s", "first_token_s", "finish_s", "ttft_s", "tpot_s", "e2e_s",
                                                  "prompt_tokens", "output_tokens", "preemptions", "counted", "kv_arrival_s"});
}

nlohmann::json serving_request_records(const ServingResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const RequestRecord& q : r.requests) {
    rows.push_back({{"id", q.spec.id},
                    {"arrival_s", q.arrival_s},
                    {"first_token_s", q.first_token_s},
                    {"finish_s", q.finish_s},
                    {"ttft_s", q.ttft_s()},
                    {"tpot_s", q.tpot_s()},
                    {"e2e_s", q.e2e_s()},
                    {"prompt_tokens", q.spec.prompt_tokens},
                    {"output_tokens", q.spec.output_tokens},
                    {"preemptions", q.preemptions},
                    {"counted", q.spec.id >= r.setup.warmup_requests},
                    {"kv_arrival_s", q.kv_arrival_s >= 0 ? nlohmann::json(q.kv_arrival_s) : nlohmann::json(nullptr)}});
  }
  return rows;
}

nlohmann::json serving_iteration_records(const ServingResult& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < r.iterations.size(); ++i) {
    const IterationRecord& it = r.iterations[i];
    rows.push_back({{"iteration", i},
                    {"worker", it.worker},
                    {"micro_batch", it.micro_batch},
                    {"start_s", it.start_s},
                    {"seconds", it.seconds},
                    {"prefill_sequences", it.prefill_sequences},
                    {"prefill_tokens", it.prefill_tokens},
                    {"decode_sequences", it.decode_sequences},
                    {"decode_tokens", it.decode_tokens},
                    {"draft_s", it.draft_seconds},
                    {"swap_s", it.swap_seconds},
                    {"kv_blocks_used", it.kv_blocks_used},
                    {"waiting", it.waiting},
                    {"shape", it.shape}});
  }
  return rows;
}

std::string iterations_csv(const ServingResult& r) {
  return records_csv(serving_iteration_records(r),
                     {"iteration", "worker", "micro_batch", "start_s", "seconds", "prefill_sequences", "prefill_tokens", "decode_sequences",
                      "decode_tokens", "draft_s", "swap_s", "kv_blocks_used", "waiting", "shape"});
}

}  // namespace roofsim
