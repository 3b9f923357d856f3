// The NVTX ranges around a CUDA call in an Nsight Systems export. The importer puts a thread's
// CUDA calls on its "<tid> CUDA API" track and its NVTX ranges on its "<tid> NVTX" track
// (import/nsys_sqlite), so the slice parents that give a Kineto call its enclosing CPU ops
// (launch_join.h, EnclosingCpuOps) give it nothing: this finds the push/pop ranges of the same
// thread open at the call's start instead. The steps' own ranges are left out (every call in a
// step is inside one, as ProfilerStep is left out of Kineto's chains).
#pragma once
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

// "4242 CUDA API", "4242 NVTX", "4242 OS runtime" -> "4242": the thread of an export's CPU
// track, "" for other tracks.
std::string_view export_thread_of(std::string_view tid_text);

class EnclosingNvtxRanges {
 public:
  EnclosingNvtxRanges(const Trace& trace, const StepsResult& steps, size_t max_depth);
  // The ranges open at `slice`'s start on its thread, outermost first, at most max_depth; empty
  // for a slice that is not on a CUDA API track or a trace without NVTX ranges.
  std::vector<StringId> of(uint32_t slice) const;
  // "forward > loss (NVTX)", or "" when no range encloses it.
  std::string text_of(uint32_t slice) const;

 private:
  const Trace& t_;
  size_t max_depth_;
  std::unordered_map<TrackId, TrackId> nvtx_track_of_;         // CUDA API track -> NVTX track
  std::unordered_map<TrackId, std::vector<uint32_t>> ranges_;  // NVTX track -> ranges by start
  std::unordered_set<uint32_t> step_slices_;
};

}  // namespace ks
