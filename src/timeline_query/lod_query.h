// The level-of-detail query behind the timeline: for a time window, the pixels it spans and the
// visible tracks, what to draw on each row.
//   - A slice at least one pixel wide is returned as itself.
//   - Consecutive slices narrower than a pixel, with gaps under a pixel between them, are merged
//     into one "busy" rectangle that carries how many slices it stands for (tracy's folded
//     zones). A narrow slice with nothing to merge with is returned as itself.
//   - Counter series: every sample when there are fewer than two per pixel, else per pixel the
//     first sample's time with the min, max and last value of that pixel's samples.
//   - Instants: at most one mark per pixel, with the number of instants it stands for.
// The caller asks for more than the visible window (a screen each side, as Perfetto's
// buffered_bounds) so panning redraws from the answer it already has.
//
// Cost: per row, two binary searches for the window's first and last slice, then one lookup per
// rectangle: a slice drawn as itself costs O(1); a merged run costs one search of the row's block
// max-tree over max(duration, gap before) for the first slice that is a pixel wide or a pixel
// away, O(16 + log n). A row yields at most 2P + 1 rectangles for P pixels (each rectangle is a
// pixel wide, or is followed by a wide slice or a gap of a pixel), so a query costs
// O(rows x P x log n) however many slices fall inside the window: zoomed out over millions of
// slices it touches a few per pixel. Counters and instants: O(P x log n) per series or track.
#pragma once
#include <cstdint>
#include <vector>

#include "model/trace.h"
#include "timeline_query/view_index.h"

namespace ks::timeline_query {

struct Viewport {
  int64_t start = 0, end = 0;  // relative ns: the window to fill (visible window plus margins)
  double pixels = 1;           // how many pixels the window spans
};

// Struct-of-arrays, one entry per rectangle, so each column crosses into JS as a typed array.
struct SliceRects {
  std::vector<double> start, end;  // relative ns
  std::vector<int32_t> slice;      // model slice index (for a merged run: its first slice)
  std::vector<uint32_t> count;     // 1: the slice itself; n > 1: a merged run of n slices
  std::vector<uint32_t> name;      // StringId of the slice's (run's first slice's) name
  std::vector<uint32_t> track;     // TrackId
  std::vector<uint32_t> depth;
  size_t size() const { return start.size(); }
};

struct CounterPoints {
  std::vector<uint32_t> series;  // index into ViewIndex::counters()
  std::vector<double> ts;        // relative ns
  std::vector<double> min, max, last;
  size_t size() const { return ts.size(); }
};

struct InstantMarks {
  std::vector<uint32_t> track;
  std::vector<double> ts;        // relative ns
  std::vector<uint32_t> count;   // instants in this mark's pixel
  std::vector<int32_t> instant;  // index into the model's InstantTable (the first)
  std::vector<uint32_t> name;
  size_t size() const { return ts.size(); }
};

struct LodResult {
  SliceRects slices;
  CounterPoints counters;
  InstantMarks instants;
  uint64_t searches = 0;  // binary searches and tree lookups done: the query's cost
  int64_t pixel_ns = 1;   // the width of one pixel used for merging
};

void query_slices(const ViewIndex& index, const Viewport& vp, const std::vector<TrackId>& tracks,
                  LodResult* out);
void query_counters(const ViewIndex& index, const Viewport& vp, const std::vector<uint32_t>& series,
                    LodResult* out);
void query_instants(const ViewIndex& index, const Viewport& vp, const std::vector<TrackId>& tracks,
                    LodResult* out);

// All three, into a cleared result.
LodResult query_viewport(const ViewIndex& index, const Viewport& vp,
                         const std::vector<TrackId>& tracks, const std::vector<uint32_t>& series);

}  // namespace ks::timeline_query
