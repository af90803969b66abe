#pragma once
// The operator graph: a DAG (Boost.Graph) of ops with tensors on the edges. Builders add ops
// and the tensors between them; validate() refuses cycles and tensors whose size does not
// match what the consuming op reads or what the producing op writes.
#include <boost/graph/adjacency_list.hpp>
#include <boost/range/iterator_range.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/op_cost.hpp"

namespace roofsim {

struct OpNode {
  std::string name;      // unique in the graph: "layer3.qkv"
  std::string op_class;  // what it is, shared across layers: "qkv", "attention", "softmax"
  int layer = -1;        // -1 outside the decoder layers
  bool is_gemm = true;
  GemmShape gemm;
  VectorShape vector;
  // An all-reduce over the tensor-parallel group: `collective_elements` values of `vector.dtype`
  // per chip. It moves data over links, not HBM: its cost() is zero FLOPs and zero HBM bytes.
  bool is_collective = false;
  std::int64_t collective_elements = 0;
  // With pipeline parallelism: the stage (group of chips) that runs the op, and whether a
  // collective is instead a point-to-point send of the activations to the next stage.
  int device = 0;
  bool send_to_next = false;
  // Expert parallelism: an all-to-all over the group (dispatch to, or combine from, experts).
  bool all_to_all = false;
  // Expert parallelism as TensorRT-LLM's CUTLASS MoE runs it with data-parallel attention: every
  // rank's tokens gathered to all the EP group before the MoE call (an all-gather; the op's
  // collective_elements are the gathered output) and the call's partial sums scattered back
  // after it (a reduce-scatter; collective_elements: the input, every rank's tokens).
  enum class EpExchange : std::uint8_t { none, allgather, reducescatter };
  EpExchange ep_exchange = EpExchange::none;
  bool over_ep_group() const { return all_to_all || ep_exchange != EpExchange::none; }
  // Launched by the same host call as the op launched before it on its device (one framework
  // op whose C++ launches several kernels, TensorRT-LLM's fused MoE): when ops launch one by
  // one, it costs no host launch interval of its own.
  bool continues_host_call = false;
  // > 0: the first op of a framework call the host runs outside any CUDA graph (a Python module
  // whose kernels cannot be captured), taking this much host time; the call's other ops
  // continue it. In a pass launched as a graph the host replays the graph's pieces at once and
  // then runs such calls in order, so the ops after one wait for it.
  double eager_host_s = 0;
  std::uint64_t collective_bytes() const;
  // Elements each incoming tensor must have, in the order the edges are added.
  std::vector<std::int64_t> input_elements;
  std::int64_t output_elements() const;
  OpCost cost() const;
  // The bytes of weights (or KV cache) it reads: a GEMM's B operand, a CUDA-core GEMV's input.
  double weight_bytes() const;
};

struct TensorEdge {
  // Empty for the builder's tensors, which are named "producer->consumer" (OpGraph::tensor_name)
  // only when a message needs it: a name string per edge was a good part of building a graph.
  std::string name;
  std::int64_t elements = 0;
  DType dtype = DType::bf16;
  bool control = false;  // an ordering dependency that carries no tensor
  double bytes() const { return static_cast<double>(elements) * dtype_bytes(dtype); }
};

// Edges kept in a vector (the last vecS) rather than Boost's default list: a list node per
// edge was an allocation each, and ops and edges are only ever added, never removed.
using OpGraphBase =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, OpNode, TensorEdge, boost::no_property, boost::vecS>;
using OpId = boost::graph_traits<OpGraphBase>::vertex_descriptor;

class OpGraph {
 public:
  // The Boost graph lives on the heap: Boost's adjacency list has no move constructor, so
  // returning a graph by value, or a vector of graphs growing, copied every op and edge.
  OpGraph() : g_(std::make_unique<OpGraphBase>()) {}
  OpGraph(const OpGraph& o) : g_(std::make_unique<OpGraphBase>(*o.g_)), order_(o.order_) {}
  OpGraph& operator=(const OpGraph& o) {
    if (this != &o) {
      g_ = std::make_unique<OpGraphBase>(*o.g_);
      order_ = o.order_;
    }
    return *this;
  }
  // A moved-from graph may only be assigned to or destroyed.
  OpGraph(OpGraph&&) noexcept = default;
  OpGraph& operator=(OpGraph&&) noexcept = default;

  OpId add(OpNode op);
  // Room for `ops` ops, so that adding them does not move the ones already added.
  void reserve(std::size_t ops) { g_->m_vertices.reserve(ops); }
  // A tensor from `from` to `to`. Its element count is checked by validate().
  void connect(OpId from, OpId to, const std::string& tensor, std::int64_t elements, DType dtype);
  // The same, named "from->to" where a message names it.
  void connect(OpId from, OpId to, std::int64_t elements, DType dtype);
  // `to` may only start after `from` (no data flows).
  void connect_control(OpId from, OpId to);

  // Throws InputError naming the op for a cycle or a tensor of the wrong size.
  void validate() const;
  // Ops in an order where every op follows its inputs (validate() first). Kept until an op or
  // edge is added: a run asks for it three times per graph (validate, launch, bound).
  const std::vector<OpId>& topological_order() const;

  std::size_t size() const { return boost::num_vertices(*g_); }
  const OpNode& op(OpId id) const { return (*g_)[id]; }
  OpNode& op_mut(OpId id) { return (*g_)[id]; }
  std::vector<OpId> successors(OpId id) const;
  // The same without a vector (for loops that run per op of every step): a range of OpIds.
  auto successor_range(OpId id) const { return boost::make_iterator_range(boost::adjacent_vertices(id, *g_)); }
  std::size_t in_degree(OpId id) const { return boost::in_degree(id, *g_); }
  double total_flops() const;
  double total_bytes() const;  // sum of the ops' own read + write bytes
  const OpGraphBase& base() const { return *g_; }

 private:
  // The name of a tensor (edge e), for messages.
  std::string tensor_name(const boost::graph_traits<OpGraphBase>::edge_descriptor& e) const;

  std::unique_ptr<OpGraphBase> g_;
  mutable std::vector<OpId> order_;  // topological_order(), or empty: not known yet
};

}  // namespace roofsim
