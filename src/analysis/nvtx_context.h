// The NVTX ranges around a CUDA call in an Nsight Systems export. The importer puts a thread's
// CUDA calls on its "<tid> CUDA API" track and its NVTX ranges on its "<tid> NVTX" track
// (import/nsys_sqlite), so the slice parents that give a Kineto call its enclosing CPU ops
// (launch_join.h, EnclosingCpuOps) give it nothing: this finds the push/pop ranges of the same
// thread open at the call's start instead. The steps' own ranges are left out (every call in a
// step is inside one, as ProfilerStep is left out of Kineto's chains).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/steps.h"
#include "model/trace.h"

namespace ks {

// "4242 CUDA API", "4242 NVTX", "4242 OS runtime", "4242 CPU state" -> "4242": the thread of an
// export's CPU track, "" for other tracks.
std::string_view export_thread_of(std::string_view tid_text);
// ("4242 CUDA API", "CUDA API") -> "4242": the thread of an export's track of that row, "" when
// the track is not of that row.
std::string_view export_thread_of_row(std::string_view tid_text, std::string_view row);

class EnclosingNvtxRanges {
 public:
  // `max_depth`: of() and text_of() only.
  EnclosingNvtxRanges(const Trace& trace, const StepsResult& steps, size_t max_depth);
  // The ranges open at `slice`'s start on its thread, outermost first, at most max_depth; empty
  // for a slice that is not on a CUDA API track or a trace without NVTX ranges.
  std::vector<StringId> of(uint32_t slice) const;
  // "forward > loss (NVTX)", or "" when no range encloses it.
  std::string text_of(uint32_t slice) const;
  // The innermost range open at `slice`'s start on its thread that is no step and that
  // `accept(name)` takes, or 0: of() without building the chain, for a question asked once per
  // kernel.
  template <typename Accept>
  StringId innermost(uint32_t slice, Accept accept) const {
    StringId found = 0;
    walk_out(slice, [&](StringId name) {
      if (!accept(name)) return true;  // look further out
      found = name;
      return false;
    });
    return found;
  }
  bool any() const { return !ranges_.empty() && !nvtx_track_of_.empty(); }

  // Calls visit(name) for each range (no step) open at `slice`'s start on its thread,
  // innermost first, until it returns false.
  template <typename Visit>
  void walk_out(uint32_t slice, Visit visit) const {
    const SliceTable& s = t_.slices;
    walk_out_slices(slice, [&](uint32_t range) { return visit(s.name[range]); });
  }
  // The same with the ranges' slice indices.
  template <typename Visit>
  void walk_out_slices(uint32_t slice, Visit visit) const {
    const SliceTable& s = t_.slices;
    auto track = nvtx_track_of_.find(s.track[slice]);
    if (track == nvtx_track_of_.end()) return;
    auto list = ranges_.find(track->second);
    if (list == ranges_.end()) return;
    const int64_t ts = s.ts[slice];
    // The last range that began at or before the call: the innermost open one, or one that
    // ended before it, whose open ancestors (push/pop ranges nest) are the call's.
    auto at = std::upper_bound(list->second.begin(), list->second.end(), ts,
                               [&s](int64_t x, uint32_t r) { return x < s.ts[r]; });
    if (at == list->second.begin()) return;
    // Up at most kMaxWalk levels: a hostile export nests ranges tens of thousands deep, and
    // this runs once per op it is asked about.
    constexpr int kMaxWalk = 256;
    int walked = 0;
    for (int32_t r = static_cast<int32_t>(*(at - 1)); r >= 0 && walked++ < kMaxWalk;
         r = s.parent[static_cast<size_t>(r)]) {
      const auto k = static_cast<uint32_t>(r);
      if (s.end(k) > ts && !step_slices_.count(k) && !visit(k)) return;
    }
  }

 private:
  const Trace& t_;
  size_t max_depth_;
  std::unordered_map<TrackId, TrackId> nvtx_track_of_;         // CUDA API track -> NVTX track
  std::unordered_map<TrackId, std::vector<uint32_t>> ranges_;  // NVTX track -> ranges by start
  std::unordered_set<uint32_t> step_slices_;
};

}  // namespace ks
