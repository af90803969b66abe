#include "components/layer_replay.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <tuple>

namespace roofsim {

bool MachineState::operator==(const MachineState& o) const {
  return std::tie(dispatching, chip, links) == std::tie(o.dispatching, o.chip, o.links);
}

namespace {

std::uint64_t bits(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

// Everything about an op that its simulation reads (not its name).
void describe_op(const OpNode& op, std::vector<std::uint64_t>& out) {
  const GemmShape& g = op.gemm;
  const VectorShape& v = op.vector;
  for (std::int64_t x : {g.batch, g.m, g.n, g.k, g.v_n, g.kernel_ctas, g.kernel_k_splits, g.kernel_ctas_per_unit, g.scale_block_k, g.kernel_keys, g.kernel_key_tile, g.kernel_window_key_steps, g.kernel_fp8_cache_key_tiles, g.kernel_head_dim, g.kernel_value_dim, g.kernel_cta_query_elements, g.kernel_tile_m, g.kernel_tile_n, g.kernel_k_bytes, g.kernel_cluster_m, g.kernel_tuned_m, v.kernel_ctas, v.kernel_ctas_per_unit, v.inflight_bytes_per_unit, v.elements_in, v.elements_out, op.collective_elements}) {
    out.push_back(static_cast<std::uint64_t>(x));
  }
  for (DType d : {g.a, g.b, g.c, v.dtype, v.out_dtype}) out.push_back(static_cast<std::uint64_t>(d));
  for (bool b : {op.is_gemm, g.fused_attention, g.shared_kv, g.decode_kernel, g.gqa_decode_kernel, g.gqa_decode_qgmma, g.grouped, g.kernel_no_split_k, g.kernel_mma_sync, g.kernel_swap_ab, g.kernel_pingpong, g.gated_output, v.decode_kernel, v.per_token_ctas, v.out_same_as_in, op.is_collective, op.send_to_next, op.all_to_all,
                 op.ep_exchange == OpNode::EpExchange::allgather, op.ep_exchange == OpNode::EpExchange::reducescatter,
                 op.continues_host_call}) {
    out.push_back(b);
  }
  out.push_back(bits(v.flops_per_element));
  out.push_back(bits(v.gemv_steps));
  out.push_back(static_cast<std::uint64_t>(v.gemv_step_converts));
  out.push_back(bits(op.eager_host_s));
  out.push_back(static_cast<std::uint64_t>(op.device));
}

}  // namespace

std::size_t ReplayMemory::Hash::operator()(const std::vector<std::uint64_t>& d) const {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the words, then mixed
  for (std::uint64_t x : d) h = (h ^ x) * 0x100000001b3ULL;
  return static_cast<std::size_t>(h ^ (h >> 29));
}

std::size_t ReplayMemory::StateHash::operator()(const MachineState& s) const {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](std::uint64_t x) { h = (h ^ x) * 0x100000001b3ULL; };
  mix(static_cast<std::uint64_t>(s.dispatching));
  for (const std::vector<Picoseconds>* v : {&s.chip.matrix, &s.chip.vector, &s.chip.channels, &s.links}) {
    mix(v->size());
    for (Picoseconds x : *v) mix(x);
  }
  for (std::uint64_t x : {s.chip.resident, s.chip.launcher, s.chip.address_phase, static_cast<std::uint64_t>(s.chip.cleanups)}) mix(x);
  return static_cast<std::size_t>(h ^ (h >> 29));
}

int ReplayMemory::number_of(const MachineState& s) {
  const auto known = state_numbers.find(s);  // most boundaries find a known state: no copy
  if (known != state_numbers.end()) return known->second;
  const int number = static_cast<int>(states.size());
  state_numbers.emplace(s, number);
  states.push_back(s);
  return number;
}

std::unique_ptr<LayerReplay> LayerReplay::find(const OpGraph& g, ReplayMemory& memory) {
  const std::size_t n = g.size();
  for (OpId v = 0; v < n; ++v) {
    // One simulated chip: several pipeline stages run layers side by side.
    if (g.op(v).device != 0) return nullptr;
  }
  const std::vector<OpId>& order = g.topological_order();
  std::vector<std::size_t> position(n);
  for (std::size_t i = 0; i < n; ++i) position[order[i]] = i;
  // Op p (in launch order) is a cut when every op before it leads to it (each has a successor
  // at or before p: following successors inside the prefix ends at p) and every op after it
  // waits for it (each has a predecessor at or after p). When p ends, everything before it has
  // ended and nothing after it has started.
  constexpr std::size_t kNone = SIZE_MAX;
  std::vector<std::size_t> first_successor(n, kNone);
  std::vector<std::ptrdiff_t> last_predecessor(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    for (OpId s : g.successor_range(order[i])) {
      const std::size_t j = position[s];
      first_successor[i] = std::min(first_successor[i], j);
      last_predecessor[j] = std::max(last_predecessor[j], static_cast<std::ptrdiff_t>(i));
    }
  }
  std::vector<std::ptrdiff_t> waits_from(n + 1, PTRDIFF_MAX);  // least last_predecessor after each position
  for (std::size_t i = n; i-- > 0;) waits_from[i] = std::min(waits_from[i + 1], last_predecessor[i]);
  std::vector<std::size_t> cuts;
  std::size_t reach = 0;  // the furthest first successor of the ops before p
  for (std::size_t p = 0; p < n; ++p) {
    if (reach <= p && waits_from[p + 1] >= static_cast<std::ptrdiff_t>(p)) cuts.push_back(p);
    reach = std::max(reach, first_successor[p]);
  }
  if (cuts.size() < 2) return nullptr;
  auto r = std::make_unique<LayerReplay>();
  r->memory_ = &memory;
  r->ended_by_.assign(n, -1);
  r->segment_of_.assign(n, -1);
  std::size_t from = 0;
  r->segments_.reserve(cuts.size());
  for (std::size_t c : cuts) {
    Segment segment;
    segment.ops.reserve(c + 1 - from);
    for (std::size_t i = from; i <= c; ++i) {
      segment.ops.push_back(order[i]);
      r->segment_of_[order[i]] = static_cast<int>(r->segments_.size());
    }
    segment.last = order[c];
    segment.entered_by_previous = !r->segments_.empty();
    r->ended_by_[segment.last] = static_cast<int>(r->segments_.size());
    r->segments_.push_back(std::move(segment));
    from = c + 1;
  }
  // Kinds: equal ops, equal waits, equal successor order inside the segment (which decides
  // launch order), and the previous segment's last op starting them in the same order. Edges
  // from earlier segments are already satisfied when a segment starts: they count only in the
  // waits.
  std::vector<std::uint64_t> d;  // one buffer for every description: most kinds are known
  for (std::size_t k = 0; k < r->segments_.size(); ++k) {
    Segment& segment = r->segments_[k];
    const std::size_t first = position[segment.ops.front()];
    auto local = [&](OpId v) {
      return r->segment_of_[v] == static_cast<int>(k) ? static_cast<std::uint64_t>(position[v] - first) : UINT64_MAX;
    };
    d.clear();
    for (OpId v : segment.ops) {
      describe_op(g.op(v), d);
      d.push_back(g.in_degree(v));
      for (OpId s : g.successor_range(v)) {
        if (local(s) != UINT64_MAX) d.push_back(local(s));
      }
      d.push_back(UINT64_MAX);
    }
    if (k > 0) {
      for (OpId s : g.successor_range(r->segments_[k - 1].last)) d.push_back(local(s));
    }
    const auto known = memory.kinds.find(d);
    segment.kind = known != memory.kinds.end() ? known->second : memory.kinds.emplace(d, static_cast<int>(memory.kinds.size())).first->second;
  }
  return r;
}

std::vector<Picoseconds> LayerReplay::launch_offsets(const Segment& segment, Picoseconds start,
                                                     const std::vector<Picoseconds>& launched_at) const {
  // An op the host launched before the segment started waits for its inputs only: 0.
  std::vector<Picoseconds> out;
  out.reserve(segment.ops.size());
  for (OpId v : segment.ops) out.push_back(launched_at[v] > start ? launched_at[v] - start : 0);
  return out;
}

std::optional<std::size_t> LayerReplay::recording_for(int s, int start, Picoseconds at,
                                                      const std::vector<Picoseconds>& launched_at) const {
  const Segment& segment = segments_[static_cast<std::size_t>(s)];
  if (!segment.entered_by_previous) return std::nullopt;
  const auto of_kind = memory_->records_of_kind.find(segment.kind);
  if (of_kind == memory_->records_of_kind.end()) return std::nullopt;
  const std::vector<Picoseconds> offsets = launch_offsets(segment, at, launched_at);
  const std::vector<std::size_t>& candidates = of_kind->second;
  for (std::size_t i = candidates.size(); i-- > 0;) {  // the latest first: most likely to match
    const LayerRecord& r = memory_->records[candidates[i]];
    if (r.start == start && r.launch_offsets == offsets) return candidates[i];
  }
  return std::nullopt;
}

LayerReplay::Plan LayerReplay::at_segment_end(int s, Chip& chip, Fabric* fabric, const std::vector<OpResult>& results,
                                              const std::vector<Picoseconds>& launched_at) {
  Plan plan;
  const Picoseconds now = now_ps();
  // A traced segment keeps which unit did what; a busy machine has more state than the summary.
  const bool tracing = chip.trace_sink().enabled || (fabric && fabric->trace_sink().enabled);
  if (tracing || !chip.quiescent() || (fabric && !fabric->quiescent())) {
    previous_.reset();
    return plan;
  }
  MachineState state;
  const int queue = chip.dispatching_queue();
  state.dispatching = queue >= 0 ? queue : fabric && fabric->events().dispatching() ? Chip::kQueues : -1;
  if (state.dispatching < 0) {  // not inside a queue's callbacks: nothing to resume in
    previous_.reset();
    return plan;
  }
  state.chip = chip.state(now);
  if (fabric) state.links = fabric->state(now);
  Boundary here;
  here.segment = s;
  here.at = now;
  here.chip = chip.counters();
  if (fabric) here.links = fabric->counters();
  here.state = memory_->number_of(state);
  // Segment s ran from the previous boundary on, entered only through it: record it.
  const Segment& segment = segments_[static_cast<std::size_t>(s)];
  if (previous_ && previous_->segment == s - 1 && segment.entered_by_previous && now > previous_->at) {
    LayerRecord r;
    r.kind = segment.kind;
    r.start = previous_->state;
    r.end = here.state;
    r.launch_offsets = launch_offsets(segment, previous_->at, launched_at);
    r.duration = now - previous_->at;
    for (OpId v : segment.ops) {
      OpResult op = results[v];
      op.name.clear();  // a replay names the op after its own segment's: not copied twice
      op.start_ps -= previous_->at;
      op.end_ps -= previous_->at;
      r.ops.push_back(std::move(op));
    }
    r.chip = here.chip - previous_->chip;
    if (fabric) r.links = here.links - previous_->links;
    memory_->records_of_kind[r.kind].push_back(memory_->records.size());
    memory_->records.push_back(std::move(r));
  }
  // The segments after s that start as a recorded one did, each from where the last left off.
  plan.first_segment = s + 1;
  plan.until = now;
  int from = here.state;
  for (int next = s + 1; next < static_cast<int>(segments_.size()); ++next) {
    const std::optional<std::size_t> r = recording_for(next, from, plan.until, launched_at);
    if (!r || plan.until + memory_->records[*r].duration >= kMaxSimulatedPs) break;
    plan.records.push_back(*r);
    plan.until += memory_->records[*r].duration;
    from = memory_->records[*r].end;
  }
  previous_ = std::move(here);
  return plan;
}

std::pair<std::size_t, OpId> LayerReplay::replay(const Plan& plan, Chip& chip, Fabric* fabric, std::vector<OpResult>& results,
                                                 const OpGraph& g) {
  Picoseconds start = now_ps();
  ChipCounters added;
  std::size_t ops = 0;
  OpId last = 0;
  for (std::size_t i = 0; i < plan.records.size(); ++i) {
    const Segment& segment = segments_[static_cast<std::size_t>(plan.first_segment) + i];
    const LayerRecord& r = memory_->records[plan.records[i]];
    for (std::size_t k = 0; k < segment.ops.size(); ++k) {
      OpResult& op = results[segment.ops[k]];
      op = r.ops[k];
      op.name = g.op(segment.ops[k]).name;
      op.start_ps += start;
      op.end_ps += start;
    }
    added += r.chip;
    if (fabric) fabric->credit(r.links);
    start += r.duration;
    ops += segment.ops.size();
    last = segment.last;
  }
  const MachineState& end = end_state(plan);
  chip.skip_to(plan.until, end.chip, added);
  if (fabric) fabric->skip_to(plan.until, end.links);
  // The next boundary follows replayed segments, not a simulated one: it records nothing.
  previous_.reset();
  return {ops, last};
}

}  // namespace roofsim
