// The statistics of a serving run: throughput, latency percentiles, goodput.
#include <algorithm>
#include <cmath>

#include "serving/serving.hpp"

namespace roofsim {

namespace {

// Percentiles by linear interpolation between closest ranks (numpy's default).
Percentiles percentiles(std::vector<double> v) {
  Percentiles p;
  if (v.empty()) return p;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    const double pos = q * static_cast<double>(v.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  double sum = 0;
  for (double x : v) sum += x;
  p.mean = sum / static_cast<double>(v.size());
  p.p50 = at(0.5);
  p.p90 = at(0.9);
  p.p99 = at(0.99);
  p.max = v.back();
  return p;
}

// The run's energy from its iterations' passes and the chips' static power over their span.
void add_energy(const ServingResult& r, ServingSummary& s) {
  const EnergySpec& e = r.hw.energy;
  if (!e.present || r.iterations.empty()) return;
  double dynamic = 0, begin = INFINITY, end = 0;
  for (const IterationRecord& it : r.iterations) {
    dynamic += r.shapes[static_cast<std::size_t>(it.shape)].outcome.energy_j + it.draft_energy_j;
    begin = std::min(begin, it.start_s);
    end = std::max(end, it.start_s + it.seconds);
  }
  const double span = end - begin, chips = static_cast<double>(r.chips);
  double out_tokens = 0, requests = 0;
  for (const RequestRecord& q : r.requests) {
    if (q.finish_s < 0) continue;
    out_tokens += static_cast<double>(q.spec.output_tokens);
    ++requests;
  }
  s.energy_modelled = true;
  s.energy_j = dynamic + e.static_w * chips * span;
  if (out_tokens > 0) s.energy_per_output_token_j = s.energy_j / out_tokens;
  if (requests > 0) s.energy_per_request_j = s.energy_j / requests;
  if (span > 0) s.avg_power_w = s.energy_j / span / chips;
}

}  // namespace

ServingSummary summarize(const ServingResult& r) {
  ServingSummary s;
  std::vector<double> ttft, tpot, e2e;
  double first = INFINITY, last = 0, out_tokens = 0, all_tokens = 0;
  std::int64_t good = 0;
  for (const RequestRecord& q : r.requests) {
    if (q.spec.id < r.setup.warmup_requests || q.finish_s < 0) continue;
    ++s.requests;
    first = std::min(first, q.arrival_s);
    last = std::max(last, q.finish_s);
    out_tokens += static_cast<double>(q.spec.output_tokens);
    all_tokens += static_cast<double>(q.spec.output_tokens + q.spec.prompt_tokens);
    ttft.push_back(q.ttft_s());
    if (q.spec.output_tokens > 1) tpot.push_back(q.tpot_s());
    e2e.push_back(q.e2e_s());
    s.preemptions += q.preemptions;
    const bool meets = (r.setup.slo_ttft_s <= 0 || q.ttft_s() <= r.setup.slo_ttft_s) &&
                       (r.setup.slo_tpot_s <= 0 || q.tpot_s() <= r.setup.slo_tpot_s);
    if (meets) ++good;
  }
  if (s.requests == 0) return s;
  s.duration_s = last - first;
  if (s.duration_s > 0) {
    s.output_tok_s = out_tokens / s.duration_s;
    s.total_tok_s = all_tokens / s.duration_s;
    s.requests_per_s = static_cast<double>(s.requests) / s.duration_s;
    s.goodput_requests_per_s = static_cast<double>(good) / s.duration_s;
    s.output_tok_s_per_chip = s.output_tok_s / static_cast<double>(r.chips);
  }
  s.slo_attainment = static_cast<double>(good) / static_cast<double>(s.requests);
  s.ttft_s = percentiles(ttft);
  s.tpot_s = percentiles(tpot);
  s.e2e_s = percentiles(e2e);
  if (s.tpot_s.mean > 0) s.tok_s_per_user = 1.0 / s.tpot_s.mean;
  double seqs = 0, decode_flops = 0, decode_bytes = 0, decode_steps = 0, decode_tokens = 0, draft_s = 0, busy_s = 0;
  double bound_s = 0, pass_s = 0, swap_s = 0, busiest_tokens = 0, tokens = 0;
  for (const IterationRecord& it : r.iterations) {
    seqs += static_cast<double>(it.prefill_sequences + it.decode_sequences);
    decode_steps += static_cast<double>(it.decode_sequences);
    decode_tokens += static_cast<double>(it.decode_tokens);
    draft_s += it.draft_seconds;
    swap_s += it.swap_seconds;
    s.swapped_out_tokens += it.swap_out_tokens;
    s.swapped_in_tokens += it.swap_in_tokens;
    busy_s += it.seconds;
    busiest_tokens += static_cast<double>(it.busiest_rank_tokens);
    tokens += static_cast<double>(it.tokens);
    const PassOutcome& pass = r.shapes[static_cast<std::size_t>(it.shape)].outcome;
    bound_s += pass.bound_s;
    pass_s += pass.seconds;
    if (it.prefill_sequences == 0) {
      const PassOutcome& o = r.shapes[static_cast<std::size_t>(it.shape)].outcome;
      decode_flops += o.flops;
      decode_bytes += o.bytes;
    }
  }
  if (!r.iterations.empty()) s.mean_batch = seqs / static_cast<double>(r.iterations.size());
  if (decode_bytes > 0) s.decode_intensity = decode_flops / decode_bytes;
  if (decode_steps > 0) s.tokens_per_step = decode_tokens / decode_steps;
  if (busy_s > 0) s.draft_share = draft_s / busy_s;
  if (busy_s > 0) s.swap_share = swap_s / busy_s;
  if (pass_s > 0) s.roofline_share = bound_s / pass_s;
  if (tokens > 0) s.ep_imbalance = busiest_tokens * static_cast<double>(r.setup.machine.ep) / tokens;
  add_energy(r, s);
  return s;
}

}  // namespace roofsim
