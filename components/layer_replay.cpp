#include "components/layer_replay.hpp"

#include <cstring>
#include <map>
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
  for (std::int64_t x : {g.batch, g.m, g.n, g.k, g.v_n, g.kernel_ctas, g.kernel_k_splits, g.kernel_ctas_per_unit, g.scale_block_k, g.kernel_keys, g.kernel_key_tile, g.kernel_window_key_steps, g.kernel_fp8_cache_key_tiles, g.kernel_head_dim, g.kernel_value_dim, g.kernel_cta_query_elements, g.kernel_tile_m, g.kernel_tile_n, v.kernel_ctas, v.kernel_ctas_per_unit, v.inflight_bytes_per_unit, v.elements_in, v.elements_out, op.collective_elements}) {
    out.push_back(static_cast<std::uint64_t>(x));
  }
  for (DType d : {g.a, g.b, g.c, v.dtype, v.out_dtype}) out.push_back(static_cast<std::uint64_t>(d));
  for (bool b : {op.is_gemm, g.fused_attention, g.shared_kv, g.decode_kernel, g.gqa_decode_kernel, g.gqa_decode_qgmma, g.grouped, g.kernel_no_split_k, g.kernel_mma_sync, v.decode_kernel, v.per_token_ctas, v.out_same_as_in, op.is_collective, op.send_to_next, op.all_to_all,
                 op.ep_exchange == OpNode::EpExchange::allgather, op.ep_exchange == OpNode::EpExchange::reducescatter,
                 op.continues_host_call}) {
    out.push_back(b);
  }
  out.push_back(bits(v.flops_per_element));
  out.push_back(bits(op.eager_host_s));
  out.push_back(static_cast<std::uint64_t>(op.device));
}

}  // namespace

std::size_t ReplayMemory::Hash::operator()(const std::vector<std::uint64_t>& d) const {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the words, then mixed
  for (std::uint64_t x : d) h = (h ^ x) * 0x100000001b3ULL;
  return static_cast<std::size_t>(h ^ (h >> 29));
}

std::unique_ptr<LayerReplay> LayerReplay::find(const OpGraph& g, ReplayMemory& memory) {
  std::map<int, std::vector<OpId>> by_layer;
  for (OpId v = 0; v < g.size(); ++v) {
    // One simulated chip: several pipeline stages run layers side by side.
    if (g.op(v).device != 0) return nullptr;
    if (g.op(v).layer >= 0) by_layer[g.op(v).layer].push_back(v);
  }
  if (by_layer.size() < 3 || by_layer.begin()->first != 0 || by_layer.rbegin()->first + 1 != static_cast<int>(by_layer.size())) {
    return nullptr;
  }
  // The ops after the last layer's (final norm, LM head): one more layer, the same every step.
  const OpId after = by_layer.rbegin()->second.back();
  const int tail = static_cast<int>(by_layer.size());
  for (OpId v = after + 1; v < g.size(); ++v) {
    if (g.op(v).layer < 0) by_layer[tail].push_back(v);
  }
  auto r = std::make_unique<LayerReplay>();
  r->memory_ = &memory;
  r->ended_by_.assign(g.size(), -1);
  std::vector<int> layer_of(g.size(), -1);
  std::vector<std::uint64_t> place(g.size(), 0);  // an op's place in its layer
  for (const auto& [l, ops] : by_layer) {
    for (std::size_t i = 0; i < ops.size(); ++i) {
      layer_of[ops[i]] = l;
      place[ops[i]] = i;
    }
  }
  // A layer's last op: the one op whose successors are not all in the layer. Every other op
  // must lead to it (several micro-batches give a layer several ends: nothing to replay).
  for (const auto& [l, ops] : by_layer) {
    Layer layer;
    layer.ops = ops;
    int ends = 0;
    for (OpId v : ops) {
      const auto next = g.successor_range(v);
      bool inside = !next.empty();
      for (OpId s : next) inside = inside && layer_of[s] == l;
      if (!inside) {
        layer.last = v;
        ++ends;
      }
    }
    if (ends != 1) return nullptr;
    r->ended_by_[layer.last] = l;
    r->layers_.push_back(std::move(layer));
  }
  // Kinds: equal ops, equal waits, equal successor order (which decides launch order), and the
  // previous layer's last op starting them in the same order.
  for (std::size_t l = 0; l < r->layers_.size(); ++l) {
    Layer& layer = r->layers_[l];
    // An op's place in layer l, or none.
    auto local = [&](OpId v) { return layer_of[v] == static_cast<int>(l) ? place[v] : UINT64_MAX; };
    std::vector<std::uint64_t> d;
    layer.entered_by_previous = l > 0;
    for (OpId v : layer.ops) {
      describe_op(g.op(v), d);
      d.push_back(g.in_degree(v));
      if (g.in_degree(v) == 0) layer.entered_by_previous = false;
      for (auto [e, end] = boost::in_edges(v, g.base()); e != end; ++e) {
        const OpId from = boost::source(*e, g.base());
        if (layer_of[from] != static_cast<int>(l) && (l == 0 || from != r->layers_[l - 1].last)) layer.entered_by_previous = false;
      }
      // The last op's successors are in later layers: the next layer's entry, below.
      for (OpId s : g.successor_range(v)) {
        if (local(s) != UINT64_MAX) d.push_back(local(s));
      }
      d.push_back(UINT64_MAX);
    }
    if (l > 0) {
      for (OpId s : g.successor_range(r->layers_[l - 1].last)) {
        if (local(s) == UINT64_MAX) layer.entered_by_previous = false;
        d.push_back(local(s));
      }
    }
    layer.kind = memory.kinds.emplace(std::move(d), static_cast<int>(memory.kinds.size())).first->second;
  }
  return r;
}

