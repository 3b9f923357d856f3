// The timeline's half of the WebAssembly boundary (included by bindings.cpp only): the view
// index (src/timeline_query) over a loaded trace, built on the first timeline call, and the calls
// the worker forwards from the page. Columns of numbers come back as typed-array views into WASM
// memory; the worker copies them at once (`.slice()`), before any other call can grow the memory
// and detach the views, and transfers the copies to the page.
#pragma once
#include <emscripten/val.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "model/trace.h"
#include "timeline_query/aggregate.h"
#include "timeline_query/flow_links.h"
#include "timeline_query/id_list.h"
#include "timeline_query/lod_query.h"
#include "timeline_query/slice_query.h"
#include "timeline_query/track_layout.h"
#include "timeline_query/view_index.h"

namespace ks_wasm {

template <typename T>
emscripten::val column(const std::vector<T>& v) {
  return emscripten::val(emscripten::typed_memory_view(v.size(), v.data()));
}

class TimelineSession {
 public:
  explicit TimelineSession(const ks::Trace& trace) : index_(trace) {}

  std::string trackLayoutJson() const { return ks::timeline_query::track_layout_json(index_); }

  // Rectangles, counter points and instant marks for [start, end) (relative ns) spanning
  // `pixels` pixels, for the listed tracks and counter series.
  emscripten::val queryViewport(double start, double end, double pixels, const std::string& tracks,
                                const std::string& counters) {
    ks::timeline_query::Viewport vp;
    vp.start = static_cast<int64_t>(start);
    vp.end = static_cast<int64_t>(end);
    vp.pixels = pixels;
    lod_ = ks::timeline_query::query_viewport(index_, vp,
                                              ks::timeline_query::parse_ids_as<ks::TrackId>(tracks),
                                              ks::timeline_query::parse_ids_as<uint32_t>(counters));
    using emscripten::val;
    val out = val::object();
    const ks::timeline_query::SliceRects& r = lod_.slices;
    out.set("start", column(r.start));
    out.set("end", column(r.end));
    out.set("slice", column(r.slice));
    out.set("count", column(r.count));
    out.set("name", column(r.name));
    out.set("track", column(r.track));
    out.set("depth", column(r.depth));
    const ks::timeline_query::CounterPoints& c = lod_.counters;
    out.set("cSeries", column(c.series));
    out.set("cTs", column(c.ts));
    out.set("cMin", column(c.min));
    out.set("cMax", column(c.max));
    out.set("cLast", column(c.last));
    const ks::timeline_query::InstantMarks& m = lod_.instants;
    out.set("iTrack", column(m.track));
    out.set("iTs", column(m.ts));
    out.set("iCount", column(m.count));
    out.set("iInstant", column(m.instant));
    out.set("iName", column(m.name));
    out.set("searches", static_cast<double>(lod_.searches));
    out.set("pixelNs", static_cast<double>(lod_.pixel_ns));
    return out;
  }

  // {"id": "name", ...} for string ids (slice and instant names the page has not seen yet).
  std::string namesJson(const std::string& ids) const {
    const ks::Trace& t = index_.trace();
    std::string out = "{";
    bool first = true;
    for (uint64_t id : ks::timeline_query::parse_id_list(ids)) {
      if (id >= t.strings.size()) continue;
      if (!first) out += ',';
      first = false;
      out += '"' + std::to_string(id) + "\":";
      ks::append_json_escaped(&out, t.str(static_cast<ks::StringId>(id)));  // quoted
    }
    return out + "}";
  }

  std::string sliceDetailsJson(double slice) const {
    return ks::timeline_query::slice_details_json(index_, static_cast<uint32_t>(slice));
  }

  std::string sliceNamesJson() const { return ks::timeline_query::slice_names_json(index_); }

  // The slices named by any of the ids, by start time: {slice, start, end, track, depth}.
  emscripten::val slicesWithNames(const std::string& ids) {
    return hitColumns(ks::timeline_query::slices_with_names(
        index_, ks::timeline_query::parse_ids_as<ks::StringId>(ids)));
  }

