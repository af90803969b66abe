#include "components/graph_run.hpp"

#include <stdexcept>

namespace roofsim {

GraphRun::GraphRun(std::vector<Chip*> chips, const OpGraph& graph, std::vector<OpResult>& results, Fabric* fabric,
                   ChipLayout layout)
    : chips_(std::move(chips)), fabric_(fabric), layout_(layout), graph_(graph), results_(results) {
  if (fabric && layout.chips() != fabric->chips()) throw std::logic_error("the chip layout does not match the fabric");
  for (OpId v = 0; v < graph.size(); ++v) {
    const OpNode& op = graph.op(v);
    if (op.is_collective && !fabric) throw std::logic_error("a graph with collectives needs a fabric");
    if (op.device < 0 || static_cast<std::size_t>(op.device + (op.send_to_next ? 1 : 0)) >= chips_.size()) {
      throw std::logic_error("op " + op.name + " on a pipeline stage without a chip");
    }
  }
}

void GraphRun::replay_layers(ReplayMemory* memory) {
  // One simulated chip: with pipeline stages, layers of different stages run side by side.
  replay_ = memory && chips_.size() == 1 ? LayerReplay::find(graph_, *memory) : nullptr;
}

void GraphRun::start(Callback done) {
  done_ = std::move(done);
  results_.assign(graph_.size(), OpResult{});
  waiting_.assign(graph_.size(), 0);
  remaining_ = graph_.size();
  std::vector<OpId> ready;
  for (OpId v = 0; v < graph_.size(); ++v) {
    waiting_[v] = graph_.in_degree(v);
    if (waiting_[v] == 0) ready.push_back(v);
  }
  if (remaining_ == 0) {
    if (done_) done_();
    return;
  }
  launched_at_.assign(graph_.size(), 0);
  // Each stage's host launches its own ops in order (a graph: all at once, but for the calls
  // the host runs outside it, OpNode::eager_host_s, which the ops after them wait for).
  const Picoseconds now = now_ps();
  std::vector<Picoseconds> last_launch(chips_.size(), now);
  for (OpId v : graph_.topological_order()) {
    const OpNode& op = graph_.op(v);
    const std::size_t device = static_cast<std::size_t>(op.device);
    Chip& chip = *chips_[device];
    if (op.eager_host_s > 0 && !op.continues_host_call) {
      launched_at_[v] = chip.host_launch(now, op.eager_host_s);
    } else if (launch_per_op_ && !op.continues_host_call) {
      launched_at_[v] = chip.host_launch(now);
    } else {
      launched_at_[v] = last_launch[device];  // in a graph: with the ops before it
    }
    last_launch[device] = launched_at_[v];
  }
  for (OpId v : ready) launch(v);
}

void GraphRun::launch(OpId id) {
  if (launched_at_[id] > now_ps()) {
    // Inputs are ready but the host has not launched the op yet.
    chips_[static_cast<std::size_t>(graph_.op(id).device)]->matrix_events().at(launched_at_[id], [this, id] { launch(id); });
    return;
  }
  const OpNode& op = graph_.op(id);
  results_[id].name = op.name;
  auto next = [this, id] { finished(id); };
  if (op.is_collective) {
    run_collective(id, next);
    return;
  }
  Chip& chip = *chips_[static_cast<std::size_t>(op.device)];
  if (op.is_gemm) {
    chip.run_gemm(op.gemm, results_[id], next, op.name);
  } else {
    chip.run_vector(op.vector, results_[id], next, op.name);
  }
}

void GraphRun::run_collective(OpId id, Callback next) {
  const OpNode& op = graph_.op(id);
  results_[id].start_ps = now_ps();
  auto finish = [this, id, next] {
    results_[id].end_ps = now_ps();
    next();
  };
  // The op finishes when the last of its concurrent transfers or collectives has.
  auto left = std::make_shared<int>(0);
  auto one_done = [left, finish] {
    if (--*left == 0) finish();
  };
  const int stage = op.device;
  // The op's transfers show on the links it used when the fabric traces this phase.
  const int trace_name = fabric_->trace_sink().enabled ? fabric_->trace_sink().intern(op.name) : -1;
  if (op.send_to_next) {
    // Every chip of the stage sends its activations to its peer in the next stage.
    results_[id].plan = "send";
    *left = layout_.stage_size();
    for (int c = layout_.stage_base(stage); c < layout_.stage_base(stage + 1); ++c) {
      Wire wire;
      wire.trace_name = trace_name;
      fabric_->send_to(c, c + layout_.stage_size(), op.collective_bytes(), one_done, wire);
    }
    return;
  }
  CollectiveSpec spec;
  spec.kind = collective_kind_of(op);
  spec.bytes = op.collective_bytes();
  spec.trace_name = trace_name;
  // All-to-alls and EP exchanges run over each EP group (one per TP rank), all-reduces over
  // each TP group (one per EP rank).
  std::vector<std::vector<int>> groups;
  if (op.over_ep_group()) {
    for (int t = 0; t < layout_.tp; ++t) groups.push_back(layout_.ep_group(stage, t));
  } else {
    for (int e = 0; e < layout_.ep; ++e) groups.push_back(layout_.tp_group(stage, e));
  }
  *left = static_cast<int>(groups.size());
  for (std::vector<int>& g : groups) {
    spec.group = std::move(g);
    spec.algo = framework_algo(fabric_->topology(), spec.kind, spec.group, allreduce_);
    collectives_.push_back(std::make_unique<CollectiveRun>(*fabric_, spec));
    collectives_.back()->start(one_done);
  }
  results_[id].plan = collective_algo_name(spec.algo);  // every group has the same shape
}

void GraphRun::finished(OpId id) {
  if (replay_ && replay_after(id)) return;
  for (OpId s : graph_.successor_range(id)) {
    if (--waiting_[s] == 0) launch(s);
  }
  if (--remaining_ == 0 && done_) done_();
}

bool GraphRun::replay_after(OpId id) {
  const int segment = replay_->segment_ended_by(id);
  if (segment < 0) return false;
  Chip& chip = *chips_[0];
  const LayerReplay::Plan plan = replay_->at_segment_end(segment, chip, fabric_, results_, launched_at_);
  if (plan.records.empty()) return false;
  const auto [ops, last] = replay_->replay(plan, chip, fabric_, results_, graph_);
  // Edges from the replayed ops to later segments (a residual add's skip edge) are satisfied:
  // the ops after them wait only for the last replayed op, whose end carries on below.
  // So are those from `id`, whose own end stops here.
  const int last_segment = plan.first_segment + static_cast<int>(plan.records.size()) - 1;
  auto satisfy_skips = [&](OpId v) {
    for (OpId next : graph_.successor_range(v)) {
      if (replay_->segment_of(next) > last_segment || replay_->segment_of(next) < 0) --waiting_[next];
    }
  };
  satisfy_skips(id);
  for (int s = plan.first_segment; s <= last_segment; ++s) {
    for (OpId v : replay_->segment_ops(s)) {
      if (v != last) satisfy_skips(v);
    }
  }
  replayed_segments_ += static_cast<int>(plan.records.size());
  // `id` and the replayed ops are done, but for the last, whose end carries on below.
  remaining_ -= ops;
  const int q = replay_->resume_queue(plan);
  EventQueue& queue = q < Chip::kQueues ? chip.queue(q) : fabric_->events();
  const std::size_t cleanups = replay_->resume_cleanups(plan);
  // The simulation carries on in the queue it would have been in, with the clean-ups it would
  // have had queued, when the last replayed op ends.
  queue.at(plan.until, [this, &queue, &chip, cleanups, last = last] {
    --queue.stats().events;  // bookkeeping, not a simulated event
    chip.queue_cleanups(cleanups);
    finished(last);
  });
  return true;
}

}  // namespace roofsim
