#pragma once
// Collectives lowered to link transfers, step by step, as their algorithm (a registry:
// components/collective_algorithm.hpp) plans them. A ring step is every chip of a ring
// sending a chunk to its next neighbour; a chip sends step s + 1 as soon as it has received
// step s, so slow links and contention delay exactly the chips that wait for them.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "components/collective_algorithm.hpp"
#include "components/fabric.hpp"
#include "workloads/graph.hpp"

namespace roofsim {

// The algorithm used when none is given: ring on a switch (as NCCL), torus_split on a torus,
// bidirectional ring on a ring; a group that is no sub-torus runs a routed ring; all-to-all is
// switch_oneshot on a switch and routed elsewhere.
CollectiveAlgo default_algo(const Topology& t, CollectiveKind k, const std::vector<int>& group = {});
// What a model's collective runs: a framework's own all-reduce kernel (`allreduce`: one of
// allreduce_kernel_names(), e.g. trtllm_custom) where it takes the group, as the frameworks
// fall back to NCCL where theirs cannot run; otherwise default_algo. "" or "nccl": default_algo.
CollectiveAlgo framework_algo(const Topology& t, CollectiveKind k, const std::vector<int>& group, const std::string& allreduce);
const std::vector<std::string>& allreduce_kernel_names();
// The collective a model's collective op runs (all-reduce, all-to-all, or an EP exchange's
// all-gather or reduce-scatter).
CollectiveKind collective_kind_of(const OpNode& op);
// Throws InputError when the algorithm does not apply to the topology, collective or group
// (the algorithm's own refusal, components/collective_algorithms/).
void check_algo(const Topology& t, CollectiveKind k, CollectiveAlgo a, const std::vector<int>& group = {});

struct CollectiveSpec {
  CollectiveKind kind = CollectiveKind::allreduce;
  CollectiveAlgo algo = CollectiveAlgo::ring;
  std::uint64_t bytes = 0;  // per chip: all-reduce buffer, all-gather output, reduce-scatter input
  // The chips taking part (empty = all). On a switch, any chips. On a ring or torus, sendrecv
  // goes from group[0] to group[1] along the shortest route, an all-to-all (routed) may take any
  // chips and routes every share through the whole torus; the other collectives run over the
  // group's own links when it is a sub-torus (is_subtorus), otherwise as a ring whose steps
  // are routed from member to member.
  std::vector<int> group;
  // The elements' format: NVLink SHARP (NVLS) reduces 16- and 32-bit floats, not 8-bit types.
  DType dtype = DType::bf16;
  int trace_name = -1;  // the op's name in the fabric's trace: its transfers are traced (-1: not)
};

class CollectiveRun {
 public:
  CollectiveRun(Fabric& fabric, const CollectiveSpec& spec);
  ~CollectiveRun();
  void start(Callback done);

 private:
  struct Stream;
  void start_stream(std::size_t s);
  // Starts stream s's current phase unless it runs, is over, or waits for the stream before it.
  void try_start(std::size_t s);
  void start_phase(std::size_t s);
  void chip_received(std::size_t s, int chip, int step);
  void send_step(std::size_t s, int chip, int step);
  void stream_done();

  int members() const { return static_cast<int>(members_.size()); }
  // The position in the group of a chip on a ring or torus (the group is consecutive chips).
  int position(int chip) const { return chip - members_.front(); }

  Fabric& fabric_;
  CollectiveSpec spec_;
  std::vector<int> members_;  // chip ids; index = position in the ring
  int dims_ = 0;              // ring/torus: the leading dimensions the group spans
  bool routed_ring_ = false;  // ring/torus: the group is no sub-torus; ring steps are routed
  std::vector<std::unique_ptr<Stream>> streams_;
  std::size_t streams_left_ = 0;
  Callback done_;
};

}  // namespace roofsim