  // The same columns for the given slices ("[3,17,...]", e.g. the critical path's events):
  // unknown ids are dropped, repeats kept once, in time order.
  emscripten::val slicesWithIds(const std::string& ids) {
    const ks::SliceTable& s = index_.trace().slices;
    std::vector<uint32_t> hits;
    for (uint32_t i : ks::timeline_query::parse_ids_as<uint32_t>(ids))
      if (i < s.size()) hits.push_back(i);
    std::sort(hits.begin(), hits.end(), [&s](uint32_t a, uint32_t b) {
      return s.ts[a] != s.ts[b] ? s.ts[a] < s.ts[b] : a < b;
    });
    hits.erase(std::unique(hits.begin(), hits.end()), hits.end());
    return hitColumns(hits);
  }

 private:
  emscripten::val hitColumns(const std::vector<uint32_t>& hits) {
    const ks::SliceTable& s = index_.trace().slices;
    found_.slice.clear();
    found_.start.clear();
    found_.end.clear();
    found_.track.clear();
    found_.depth.clear();
    for (uint32_t i : hits) {
      found_.slice.push_back(static_cast<int32_t>(i));
      found_.start.push_back(static_cast<double>(index_.rel_start(i)));
      found_.end.push_back(static_cast<double>(index_.rel_start(i) + s.dur[i]));
      found_.track.push_back(s.track[i]);
      found_.depth.push_back(s.depth[i]);
    }
    emscripten::val out = emscripten::val::object();
    out.set("slice", column(found_.slice));
    out.set("start", column(found_.start));
    out.set("end", column(found_.end));
    out.set("track", column(found_.track));
    out.set("depth", column(found_.depth));
    return out;
  }

 public:
  // "[slice or -1, ...]" for byte offsets of events in the decompressed JSON.
  std::string slicesAtOffsetsJson(const std::string& offsets) {
    std::vector<int32_t> found =
        offsets_.lookup(index_, ks::timeline_query::parse_ids_as<uint64_t>(offsets));
    std::string out = "[";
    for (size_t i = 0; i < found.size(); ++i) out += (i ? "," : "") + std::to_string(found[i]);
    return out + "]";
  }

  std::string briefJson(double slice) const {
    const auto i = static_cast<uint32_t>(slice);
    if (i >= index_.trace().slices.size()) return "null";
    ks::JsonWriter w;
    ks::timeline_query::write_slice_brief(&w, index_, i);
    return w.take();
  }

  std::string aggregateJson(double from, double to, const std::string& tracks) const {
    ks::timeline_query::Aggregate a = ks::timeline_query::aggregate_range(
        index_, static_cast<int64_t>(from), static_cast<int64_t>(to),
        ks::timeline_query::parse_ids_as<ks::TrackId>(tracks));
    return ks::timeline_query::aggregate_json(index_, a);
  }

  std::string flowsForSlice(double slice) {
    if (!flows_) flows_ = std::make_unique<ks::timeline_query::FlowLinks>(index_);
    return ks::timeline_query::flows_json(index_, *flows_, static_cast<uint32_t>(slice));
  }

  int sliceAt(double track, double depth, double t, double tolerance) const {
    return ks::timeline_query::slice_at(index_, static_cast<ks::TrackId>(track),
                                        static_cast<uint32_t>(depth), static_cast<int64_t>(t),
                                        static_cast<int64_t>(tolerance));
  }

 private:
  ks::timeline_query::ViewIndex index_;
  ks::timeline_query::LodResult lod_;  // the last query's columns (views handed out point here)
  ks::timeline_query::SliceRects found_;
  std::unique_ptr<ks::timeline_query::FlowLinks> flows_;
  ks::timeline_query::OffsetIndex offsets_;
};

}  // namespace ks_wasm