std::vector<Picoseconds> LayerReplay::launch_offsets(const Layer& layer, Picoseconds start,
                                                     const std::vector<Picoseconds>& launched_at) const {
  // An op the host launched before the layer started waits for its inputs only: 0.
  std::vector<Picoseconds> out;
  out.reserve(layer.ops.size());
  for (OpId v : layer.ops) out.push_back(launched_at[v] > start ? launched_at[v] - start : 0);
  return out;
}

std::optional<std::size_t> LayerReplay::recording_for(int l, const MachineState& start, Picoseconds at,
                                                      const std::vector<Picoseconds>& launched_at) const {
  const Layer& layer = layers_[static_cast<std::size_t>(l)];
  if (!layer.entered_by_previous) return std::nullopt;
  const std::vector<Picoseconds> offsets = launch_offsets(layer, at, launched_at);
  for (std::size_t i = memory_->records.size(); i-- > 0;) {  // the latest first: most likely to match
    const LayerRecord& r = memory_->records[i];
    if (r.kind == layer.kind && r.start == start && r.launch_offsets == offsets) return i;
  }
  return std::nullopt;
}

LayerReplay::Plan LayerReplay::at_layer_end(int l, Chip& chip, Fabric* fabric, const std::vector<OpResult>& results,
                                            const std::vector<Picoseconds>& launched_at) {
  Plan plan;
  const Picoseconds now = now_ps();
  // A traced layer keeps which unit did what; a busy machine has more state than the summary.
  const bool tracing = chip.trace_sink().enabled || (fabric && fabric->trace_sink().enabled);
  if (tracing || !chip.quiescent() || (fabric && !fabric->quiescent())) {
    previous_.reset();
    return plan;
  }
  Boundary here;
  here.layer = l;
  here.at = now;
  here.chip = chip.counters();
  if (fabric) here.links = fabric->counters();
  const int queue = chip.dispatching_queue();
  here.state.dispatching = queue >= 0 ? queue : fabric && fabric->events().dispatching() ? Chip::kQueues : -1;
  here.state.chip = chip.state(now);
  if (fabric) here.state.links = fabric->state(now);
  if (here.state.dispatching < 0) {  // not inside a queue's callbacks: nothing to resume in
    previous_.reset();
    return plan;
  }
  // Layer l ran from the previous boundary on, entered only through it: record it.
  const Layer& layer = layers_[static_cast<std::size_t>(l)];
  if (previous_ && previous_->layer == l - 1 && layer.entered_by_previous && now > previous_->at) {
    LayerRecord r;
    r.kind = layer.kind;
    r.start = previous_->state;
    r.end = here.state;
    r.launch_offsets = launch_offsets(layer, previous_->at, launched_at);
    r.duration = now - previous_->at;
    for (OpId v : layer.ops) {
      OpResult op = results[v];
      op.name.clear();  // a replay names the op after its own layer's: not copied twice
      op.start_ps -= previous_->at;
      op.end_ps -= previous_->at;
      r.ops.push_back(std::move(op));
    }
    r.chip = here.chip - previous_->chip;
    if (fabric) r.links = here.links - previous_->links;
    memory_->records.push_back(std::move(r));
  }
  // The layers after l that start as a recorded one did, each from where the last left off.
  plan.first_layer = l + 1;
  plan.until = now;
  const MachineState* state = &here.state;
  for (int next = l + 1; next < static_cast<int>(layers_.size()); ++next) {
    const std::optional<std::size_t> r = recording_for(next, *state, plan.until, launched_at);
    if (!r || plan.until + memory_->records[*r].duration >= kMaxSimulatedPs) break;
    plan.records.push_back(*r);
    plan.until += memory_->records[*r].duration;
    state = &memory_->records[*r].end;
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
    const Layer& layer = layers_[static_cast<std::size_t>(plan.first_layer) + i];
    const LayerRecord& r = memory_->records[plan.records[i]];
    for (std::size_t k = 0; k < layer.ops.size(); ++k) {
      OpResult& op = results[layer.ops[k]];
      op = r.ops[k];
      op.name = g.op(layer.ops[k]).name;
      op.start_ps += start;
      op.end_ps += start;
    }
    added += r.chip;
    if (fabric) fabric->credit(r.links);
    start += r.duration;
    ops += layer.ops.size();
    last = layer.last;
  }
  const MachineState& end = memory_->records[plan.records.back()].end;
  chip.skip_to(plan.until, end.chip, added);
  if (fabric) fabric->skip_to(plan.until, end.links);
  // The next boundary follows replayed layers, not a simulated one: it records nothing.
  previous_.reset();
  return {ops, last};
}

}  // namespace roofsim
