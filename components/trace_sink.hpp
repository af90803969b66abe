#pragma once
// Busy intervals of the chip's resources for a timeline view: one track per matrix unit, per
// vector unit and per HBM channel group (stack). Consecutive intervals of the same op on a
// track are merged so that a trace stays the size of the op list, not of the job list.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "components/time_units.hpp"

namespace roofsim {

struct TraceSlice {
  int track = 0;
  int name = 0;  // index into names()
  Picoseconds start = 0, end = 0;
};

class TraceSink {
 public:
  int add_track(const std::string& name);
  int intern(const std::string& op_name);
  void record(int track, int name, Picoseconds start, Picoseconds end);
  bool enabled = false;

  const std::vector<std::string>& tracks() const { return tracks_; }
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<TraceSlice>& slices() const { return slices_; }

 private:
  std::vector<std::string> tracks_, names_;
  std::unordered_map<std::string, int> name_index_;
  std::vector<TraceSlice> slices_;
  std::vector<long> last_slice_;  // per track, index into slices_ or -1
};

}  // namespace roofsim
