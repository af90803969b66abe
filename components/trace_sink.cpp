#include "components/trace_sink.hpp"

#include <algorithm>

namespace roofsim {

int TraceSink::add_track(const std::string& name) {
  tracks_.push_back(name);
  last_slice_.push_back(-1);
  return static_cast<int>(tracks_.size() - 1);
}

int TraceSink::intern(const std::string& op_name) {
  auto [it, fresh] = name_index_.try_emplace(op_name, static_cast<int>(names_.size()));
  if (fresh) names_.push_back(op_name);
  return it->second;
}

void TraceSink::record_transport(int track, int name, Picoseconds start, Picoseconds end, std::uint64_t bytes) {
  if (!enabled || end <= start) return;
  record(track, name, start, end);
  TraceSlice& s = slices_[static_cast<std::size_t>(last_slice_[static_cast<std::size_t>(track)])];
  s.calls += 1;
  s.bytes += bytes;
}

void TraceSink::record(int track, int name, Picoseconds start, Picoseconds end) {
  if (!enabled || end <= start) return;
  long& last = last_slice_[static_cast<std::size_t>(track)];
  if (last >= 0) {
    TraceSlice& s = slices_[static_cast<std::size_t>(last)];
    // The same op again, touching or overlapping the last interval: one interval (the union).
    if (s.name == name && start <= s.end && end >= s.start) {
      s.start = std::min(s.start, start);
      s.end = std::max(s.end, end);
      return;
    }
  }
  slices_.push_back(TraceSlice{track, name, start, end});
  last = static_cast<long>(slices_.size() - 1);
}

}  // namespace roofsim
