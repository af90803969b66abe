#pragma once
// Runs an operator graph on a chip. The host launches the ops in topological order, running
// ahead of the device; an op starts when it has been launched and all its inputs are ready, so
// independent ops overlap where the hardware has room. Each op's result is kept.
#include <memory>
#include <vector>

#include "components/chip.hpp"
#include "components/collectives.hpp"
#include "components/layer_replay.hpp"
#include "workloads/chip_layout.hpp"
#include "workloads/graph.hpp"

namespace roofsim {

class GraphRun {
 public:
  // `results` is indexed by op id and must outlive the run. An op of pipeline stage d runs on
  // chips[d], the one simulated chip standing for the stage's ep x tp chips (they do the same
  // work in lockstep). A collective of stage d runs on every group of that stage at once on
  // the fabric's links (see ChipLayout), so concurrent groups contend where they share links;
  // sends go from each chip of the stage to its peer in the next. `fabric` is required when
  // the graph has collectives.
  GraphRun(std::vector<Chip*> chips, const OpGraph& graph, std::vector<OpResult>& results, Fabric* fabric = nullptr,
           ChipLayout layout = {});
  // One chip; the graph's collectives (if any) span the whole fabric as one TP group.
  GraphRun(Chip& chip, const OpGraph& graph, std::vector<OpResult>& results, Fabric* fabric = nullptr)
      : GraphRun(std::vector<Chip*>{&chip}, graph, results, fabric, ChipLayout{fabric ? fabric->chips() : 1, 1, 1}) {}
  // Replay segments (runs of ops between cuts, components/layer_replay.hpp) that would run
  // exactly as earlier ones did instead of simulating them: the same results, faster. `memory`
  // keeps the segments recorded on these chips (it may come from earlier graph runs on chips
  // like them, and must outlive this one). Off by default (nullptr); call before start.
  void replay_layers(ReplayMemory* memory);
  // Segments replayed so far (not part of any result: the results are those of simulating them).
  int replayed_segments() const { return replayed_segments_; }
  // Whether the host launches the ops one by one, each costing its chip's host launch interval
  // (Chip::host_launch), or all at once as one graph (the default). Call before start.
  void launch_per_op(bool per_op) { launch_per_op_ = per_op; }
  // The framework's all-reduce kernel (framework_algo; "" = NCCL). Call before start.
  void use_allreduce(std::string kernel) { allreduce_ = std::move(kernel); }
  void start(Callback done);

 private:
  void launch(OpId id);
  void finished(OpId id);
  // At the end of a segment: replays the segments after it that would run as recorded ones
  // did, and carries on when the last of them would have ended. Whether it did.
  bool replay_after(OpId id);

  void run_collective(OpId id, Callback next);

  std::vector<Chip*> chips_;
  Fabric* fabric_;
  ChipLayout layout_;
  std::vector<std::unique_ptr<CollectiveRun>> collectives_;
  const OpGraph& graph_;
  std::vector<OpResult>& results_;
  std::vector<std::size_t> waiting_;  // inputs not yet ready, per op
  std::vector<Picoseconds> launched_at_;  // when the host has launched each op
  std::size_t remaining_ = 0;
  Callback done_;
  std::unique_ptr<LayerReplay> replay_;
  int replayed_segments_ = 0;
  bool launch_per_op_ = false;
  std::string allreduce_;
};

}  // namespace roofsim
