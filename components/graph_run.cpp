#include "components/graph_run.hpp"

namespace roofsim {

GraphRun::GraphRun(Chip& chip, const OpGraph& graph, std::vector<OpResult>& results, Fabric* fabric)
    : chip_(chip), fabric_(fabric), graph_(graph), results_(results) {
  for (OpId v = 0; v < graph.size(); ++v) {
    if (graph.op(v).is_collective && !fabric) throw std::logic_error("a graph with collectives needs a fabric");
  }
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
  const Picoseconds now = now_ps();
  for (OpId v : graph_.topological_order()) launched_at_[v] = chip_.host_launch(now);
  for (OpId v : ready) launch(v);
}

void GraphRun::launch(OpId id) {
  if (launched_at_[id] > now_ps()) {
    // Inputs are ready but the host has not launched the op yet.
    chip_.matrix_events().at(launched_at_[id], [this, id] { launch(id); });
    return;
  }
  const OpNode& op = graph_.op(id);
  results_[id].name = op.name;
  auto next = [this, id] { finished(id); };
  if (op.is_collective) {
    const CollectiveSpec spec{CollectiveKind::allreduce, default_algo(fabric_->topology(), CollectiveKind::allreduce),
                              op.collective_bytes()};
    collectives_.push_back(std::make_unique<CollectiveRun>(*fabric_, spec));
    results_[id].start_ps = now_ps();
    results_[id].plan = collective_algo_name(spec.algo);
    collectives_.back()->start([this, id, next] {
      results_[id].end_ps = now_ps();
      next();
    });
    return;
  }
  if (op.is_gemm) {
    chip_.run_gemm(op.gemm, results_[id], next, op.name);
  } else {
    chip_.run_vector(op.vector, results_[id], next, op.name);
  }
}

void GraphRun::finished(OpId id) {
  for (OpId s : graph_.successors(id)) {
    if (--waiting_[s] == 0) launch(s);
  }
  if (--remaining_ == 0 && done_) done_();
}

}  // namespace roofsim
