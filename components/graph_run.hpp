#pragma once
// Runs an operator graph on a chip: an op is launched as soon as all its inputs are ready, so
// independent ops overlap where the hardware has room; each op's result is kept.
#include <vector>

#include "components/chip.hpp"
#include "workloads/graph.hpp"

namespace roofsim {

class GraphRun {
 public:
  // `results` is indexed by op id and must outlive the run.
  GraphRun(Chip& chip, const OpGraph& graph, std::vector<OpResult>& results);
  void start(Callback done);

 private:
  void launch(OpId id);
  void finished(OpId id);

  Chip& chip_;
  const OpGraph& graph_;
  std::vector<OpResult>& results_;
  std::vector<std::size_t> waiting_;  // inputs not yet ready, per op
  std::size_t remaining_ = 0;
  Callback done_;
};

}  // namespace roofsim
