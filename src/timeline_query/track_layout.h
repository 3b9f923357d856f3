// The timeline's tracks, in the order they are drawn: grouped by process, processes sorted by
// their process_sort_index (else pid), threads by thread_sort_index (else tid), as Chrome's
// trace viewer and Perfetto order them. Each group lists its slice tracks (CPU threads, GPU
// streams, async lanes) with their row count, and its counter series. Tracks and processes
// that recorded nothing are left out. Written as JSON for the page (trackLayoutJson).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "timeline_query/view_index.h"

namespace ks::timeline_query {

struct LayoutTrack {
  TrackId id = 0;
  std::string name;   // thread/stream name, else "thread TID"
  std::string kind;   // "thread" | "stream" | "async"
  uint32_t rows = 0;  // slice rows (max depth + 1)
  uint64_t slices = 0;
  uint64_t instants = 0;
  bool sparse = false;  // nothing worth a lane by default (sparse_track); the page can show it
};

struct LayoutCounter {
  uint32_t id = 0;  // index into ViewIndex::counters()
  std::string name;
  double min = 0, max = 0;
  uint64_t samples = 0;
};

struct LayoutGroup {
  uint32_t process = 0;
  std::string name;  // "python (1234)", "GPU 0", "GPU 0: NVIDIA A100-SXM4-80GB (0000:c1:00.0)"
  std::string pid;
  bool gpu = false;
  std::vector<LayoutTrack> tracks;
  std::vector<LayoutCounter> counters;
};

// A track with nothing worth drawing: one or two instants and no slices, or a single slice with
// nothing nested that covers (nearly) the whole trace. Kineto's bookkeeping lanes are like this
// ("Spans": one "PyTorch Profiler (0)" slice over the window; "Traces": one "Iteration Start";
// a pid "" with one "Record Window End"). Decided from the data, not by name.
bool sparse_track(const TrackRows& rows, size_t instants, int64_t span_ns);

std::vector<LayoutGroup> track_layout(const ViewIndex& index);

// {"origin_ns": "...", "time_zero": "first event" | "session start", "start_ns": N, "span_ns": N,
// "groups": [...], "steps": [{number, start_ns, end_ns, inferred?}]} (`start_ns`: the first event,
// from the time zero; the trace is [start_ns, start_ns + span_ns]) (`inferred`: true on every band
// when the trace has no step markers and the bands are the iterations inferred from the repeating
// launches)
std::string track_layout_json(const ViewIndex& index);

}  // namespace ks::timeline_query
