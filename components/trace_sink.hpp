#pragma once
// Busy intervals of resources for a timeline view: one track per matrix unit, per vector unit
// and per HBM channel group (stack) of a chip, or per link of a fabric. Consecutive intervals
// of the same op on a track that touch or overlap are merged, so that a trace stays the size of
// the op list, not of the job list. Intervals on one track may still overlap (an HBM stack's
// requests are spans over independent channels): experiment/trace.cpp lays them out in lanes.
#include <algorithm>
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
  // On a transport track: the transport calls merged into the slice and the bytes they carried.
  std::uint64_t calls = 0, bytes = 0;
};

class TraceSink {
 public:
  int add_track(const std::string& name);
  int intern(const std::string& op_name);
  void record(int track, int name, Picoseconds start, Picoseconds end);
  // One TLM transport call of `bytes`, from its start to the end of its annotated delay: merged
  // as record() merges, and counted.
  void record_transport(int track, int name, Picoseconds start, Picoseconds end, std::uint64_t bytes);
  // Intervals recorded from now on are not merged into earlier ones (a step's stay in it).
  void new_step() { std::fill(last_slice_.begin(), last_slice_.end(), -1); }
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
