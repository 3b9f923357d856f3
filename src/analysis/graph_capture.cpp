#include "analysis/graph_capture.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "analysis/name_cache.h"
#include "util/text_match.h"

namespace ks {

namespace {

enum Call { kNone, kBegin, kEnd, kInstantiate, kReplay };

// The runtime's, HIP's and the driver's names, with nsys' version suffixes
// (cudaStreamBeginCapture_v10000, cuGraphInstantiateWithFlags, hipGraphLaunch).
int call_of(std::string_view n) {
  for (std::string_view api : {"cuda", "hip", "cu"}) {
    if (!starts_with(n, api)) continue;
    n.remove_prefix(api.size());
    if (starts_with(n, "StreamBeginCapture")) return kBegin;
    if (starts_with(n, "StreamEndCapture")) return kEnd;
    if (starts_with(n, "GraphInstantiate")) return kInstantiate;
    if (starts_with(n, "GraphLaunch")) return kReplay;
    return kNone;
  }
  return kNone;
}

}  // namespace

GraphCaptures find_graph_captures(const Trace& t, const LaunchJoin& join, const StepsResult& steps,
                                  const GpuIdleResult& idle) {
  GraphCaptures r;
  const SliceTable& s = t.slices;
  auto call = make_name_cache(t, call_of);
  // A capture begins and ends on the thread that captures: per thread, in time order
  // (runtime_by_ts), a begin opens a window and the matching end closes it (a thread capturing
  // two streams at once nests them). An end with no begin closes a capture begun before the
  // trace; a begin never closed runs to the trace's end.
  struct Open {
    int64_t since = 0;
    int depth = 0;
  };
  std::map<TrackId, Open> open;
  std::vector<Interval> windows;
  auto note_first = [&](uint32_t i) {
    if (r.first_call < 0) r.first_call = static_cast<int32_t>(i);
  };
  for (uint32_t i : join.runtime_by_ts) {
    switch (call(s.name[i])) {
      case kBegin: {
        Open& o = open[s.track[i]];
        if (o.depth++ == 0) {
          o.since = s.ts[i];
          ++r.captures;
        }
        note_first(i);
        break;
      }
      case kEnd: {
        auto it = open.find(s.track[i]);
        if (it == open.end() || it->second.depth == 0) {
          windows.push_back({t.facts.start_ns, s.end(i)});
          ++r.captures;
        } else if (--it->second.depth == 0) {
          windows.push_back({it->second.since, s.end(i)});
        }
        note_first(i);
        break;
      }
      case kInstantiate:
        ++r.instantiations;
        r.instantiate_ns += s.dur[i];
        break;
      case kReplay:
        ++r.replays;
        break;
      default:
        break;
    }
  }
  for (const auto& kv : open)
    if (kv.second.depth > 0) windows.push_back({kv.second.since, t.facts.end_ns});
  r.windows = merge_intervals(std::move(windows));
  if (r.windows.empty() || !idle.has_gpu_ops || idle.busy.empty()) return r;
  // The GPU idle window, as compute_gpu_idle takes it.
  std::vector<Interval> window;
  if (!steps.steps.empty()) {
    for (const Step& st : steps.steps) window.push_back({st.begin, st.end});
  } else {
    window.push_back({idle.busy.front().begin, idle.busy.back().end});
  }
  const std::vector<Interval> inside = intersect(merge_intervals(std::move(window)), r.windows);
  r.in_window_ns = total_length(inside);
  r.idle_in_capture_ns = r.in_window_ns - total_length(intersect(inside, idle.busy));
  return r;
}

}  // namespace ks
