#pragma once
// A run's op table and layer table, and each step's op energy, taken step by step as the
// simulation finishes each one: a run need not keep every op record to report on them all, so
// its memory stays flat in the tokens it generates (issue 51, item 3).
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "components/chip.hpp"
#include "core/hardware.hpp"
#include "experiment/energy_parts.hpp"
#include "validation/analytic.hpp"
#include "workloads/graph.hpp"

namespace roofsim {

// An experiment's ops summed over layers and steps, by phase and name ("layer7.qkv" counts as
// "qkv"), in the order they first ran.
struct OpSummary {
  std::string phase, name, op_class;
  double count = 0;  // instances, interpolated decode steps included
  double flops = 0, bytes = 0, sim_s = 0, bound_s = 0;
  double sim_bytes = 0, padded_flops = 0;  // what the simulation moved and spent
  double energy_j = 0;  // dynamic energy on all the chips that ran it (0 without an [energy] table)
  std::string roof;
  std::string shape;  // the last instance's (op_shape): decode attention grows with the context
  double intensity() const { return bytes > 0 ? flops / bytes : 0.0; }
};

// One transformer layer's ops summed (their own times, as the op table sums them; ops on
// different units overlap, so a layer's sum can exceed its share of the step): prefill over the
// prompt pass, decode per step (mean over the decode steps), beside their bounds.
struct LayerSummary {
  std::int64_t layer = 0;
  double prefill_s = 0, prefill_bound_s = 0, decode_s = 0, decode_bound_s = 0;
};

// An op's shape for people: "2048x12288x4096 bf16 x bf16" (M x N x K, A and B types) for a
// GEMM, elements in and out for vector work, values per chip for a collective.
std::string op_shape(const OpNode& op);

// Takes a run's simulated steps in order. Sums run in op order within a step and step after
// step, as they would over the run's whole op list; an op table entry's class, shape and roof
// are those of its last instance.
class RunSummarizer {
 public:
  // `peers`: the chips that ran each simulated op (ExperimentResult::stage_chips).
  RunSummarizer(const HardwareSpec& hw, double peers) : hw_(hw), peers_(peers) {}
  // Simulated step `step` (0: prefill), standing for `weight` decode steps: its graph, each op's
  // bound and result. Returns its ops' dynamic energy on all the chips that ran them.
  EnergyParts add_step(int step, double weight, const OpGraph& g, const std::vector<OpBound>& bounds,
                       const std::vector<OpResult>& results);
  const std::vector<OpSummary>& ops() const { return ops_; }
  // The layer table; decode figures per step over `decode_steps` (0: none).
  std::vector<LayerSummary> layers(int decode_steps) const;

 private:
  struct Key {
    bool prefill;
    std::string name;
    bool operator==(const Key& o) const { return prefill == o.prefill && name == o.name; }
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const { return std::hash<std::string>{}(k.name) ^ (k.prefill ? 0x9e3779b9U : 0U); }
  };
  const HardwareSpec& hw_;
  double peers_;
  std::unordered_map<Key, std::size_t, KeyHash> index_;
  std::vector<OpSummary> ops_;
  std::map<std::int64_t, LayerSummary> layers_;
};

}  // namespace roofsim
