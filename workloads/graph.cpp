#include "workloads/graph.hpp"

#include <boost/graph/topological_sort.hpp>
#include <iterator>

#include "core/error.hpp"

namespace roofsim {

std::int64_t OpNode::output_elements() const {
  if (is_collective) return collective_elements;
  return is_gemm ? gemm.batch * gemm.c_elements_per_batch() : vector.elements_out;
}

std::uint64_t OpNode::collective_bytes() const {
  return static_cast<std::uint64_t>(static_cast<double>(collective_elements) * dtype_bytes(vector.dtype));
}

OpCost OpNode::cost() const {
  if (is_collective) return OpCost{Engine::vector, DType::fp32, 0, 0, 0};
  return is_gemm ? gemm_cost(gemm) : vector_cost(vector);
}

double OpNode::weight_bytes() const {
  if (is_collective) return 0;
  if (is_gemm) return static_cast<double>(gemm.batch * gemm.b_elements_per_batch()) * dtype_bytes(gemm.b);
  return vector.gemv_steps > 0 ? static_cast<double>(vector.elements_in) * dtype_bytes(vector.dtype) : 0.0;
}

OpId OpGraph::add(OpNode op) {
  // Boost's add_vertex(property, g) copies the property (its strings and vectors): add a
  // default op and move this one in.
  order_.clear();
  const OpId id = boost::add_vertex(*g_);
  (*g_)[id] = std::move(op);
  return id;
}

void OpGraph::connect(OpId from, OpId to, const std::string& tensor, std::int64_t elements, DType dtype) {
  order_.clear();
  boost::add_edge(from, to, TensorEdge{tensor, elements, dtype}, *g_);
}

void OpGraph::connect(OpId from, OpId to, std::int64_t elements, DType dtype) {
  order_.clear();
  boost::add_edge(from, to, TensorEdge{"", elements, dtype}, *g_);
}

void OpGraph::connect_control(OpId from, OpId to) {
  // Nothing reads a control edge's name (validate() skips them): left empty.
  order_.clear();
  boost::add_edge(from, to, TensorEdge{"", 0, DType::bf16, true}, *g_);
}

std::string OpGraph::tensor_name(const boost::graph_traits<OpGraphBase>::edge_descriptor& e) const {
  const TensorEdge& t = (*g_)[e];
  if (!t.name.empty()) return t.name;
  return (*g_)[boost::source(e, *g_)].name + "->" + (*g_)[boost::target(e, *g_)].name;
}

std::vector<OpId> OpGraph::successors(OpId id) const {
  std::vector<OpId> out;
  for (auto [e, end] = boost::out_edges(id, *g_); e != end; ++e) out.push_back(boost::target(*e, *g_));
  return out;
}

void OpGraph::validate() const {
  for (auto [v, vend] = boost::vertices(*g_); v != vend; ++v) {
    const OpNode& op = (*g_)[*v];
    if (op.is_collective) {
      if (op.collective_elements <= 0) throw InputError("op graph: " + op.name + ": a collective of no data");
    } else if (op.is_gemm) {
      check_shape(op.gemm, op.name);
    } else {
      check_shape(op.vector, op.name);
    }
    std::size_t i = 0;
    for (auto [e, eend] = boost::in_edges(*v, *g_); e != eend; ++e) {
      const TensorEdge& t = (*g_)[*e];
      if (t.control) continue;
      const OpNode& from = (*g_)[boost::source(*e, *g_)];
      if (i >= op.input_elements.size()) {
        throw InputError("op graph: " + op.name + " takes " + std::to_string(op.input_elements.size()) +
                         " input tensors, but '" + tensor_name(*e) + "' from " + from.name + " is one more");
      }
      if (t.elements != op.input_elements[i]) {
        throw InputError("op graph: tensor '" + tensor_name(*e) + "' from " + from.name + " to " + op.name + " has " +
                         std::to_string(t.elements) + " elements, but " + op.name + " reads " +
                         std::to_string(op.input_elements[i]));
      }
      if (t.elements > from.output_elements()) {
        throw InputError("op graph: tensor '" + tensor_name(*e) + "' has " + std::to_string(t.elements) +
                         " elements, more than " + from.name + " writes (" +
                         std::to_string(from.output_elements()) + ")");
      }
      ++i;
    }
    if (i < op.input_elements.size()) {
      throw InputError("op graph: " + op.name + " takes " + std::to_string(op.input_elements.size()) +
                       " input tensors but has " + std::to_string(i));
    }
  }
  topological_order();
}

const std::vector<OpId>& OpGraph::topological_order() const {
  if (!order_.empty() || size() == 0) return order_;
  std::vector<OpId> reversed;
  try {
    boost::topological_sort(*g_, std::back_inserter(reversed));
  } catch (const boost::not_a_dag&) {
    // Name an op on a cycle: one whose inputs can never all be ready (Kahn's algorithm).
    std::vector<std::size_t> waiting(size());
    std::vector<OpId> ready;
    for (OpId v = 0; v < size(); ++v) {
      waiting[v] = in_degree(v);
      if (waiting[v] == 0) ready.push_back(v);
    }
    while (!ready.empty()) {
      OpId v = ready.back();
      ready.pop_back();
      for (OpId s : successors(v)) {
        if (--waiting[s] == 0) ready.push_back(s);
      }
    }
    std::string on_cycle;
    for (OpId v = 0; v < size(); ++v) {
      if (waiting[v] > 0) {
        on_cycle = (*g_)[v].name;
        break;
      }
    }
    throw InputError("op graph: cycle through " + on_cycle + " (an op graph must be acyclic)");
  }
  order_.assign(reversed.rbegin(), reversed.rend());
  return order_;
}

double OpGraph::total_flops() const {
  double f = 0;
  for (auto [v, vend] = boost::vertices(*g_); v != vend; ++v) f += (*g_)[*v].cost().flops;
  return f;
}

double OpGraph::total_bytes() const {
  double b = 0;
  for (auto [v, vend] = boost::vertices(*g_); v != vend; ++v) b += (*g_)[*v].cost().bytes();
  return b;
}

}  // namespace roofsim
