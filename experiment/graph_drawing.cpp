#include "experiment/graph_drawing.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "core/format.hpp"

extern char** environ;

namespace roofsim {

namespace {

// Fills by what binds the op: the roofline's two roofs, and the links for collectives.
constexpr const char* kComputeFill = "#f4a582";
constexpr const char* kMemoryFill = "#92c5de";
constexpr const char* kLinkFill = "#d9d9d9";

// Text as a DOT string's contents: quotes and backslashes escaped, line breaks as \n.
std::string dot_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string shape_text(const OpNode& op) {
  if (op.is_collective) {
    const std::string what = op.send_to_next ? "send to next stage" : op.all_to_all ? "all-to-all" : "all-reduce";
    return what + " " + format_bytes(static_cast<double>(op.collective_bytes()));
  }
  if (op.is_gemm) {
    const GemmShape& g = op.gemm;
    return (g.batch > 1 ? std::to_string(g.batch) + " x " : std::string()) + std::to_string(g.m) + "x" + std::to_string(g.n) + "x" +
           std::to_string(g.k) + " " + std::string(dtype_name(g.a)) + (g.b != g.a ? "/" + std::string(dtype_name(g.b)) : std::string());
  }
  return format_si(static_cast<double>(op.vector.elements_in), "", 1) + " elements " + std::string(dtype_name(op.vector.dtype));
}

// One op's box: what it is, its cost and intensity, simulated time against its bound.
std::string op_label(const OpNode& op, const OpInstance* at) {
  std::string label = op.name + "\n" + shape_text(op);
  if (!op.is_collective) {
    const OpCost c = op.cost();
    label += "\n" + (c.flops > 0 ? format_si(c.flops, "FLOP", 1) : std::string("no FLOPs")) + ", " + format_bytes(c.bytes()) + ": " +
             format_fixed(c.bytes() > 0 ? c.flops / c.bytes() : 0.0, 1) + " FLOP/B";
  }
  if (at) {
    // An analysis (nothing simulated) has the bound alone.
    const double simulated = at->result.seconds();
    label += "\n" + (simulated > 0 ? "simulated " + format_seconds(simulated) + ", " : std::string()) + "bound " +
             format_seconds(at->bound.bound_time_s) + (op.is_collective ? std::string() : " (" + roof_name(at->bound.roof) + ")");
  }
  return label;
}

const char* op_fill(const OpNode& op, const OpInstance* at) {
  if (op.is_collective) return kLinkFill;
  const Roof roof = at ? at->bound.roof : Roof::memory;
  return roof == Roof::compute ? kComputeFill : kMemoryFill;
}

// One step's graph as a cluster: ops of layers below `layers` (and those outside the layers)
// one by one, every later layer as one box.
void write_step(std::ostringstream& os, const ExperimentResult& r, std::size_t index, const std::string& title, int layers,
                const std::unordered_map<const OpNode*, const OpInstance*>& instances) {
  const OpGraph& g = r.graphs[index];
  const std::string prefix = "s" + std::to_string(index) + "_";
  os << "  subgraph cluster_" << index << " {\n    label=\"" << dot_escaped(title) << "\";\n    fontsize=16;\n";
  std::vector<std::string> node(g.size());
  int folded_layers_min = -1, folded_layers_max = -1;
  std::size_t folded_ops = 0;
  const std::string folded = prefix + "later_layers";
  for (OpId v : g.topological_order()) {
    const OpNode& op = g.op(v);
    if (op.layer >= layers) {
      node[v] = folded;
      folded_layers_min = folded_layers_min < 0 ? op.layer : std::min(folded_layers_min, op.layer);
      folded_layers_max = std::max(folded_layers_max, op.layer);
      ++folded_ops;
      continue;
    }
    node[v] = prefix + std::to_string(v);
    auto it = instances.find(&op);
    const OpInstance* at = it == instances.end() ? nullptr : it->second;
    os << "    " << node[v] << " [label=\"" << dot_escaped(op_label(op, at)) << "\", fillcolor=\"" << op_fill(op, at) << "\"];\n";
  }
  if (folded_ops > 0) {
    os << "    " << folded << " [shape=box3d, fillcolor=\"#f7f7f7\", label=\"layers " << folded_layers_min << "-" << folded_layers_max
       << "\\n" << folded_ops << " ops, each layer as the one drawn\"];\n";
  }
  std::set<std::pair<std::string, std::string>> drawn;
  for (OpId v : g.topological_order()) {
    for (OpId w : g.successor_range(v)) {
      if (node[v] == node[w] || !drawn.insert({node[v], node[w]}).second) continue;
      os << "    " << node[v] << " -> " << node[w] << ";\n";
    }
  }
  os << "  }\n";
}

}  // namespace

std::string run_graph_dot(const ExperimentResult& r, int layers) {
  if (layers < 1) throw InputError("${graph_layers} = " + std::to_string(layers) + ": draw at least 1 decoder layer");
  std::unordered_map<const OpNode*, const OpInstance*> instances;
  for (const OpInstance& i : r.ops) instances.emplace(i.op, &i);
  std::ostringstream os;
  os << "digraph roofsim {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n"
     << "  edge [color=\"#636363\"];\n  label=\"" << dot_escaped(r.model.name + " on " + r.hw.description + ", batch " + std::to_string(r.setup.batch) +
                                                            (r.setup.tp > 1 ? ", TP " + std::to_string(r.setup.tp) : std::string()))
     << "\\nfill: the roof that binds each op (orange compute, blue memory, grey links)\";\n  labelloc=t;\n  fontsize=18;\n";
  const std::string prefill = "prefill: " + std::to_string(r.setup.batch) + " x " + std::to_string(r.setup.prompt) + " prompt tokens";
  if (!r.graphs.empty()) write_step(os, r, 0, prefill, layers, instances);
  if (r.graphs.size() > 1) {
    write_step(os, r, 1, "decode step " + std::to_string(r.simulated_steps.at(1)) + ": " + std::to_string(r.setup.batch) + (r.setup.batch == 1 ? " new token" : " new tokens"),
               layers, instances);
  }
  os << "}\n";
  return os.str();
}

namespace {

std::string extension(const std::string& path) {
  const std::string::size_type dot = path.rfind('.'), slash = path.rfind('/');
  return dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : path.substr(dot + 1);
}

}  // namespace

void check_graph_path(const std::string& path, const std::string& flag) {
  const std::string ext = extension(path);
  if (ext != "dot" && ext != "svg" && ext != "png" && ext != "pdf") {
    throw InputError(flag + " " + path + ": give a .dot (Graphviz's text), .svg, .png or .pdf file");
  }
}

void write_run_graph(const ExperimentResult& r, int layers, const std::string& path, const std::string& flag) {
  check_graph_path(path, flag);
  const std::string ext = extension(path);
  const std::string text = run_graph_dot(r, layers);
  const std::string dot_path = ext == "dot" ? path : path + ".dot.tmp";
  {
    std::ofstream out(dot_path);
    out << text;
    if (!out.flush()) throw InputError(flag + " " + dot_path + ": cannot write it");
  }
  if (ext == "dot") return;
  // Graphviz lays the graph out; run without a shell, so the path needs no quoting.
  const std::string format = "-T" + ext;
  std::vector<std::string> args = {"dot", format, "-o", path, dot_path};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, "dot", nullptr, nullptr, argv.data(), environ);
  int status = 0;
  const bool ran = spawned == 0 && ::waitpid(pid, &status, 0) == pid;
  std::remove(dot_path.c_str());
  if (!ran) throw InputError(flag + " " + path + ": drawing needs Graphviz's dot (apt-get install graphviz), or give a .dot file");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw InputError(flag + " " + path + ": Graphviz's dot could not draw or write it");
}

}  // namespace roofsim
