#include "timeline_query/lod_query.h"

#include <algorithm>
#include <cmath>

namespace ks::timeline_query {

namespace {

int64_t pixel_width_ns(const Viewport& vp) {
  const double span = static_cast<double>(vp.end - vp.start);
  const double px = vp.pixels > 0 ? vp.pixels : 1;
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(span / px)));
}

void emit(const Trace& t, const SliceRow& row, size_t k, int64_t end, uint32_t count, TrackId track,
          uint32_t depth, SliceRects* out) {
  const uint32_t slice = row.slice[k];
  out->start.push_back(static_cast<double>(row.start[k]));
  out->end.push_back(static_cast<double>(end));
  out->slice.push_back(static_cast<int32_t>(slice));
  out->count.push_back(count);
  out->name.push_back(t.slices.name[slice]);
  out->track.push_back(track);
  out->depth.push_back(depth);
}

void query_row(const Trace& t, const SliceRow& row, const Viewport& vp, int64_t px, TrackId track,
               uint32_t depth, LodResult* out) {
  size_t i = row.first_ending_at_or_after(vp.start);
  const size_t n = row.first_starting_at_or_after(i, vp.end);  // slices from i to n are drawn
  out->searches += 2;
  while (i < n) {
    if (row.dur[i] >= px) {  // wide enough to be drawn as itself
      emit(t, row, i, row.end(i), 1, track, depth, &out->slices);
      ++i;
      continue;
    }
    // A run of narrow slices: it ends at the first later slice that is wide or starts a pixel or
    // more after the previous one ended (ends are sorted, so that is the run's end so far).
    const size_t first = i;
    i = row.max_step.first_at_least(i + 1, n, px);
    ++out->searches;
    emit(t, row, first, row.end(i - 1), static_cast<uint32_t>(i - first), track, depth,
         &out->slices);
  }
}

size_t lower(const std::vector<int64_t>& v, int64_t t) {
  return static_cast<size_t>(std::lower_bound(v.begin(), v.end(), t) - v.begin());
}

}  // namespace

void query_slices(const ViewIndex& index, const Viewport& vp, const std::vector<TrackId>& tracks,
                  LodResult* out) {
  const int64_t px = pixel_width_ns(vp);
  out->pixel_ns = px;
  for (TrackId track : tracks) {
    if (track >= index.tracks().size()) continue;
    const TrackRows& tr = index.tracks()[track];
    for (size_t d = 0; d < tr.rows.size(); ++d)
      query_row(index.trace(), tr.rows[d], vp, px, track, static_cast<uint32_t>(d), out);
  }
}

void query_counters(const ViewIndex& index, const Viewport& vp, const std::vector<uint32_t>& series,
                    LodResult* out) {
  const int64_t px = pixel_width_ns(vp);
  CounterPoints& o = out->counters;
  for (uint32_t id : series) {
    if (id >= index.counters().size()) continue;
    const CounterSeries& cs = index.counters()[id];
    const size_t n = cs.ts.size();
    if (!n) continue;
    // From the sample in effect at the window's start to the first one after its end, so the
    // line reaches both edges.
    size_t from = lower(cs.ts, vp.start);
    if (from > 0 && (from == n || cs.ts[from] > vp.start)) --from;
    size_t to = std::upper_bound(cs.ts.begin(), cs.ts.end(), vp.end) - cs.ts.begin();
    if (to < n) ++to;
    out->searches += 2;
    if (static_cast<double>(to - from) <= 2 * vp.pixels) {
      for (size_t i = from; i < to; ++i) {
        o.series.push_back(id);
        o.ts.push_back(static_cast<double>(cs.ts[i]));
        o.min.push_back(cs.value[i]);
        o.max.push_back(cs.value[i]);
        o.last.push_back(cs.value[i]);
      }
      continue;
    }
    for (size_t i = from; i < to;) {
      size_t j = std::lower_bound(cs.ts.begin() + static_cast<ptrdiff_t>(i) + 1,
                                  cs.ts.begin() + static_cast<ptrdiff_t>(to), cs.ts[i] + px) -
                 cs.ts.begin();
      double lo, hi;
      cs.range.query(i, j, &lo, &hi);
      out->searches += 2;
      o.series.push_back(id);
      o.ts.push_back(static_cast<double>(cs.ts[i]));
      o.min.push_back(lo);
      o.max.push_back(hi);
      o.last.push_back(cs.value[j - 1]);
      i = j;
    }
  }
}

void query_instants(const ViewIndex& index, const Viewport& vp, const std::vector<TrackId>& tracks,
                    LodResult* out) {
  const int64_t px = pixel_width_ns(vp);
  InstantMarks& o = out->instants;
  for (TrackId track : tracks) {
    if (track >= index.instants().size()) continue;
    const InstantRow& row = index.instants()[track];
    size_t i = lower(row.ts, vp.start);
    ++out->searches;
    while (i < row.ts.size() && row.ts[i] <= vp.end) {
      size_t j =
          static_cast<size_t>(std::lower_bound(row.ts.begin() + static_cast<ptrdiff_t>(i) + 1,
                                               row.ts.end(), row.ts[i] + px) -
                              row.ts.begin());
      ++out->searches;
      o.track.push_back(track);
      o.ts.push_back(static_cast<double>(row.ts[i]));
      o.count.push_back(static_cast<uint32_t>(j - i));
      o.instant.push_back(static_cast<int32_t>(row.instant[i]));
      o.name.push_back(index.trace().instants.name[row.instant[i]]);
      i = j;
    }
  }
}

LodResult query_viewport(const ViewIndex& index, const Viewport& vp,
                         const std::vector<TrackId>& tracks, const std::vector<uint32_t>& series) {
  LodResult r;
  query_slices(index, vp, tracks, &r);
  query_counters(index, vp, series, &r);
  query_instants(index, vp, tracks, &r);
  return r;
}

}  // namespace ks::timeline_query
