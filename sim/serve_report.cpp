// The text report of a `roofsim serve` run (print_serve_report, sim/serve_report.hpp).
#include "sim/serve_report.hpp"

#include <algorithm>
#include <iostream>

#include "core/format.hpp"
#include "experiment/plot.hpp"
#include "experiment/silicon.hpp"
#include "serving/kv_admission.hpp"
#include "serving/kv_preemption.hpp"
#include "serving/report.hpp"
#include "serving/instance_routing.hpp"
#include "serving/serving_trace.hpp"
#include "sim/output.hpp"
#include "validation/analytic.hpp"

namespace roofsim {

namespace {

std::string millis_2dp(double s) { return format_fixed(s * 1e3, 2); }

// Whether the run's preemption policy copies a preempted request's KV cache to the host.
bool swaps(const ServingSetup& s) {
  return kv_preemptions().get(s.kv.preemption, "kv_preemption").preempted_kv() == PreemptedKv::copied_to_host;
}

}  // namespace

void print_serve_report(std::ostream& os, const ServingResult& r) {
  const ServingSetup& s = r.setup;
  const ServingSummary& m = r.summary;
  os << "roofsim serve: " << r.model.name << " on " << (r.chips > 1 ? std::to_string(r.chips) + " x " : "") << r.hw.description
     << (s.disaggregation.enabled ? " (disaggregated prefill and decode)"
         : r.chips > 1           ? " (" + r.topology + ", " + parallelism_name(s.machine.tp, s.machine.ep, s.machine.pp) + ")"
                                 : "")
     << ", simulated\n\n";
  os << "workload   " << r.requests.size() << " requests, ";
  switch (s.workload.arrivals.kind) {
    case Arrivals::Kind::closed_loop: os << "closed loop at concurrency " << s.workload.arrivals.concurrency; break;
    case Arrivals::Kind::poisson: os << "Poisson arrivals at " << format_general(s.workload.arrivals.rate_per_s) << "/s"; break;
    case Arrivals::Kind::burst:
      os << "bursts of " << s.workload.arrivals.burst_size << " every " << format_seconds(s.workload.arrivals.burst_interval_s);
      break;
    case Arrivals::Kind::trace: os << "trace " << s.workload.trace_path; break;
  }
  if (s.workload.arrivals.kind != Arrivals::Kind::trace) {
    os << "; prompt " << describe(s.workload.prompt) << ", output " << describe(s.workload.output) << "; seed " << s.workload.seed;
  }
  os << "\nscheduler  " << describe_scheduler(s.scheduler, s.machine.pp) << "; iteration overhead " << format_seconds(s.iteration_overhead_s)
     << (s.overlap_host ? ", host work overlapped with the pass before (overlap scheduler)"
                        : s.scheduler.late_release ? ", slots freed one step late (late release)" : "")
     << (!s.overlap_host && s.schedule_ahead() && !s.disaggregation.enabled ? ", batches formed an iteration ahead" : "")
     << "\nKV cache   " << r.kv_blocks << " blocks of " << s.kv.block_tokens << " tokens per chip ("
     << format_si(static_cast<double>(r.kv_blocks) * r.kv_bytes_per_block, "B", 2) << "; weights "
     << format_si(r.weights_bytes, "B", 2) << ", activations " << format_si(r.activations_bytes, "B", 2) << " of "
     << format_si(r.hw.hbm.capacity_bytes, "B", 2) << "), "
     << kv_admissions().get(s.kv.admission, "kv_admission").summary()
     << (swaps(s) ? " by swapping to the host" : "")
     << (s.kv.prefix_caching ? "; prefix caching: " + std::to_string(r.prefix_hits) + " hits, " +
                                   std::to_string(r.prefix_tokens_reused) + " prompt tokens not computed, " +
                                   std::to_string(r.prefix_evictions) + " prefixes evicted"
                             : "")
     << "\n";
  for (const std::string& n : r.notes) os << "note       " << n << "\n";
  os << "\n";
  TextTable t({"latency (ms)", "mean", "p50", "p90", "p99", "max"});
  for (const auto& [name, p] : {std::pair{"time to first token", m.ttft_s}, {"time per output token", m.tpot_s},
                                {"end to end", m.e2e_s}}) {
    t.add_row({name, millis_2dp(p.mean), millis_2dp(p.p50), millis_2dp(p.p90), millis_2dp(p.p99), millis_2dp(p.max)});
  }
  t.print(os);
  os << "\nthroughput " << format_fixed(m.output_tok_s, 1) << " output tokens/s (" << format_fixed(m.output_tok_s_per_chip, 1)
     << " per chip), " << format_fixed(m.total_tok_s, 1) << " tokens/s with prompts, " << format_fixed(m.requests_per_s, 3)
     << " requests/s; " << format_fixed(m.tok_s_per_user, 1) << " tokens/s per user\n";
  if (s.slo_ttft_s > 0 || s.slo_tpot_s > 0) {
    os << "goodput    " << format_fixed(m.goodput_requests_per_s, 3) << " requests/s meet TTFT <= "
       << (s.slo_ttft_s > 0 ? format_seconds(s.slo_ttft_s) : "any") << " and TPOT <= "
       << (s.slo_tpot_s > 0 ? format_seconds(s.slo_tpot_s) : "any") << " (" << format_fixed(100.0 * m.slo_attainment, 1)
     << "% of requests)\n";
  }
  if (s.speculative.tokens > 0) {
    os << "speculative " << s.speculative.tokens << " drafted tokens per step by "
       << (s.speculative.draft == "mtp" ? "the model's MTP head" : s.speculative.draft) << ": "
       << format_fixed(m.tokens_per_step, 2) << " output tokens per sequence and target step; the drafts took "
       << format_fixed(100.0 * m.draft_share, 1) << "% of the time\n";
  }
  if (s.disaggregation.enabled) {
    const DisaggregationConfig& d = s.disaggregation;
    const std::int64_t ep = s.machine.ep;
    os << "disaggregated " << d.prefill_instances << " prefill x " << (d.prefill_tp > 0 ? d.prefill_tp : s.machine.tp) * ep << " chips ("
       << r.prefill_kv_blocks << " KV blocks each), " << d.decode_instances << " decode x "
       << (d.decode_tp > 0 ? d.decode_tp : s.machine.tp) * ep << " chips (the KV cache above)"
       << (ep > 1 ? ", each " + std::to_string(ep) + " EP ranks" : std::string()) << "; " << r.kv_transfers
       << " KV transfers on " << r.transfer_topology << ": " << format_si(r.kv_transfer_bytes, "B", 2) << ", "
       << format_seconds(r.kv_transfers > 0 ? r.kv_transfer_s / static_cast<double>(r.kv_transfers) : 0.0) << " each on average; "
       << instance_routings().get(d.routing, "instance_routing").summary() << ", first token from the "
       << (d.first_token == DisaggregationConfig::FirstToken::decode
               ? "decode instance" + (d.decode_first_response > 1 ? " in its iteration " + std::to_string(d.decode_first_response) : std::string())
               : std::string("prefill instance"))
       << (s.schedule_ahead() || d.prefill_schedule_ahead
               ? std::string("; batches formed an iteration ahead on the ") +
                     (s.schedule_ahead() && d.prefill_schedule_ahead ? "prefill and decode" : s.schedule_ahead() ? "decode" : "prefill") + " instances"
               : std::string())
       << "\n";
  }
  if (m.preemptions > 0) {
    os << "preempted  " << m.preemptions << " times";
    if (swaps(s)) {
      os << "; " << m.swapped_out_tokens << " KV tokens swapped out to the host and " << m.swapped_in_tokens
         << " back in, " << format_fixed(100.0 * m.swap_share, 1) << "% of the time waiting for the copies";
    } else {
      os << "; each preempted request prefilled its prompt and output so far again";
    }
    os << "\n";
  }
  if (s.machine.ep > 1) {
    os << "EP ranks   " << s.machine.ep << ", each request pinned to one: an iteration's busiest rank held "
       << format_fixed(m.ep_imbalance, 2) << "x an even share of its tokens on average, and set its time\n";
  }
  if (s.frontend.enabled()) {
    // Above ~95% the API server, not the chips, sets the pace (new requests wait outside the engine).
    os << "API server busy " << format_fixed(100.0 * r.frontend_busy_share, 1) << "% of the time ("
       << format_fixed(s.frontend.request_s * 1e6, 0) << " us per request + " << format_fixed(s.frontend.prompt_token_s * 1e6, 1)
       << " us per prompt token, " << format_fixed(s.frontend.response_s * 1e6, 0) << " us per streamed response)\n";
  }
  os << "batches    " << format_fixed(m.mean_batch, 1) << " sequences per iteration on average, " << m.preemptions
     << " preemptions; decode iterations at " << format_fixed(m.decode_intensity, 1) << " FLOP/B (ridge "
     << format_fixed(roofline_for(r.hw, s.machine.precision.activations).ridge(), 1) << "); the passes ran at "
     << format_fixed(100.0 * m.roofline_share, 1) << "% of their roofline bound's speed\n";
  if (m.energy_modelled) {
    os << "energy     " << format_si(m.energy_per_output_token_j, "J", 3) << " per output token ("
       << format_fixed(m.energy_per_output_token_j > 0 ? 1.0 / m.energy_per_output_token_j : 0.0, 2) << " tokens/J), "
       << format_si(m.energy_per_request_j, "J", 3) << " per request; " << format_fixed(m.avg_power_w, 0)
       << " W per chip on average (static " << format_fixed(r.hw.energy.static_w, 0) << " W)\n";
  }
  // What the throughput costs in silicon and money, per chip ([area], [cost]).
  if (const RunSilicon v = silicon_value(r.hw, 1, m.output_tok_s_per_chip); v.area_modelled) {
    os << "silicon    " << format_fixed(v.chip_area.total(), 0) << " mm2 per chip: " << format_fixed(100.0 * v.tokens_per_s_per_mm2, 1)
       << " output tokens/s per 100 mm2";
    if (v.cost_modelled) {
      os << ", " << format_fixed(v.tokens_per_s_per_kusd, 1) << " per 1,000 USD of chips (USD " << format_fixed(v.chip_cost.total_usd(), 0)
         << " a chip)";
    }
    os << "\n";
  }
  os << "\n" << m.requests << " requests counted" << (s.warmup_requests > 0 ? " (" + std::to_string(s.warmup_requests) + " warm-up left out)" : "")
     << " over " << format_seconds(m.duration_s) << " simulated; " << r.iterations.size() << " iterations as "
     << r.shapes.size() << " distinct shapes simulated on the chip model"
     << (s.buckets_per_octave > 0 ? " (shapes bucketed, " + std::to_string(s.buckets_per_octave) + " per octave; --buckets 0 for exact)" : " (exact shapes)")
     << (!s.sample_layers ? ", every layer"
         : s.machine.pp > 1 ? ", every layer (layer replay needs a single pipeline stage)"
                            : ", identical layers replayed (--all-layers simulates every one)")
     << "; wall time " << format_seconds(r.wall_s) << " (" << format_seconds(r.sim_wall_s) << " simulating passes)\n";
}

}  // namespace roofsim
