#pragma once
// How the chips of a parallel run are numbered: chips = pp x ep x tp. Pipeline stage s owns
// chips [s*ep*tp, (s+1)*ep*tp); within a stage, the chip of EP rank e and TP rank t is
// base + e*tp + t. A TP group (same s and e) is therefore tp consecutive chips: on a torus
// numbered x fastest, whole leading dimensions with their own wrap-around links. An EP group
// (same s and t) is every tp-th chip of the stage, and a stage's chip c sends its activations
// to chip c + ep*tp of the next stage.
#include <vector>

namespace roofsim {

struct ChipLayout {
  int tp = 1, ep = 1, pp = 1;

  int chips() const { return pp * ep * tp; }
  int stage_size() const { return ep * tp; }
  int stage_base(int stage) const { return stage * stage_size(); }
  int chip(int stage, int e, int t) const { return stage_base(stage) + e * tp + t; }
  // The chips that all-reduce together (tensor parallel partial sums).
  std::vector<int> tp_group(int stage, int e) const {
    std::vector<int> g;
    for (int t = 0; t < tp; ++t) g.push_back(chip(stage, e, t));
    return g;
  }
  // The chips that exchange tokens with all-to-alls (expert parallel dispatch and combine).
  std::vector<int> ep_group(int stage, int t) const {
    std::vector<int> g;
    for (int e = 0; e < ep; ++e) g.push_back(chip(stage, e, t));
    return g;
  }
};

}  // namespace roofsim
