#pragma once
// The ridge point as it emerges from simulated points (intensity, achieved FLOP/s): the
// bandwidth slope is read off the lowest-intensity points, the compute roof off the highest,
// and the knee is where the two lines meet. Nothing analytic goes in.
#include <vector>

namespace roofsim {

struct RooflinePoint {
  double intensity = 0;  // FLOP/byte
  double flops = 0;      // achieved FLOP/s
};

struct Knee {
  double bandwidth = 0;   // bytes/s: slope of the memory-bound side
  double peak_flops = 0;  // FLOP/s: height of the compute-bound side
  double ridge() const { return peak_flops / bandwidth; }
};

// Needs at least six points; uses the three lowest and the three highest intensities.
Knee find_knee(std::vector<RooflinePoint> points);

}  // namespace roofsim
