#pragma once
// A run's operator graph drawn: its prefill and its first decode step side by side, each op a
// box with its shape, FLOPs, bytes and intensity, its simulated time and its roofline bound,
// filled by the roof that binds it (compute, memory, links). Layers repeat, so the first
// `layers` decoder layers are drawn op by op and the rest as one box. Written as Graphviz DOT;
// drawn to SVG, PNG or PDF by Graphviz's `dot` where it is installed.
#include <string>

#include "experiment/inference.hpp"

namespace roofsim {

// The DOT text (deterministic: ops in the graphs' order). `layers` >= 1. A run's result labels
// each op with its simulated time and bound; an analysis's (analyze_experiment) with its bound.
std::string run_graph_dot(const ExperimentResult& r, int layers);

// Refuses (InputError naming the flag) a path whose extension is not .dot, .svg, .png or .pdf:
// call it before a run, so that a long run is not lost to a typo.
void check_graph_path(const std::string& path, const std::string& flag);
// Writes the drawing to `path` for `flag`: .dot as text, .svg/.png/.pdf through `dot -T...`.
// Throws InputError naming the flag for another extension, a missing `dot`, or a failed write.
void write_run_graph(const ExperimentResult& r, int layers, const std::string& path, const std::string& flag);

}  // namespace roofsim
