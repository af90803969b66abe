// What a run checks before it simulates (experiment/run_checks.hpp).
#include "experiment/run_checks.hpp"

#include <algorithm>
#include <string>

#include <unistd.h>

#include "components/tiling.hpp"
#include "core/checked.hpp"
#include "core/error.hpp"
#include "core/format.hpp"
#include "experiment/machine_setup.hpp"

namespace roofsim {

// memory_need() with prefill's graph given: a run builds that graph once, for this, the work
// guard and the simulation.
MemoryNeed memory_need_of(const ModelConfig& m, const Experiment& e, const OpGraph& prefill) {
  MemoryNeed need;
  const double tp = static_cast<double>(e.tp);
  // A stage holds its share of the layers (the largest share sets the need).
  const double layer_share = static_cast<double>((m.layers + e.pp - 1) / e.pp) / static_cast<double>(m.layers);
  // Per chip: the linear layers and the vocabulary split tp ways; KV heads split, or
  // replicated when there are fewer than tp. With EP, each EP rank holds every non-expert
  // weight (TP-split) and its ep-th of the experts (TP-split too).
  // Shared experts are not split by EP (in total_params() - experts: TP-split like the rest).
  // MLA's down projections and their norms are replicated on every TP rank.
  const double experts = m.routed_expert_params();
  double replicated = 0;
  if (m.mla) {
    const LatentAttention& a = *m.mla;
    replicated = static_cast<double>(m.layers) * static_cast<double>(a.q_lora_rank + a.kv_lora_rank + m.hidden * (a.q_lora_rank + a.cache_dims()));
  }
  need.weights = (((m.total_params() - experts - replicated) / tp + replicated) * dtype_bytes(e.precision.weights) +
                  experts / (tp * static_cast<double>(e.ep)) * dtype_bytes(e.precision.for_experts().weights)) *
                 (e.pp > 1 ? layer_share : 1.0);
  // KV heads split over the TP group, or replicated when fewer; MLA's latent is one shared
  // "KV head": every TP rank holds the whole latent cache of its sequences (vLLM and SGLang
  // without DP attention). Sliding-window layers hold at most the window (kv_cache_bytes).
  const double kv_share =
      m.mla ? 1.0 : static_cast<double>(std::max<std::int64_t>(1, m.kv_heads / e.tp)) / static_cast<double>(m.kv_heads);
  need.kv_cache = m.kv_cache_bytes(e.precision.kv, e.prompt + e.generate) * kv_share * layer_share *
                  static_cast<double>(e.batch / e.ep);
  // The live activations of the largest op of prefill: its inputs and its output (which is the
  // next op's input, so it is not counted again). Engines reuse these buffers from op to op.
  double largest = 0;
  for (OpId v = 0; v < prefill.size(); ++v) {
    const OpNode& op = prefill.op(v);
    OpCost c = op.cost();
    // Weights and the KV cache are counted above; what remains is activation traffic.
    double act = c.bytes();
    act -= op.weight_bytes();
    if (op.is_collective) act = 2.0 * static_cast<double>(op.collective_bytes());
    largest = std::max(largest, act);
  }
  need.activations = largest;
  return need;
}

MemoryNeed memory_need(const ModelConfig& m, const Experiment& e) {
  return memory_need_of(m, e, build_forward(m, pass_for(e, 0), e.precision, e.attention));
}

// Sizes first: once these hold, every product of them (tokens x hidden, tp x pp x ep) stays
// far from int64's range.
void check_experiment_sizes(const Experiment& e) {
  check_range(e.batch, 1, kMaxBatch, "${batch}");
  check_range(e.prompt, 1, kMaxTokens, "${prompt}");
  check_range(e.generate, 1, kMaxTokens, "${gen}");
  check_range(e.tp, 1, kMaxChips, "${tp}");
  check_range(e.pp, 1, kMaxChips, "${pp}");
  check_range(e.ep, 1, kMaxChips, "${ep}");
  check_range(e.moe_tp, 0, kMaxChips, "${moe_tp}", "0: all of --tp");
  check_range(e.nodes, 0, kMaxChips, "${nodes}", "0: not given");
  check_range(e.replicas, 1, kMaxChips, "${replicas}");
  const std::int64_t chips = e.tp * e.pp * e.ep;  // each at most 2^16: no overflow
  if (chips > kMaxChips) {
    throw InputError("${tp} x ${pp} x ${ep}: " + std::to_string(chips) + " chips, at most " + std::to_string(kMaxChips));
  }
  if (chips * e.replicas > kMaxChips) {
    throw InputError("${replicas} x ${tp} x ${pp} x ${ep}: " + std::to_string(chips * e.replicas) + " chips, at most " + std::to_string(kMaxChips));
  }
  check_range(e.microbatches, 0, e.batch, "${microbatches}", "0: automatic");
  check_range(e.decode_stride, 0, e.generate, "${decode_stride}", "0: automatic");
  if (!(e.max_events >= 0)) throw InputError("${max_events} must be a number >= 0");
}

// An error about settings an experiment file gave is shown at the file's line, with the
// file's key, rather than as a flag the user never typed.
InputError located_in_experiment_file(const InputError& err, const Experiment& e) {
  std::string message = err.raw();
  std::string where;
  for (const auto& [name, location] : e.set_in_file) {
    const std::string mark = "${" + name + "}";
    if (message.find(mark) == std::string::npos) continue;
    const std::size_t colon = location.rfind(": ");
    if (where.empty()) where = location.substr(0, colon) + ": ";
    const std::string key = location.substr(colon + 2);
    for (std::size_t at = message.find(mark); at != std::string::npos; at = message.find(mark, at + key.size())) {
      message.replace(at, mark.size(), key);
    }
  }
  return InputError(where + message);
}

namespace {

// Simulation events of one pass, estimated from the plans its chips will run (each op's
// pipeline steps, components/simulation.hpp) and per collective its chips' link transfers.
double estimate_pass_events(const OpGraph& g, const HardwareSpec& hw, std::int64_t tp) {
  constexpr double kPerCollectiveChip = 10;
  const TilingLimits limits = tiling_limits(hw);
  double events = 0;
  for (OpId v = 0; v < g.size(); ++v) {
    const OpNode& op = g.op(v);
    if (op.is_collective) {
      events += estimated_op_events(0) + kPerCollectiveChip * static_cast<double>(tp);
    } else if (op.is_gemm) {
      events += estimated_gemm_events(plan_gemm(op.gemm, hw.matrix, limits), hw.dma.request_bytes);
    } else {
      events += estimated_vector_events(plan_vector(op.vector, limits), hw.vector.units, hw.dma.request_bytes);
    }
  }
  return events;
}

}  // namespace

// The work guard: before the other steps are built, the run's events (prefill, and the decode
// steps it simulates, interpolated between the first and the last, whose graphs are given when
// there are decode steps) against Experiment::max_events, and the memory the simulated steps'
// graphs and results take against what the machine has.
double check_experiment_work(const ExperimentResult& r, const Experiment& e, const OpGraph& prefill, const OpGraph* first_decode,
                  const OpGraph* last_decode) {
  const std::vector<int>& steps = r.simulated_steps;
  double events = estimate_pass_events(prefill, r.hw, e.tp);
  if (steps.size() > 1) {
    const double decode = 0.5 * (estimate_pass_events(*first_decode, r.hw, e.tp) + estimate_pass_events(*last_decode, r.hw, e.tp));
    events += decode * static_cast<double>(steps.size() - 1);
  }
  // Memory: every simulated step keeps its graph and its ops' results, about 1.6 kB per op
  // (measured: Llama-3-8B, 2048 simulated steps of 291 ops, 937 MB peak).
  constexpr double kBytesPerOpInstance = 1600;
  const double ops = static_cast<double>(prefill.size());
  const double memory = kBytesPerOpInstance * ops * static_cast<double>(steps.size());
  const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  if (physical > 0 && memory > 0.8 * physical) {
    throw InputError("this run would keep about " + format_si(memory, "B", 1) + " of results in memory (" +
                     std::to_string(steps.size()) + " simulated steps), more than this machine's " +
                     format_si(physical, "B", 1) + " allow: simulate fewer steps (${decode_stride}) or a smaller run");
  }
  if (e.max_events > 0 && events > e.max_events) {
    throw InputError("this run would take about " + format_si(events, "", 1) + " simulation events (jobs counted as a tenth; " +
                     std::to_string(steps.size() - 1) + " decode steps simulated), more than the limit of " +
                     format_si(e.max_events, "", 1) + ": raise ${max_events} (0: no limit), or simulate fewer "
                     "steps (${decode_stride}) or a smaller run");
  }
  return events;
}

}  // namespace roofsim
