#include "timeline_query/slice_query.h"

#include <algorithm>
#include <numeric>

#include "model/slice_kind.h"
#include "timeline_query/nsys_args.h"
#include "util/exact_id.h"

namespace ks::timeline_query {

void write_slice_brief(JsonWriter* w, const ViewIndex& index, uint32_t slice) {
  const SliceTable& s = index.trace().slices;
  w->begin_object();
  w->field("slice", static_cast<uint64_t>(slice));
  w->field("track", static_cast<uint64_t>(s.track[slice]));
  w->field("depth", static_cast<uint64_t>(s.depth[slice]));
  w->field("start_ns", index.rel_start(slice));
  w->field("dur_ns", s.dur[slice]);
  w->field("name", index.trace().str(s.name[slice]));
  w->end_object();
}

namespace {

void optional_int(JsonWriter* w, const char* key, int64_t v) {
  w->key(key);
  if (v == kNoValue)
    w->null();
  else
    w->value(v);
}

void optional_float(JsonWriter* w, const char* key, float v) {
  w->key(key);
  if (v < 0)
    w->null();
  else
    w->value(static_cast<double>(v), 3);
}

void dims(JsonWriter* w, const char* key, const uint32_t (&d)[3]) {
  w->key(key).begin_array();
  for (uint32_t x : d) w->value(static_cast<uint64_t>(x));
  w->end_array();
}

}  // namespace

std::string slice_details_json(const ViewIndex& index, uint32_t i) {
  const Trace& t = index.trace();
  const SliceTable& s = t.slices;
  if (i >= s.size()) return "{}";
  const Track& track = t.tracks[s.track[i]];
  const Process& proc = t.processes[track.process];
  JsonWriter w;
  w.begin_object();
  w.field("slice", static_cast<uint64_t>(i));
  w.field("name", t.str(s.name[i]));
  w.field("cat", t.str(s.cat[i]));
  w.field("kind", slice_kind_name(s.kind[i]));
  w.field("track", static_cast<uint64_t>(s.track[i]));
  w.field("track_name",
          std::string_view(track.name.empty() ? "thread " + std::string(t.str(track.tid_text))
                                              : track.name));
  w.field("process_name", std::string_view(proc.name));
  w.field("pid", t.str(proc.pid_text));
  w.field("tid", t.str(track.tid_text));
  w.field("depth", static_cast<uint64_t>(s.depth[i]));
  w.field("start_ns", index.rel_start(i));
  w.field("dur_ns", s.dur[i]);
  w.field("self_ns", index.self_time(i));
  w.field("ts_ns", std::string_view(std::to_string(s.ts[i])));
  optional_int(&w, "correlation", s.correlation[i]);
  optional_int(&w, "bytes", s.copy_size(i));
  optional_int(&w, "stream", track.stream);
  optional_int(&w, "device", track.device);
  w.key("launch");
  if (s.launch_info[i] < 0) {
    w.null();
  } else {
    const KernelLaunchInfo& li = s.launch_infos[static_cast<size_t>(s.launch_info[i])];
    w.begin_object();
    dims(&w, "grid", li.grid);
    dims(&w, "block", li.block);
    optional_float(&w, "blocks_per_sm", li.blocks_per_sm);
    optional_float(&w, "warps_per_sm", li.warps_per_sm);
    optional_float(&w, "occupancy_pct", li.occupancy_pct);
    optional_float(&w, "bandwidth_gbps", li.bandwidth_gbps);
    w.end_object();
  }
  w.key("parent");
  if (s.parent[i] < 0)
    w.null();
  else
    write_slice_brief(&w, index, static_cast<uint32_t>(s.parent[i]));
  w.key("partner");
  const int32_t partner = index.join().partner[i];
  if (partner < 0)
    w.null();
  else
    write_slice_brief(&w, index, static_cast<uint32_t>(partner));
  uint64_t children = 0;
  for (size_t k = i + 1; k < s.size() && s.track[k] == s.track[i] && s.ts[k] <= s.end(i); ++k)
    if (s.parent[k] == static_cast<int32_t>(i)) ++children;
  w.field("children", children);
  w.field("file_offset", s.file_offset(i));
  write_exact_id(&w, "event_id", s.file_offset(i));
  w.field("byte_len", static_cast<uint64_t>(s.byte_len(i)));
  write_nsys_args(&w, index, i);
  w.end_object();
  return w.take();
}

std::string slice_names_json(const ViewIndex& index) {
  const Trace& t = index.trace();
  std::vector<bool> used(t.strings.size(), false);
  for (StringId id : t.slices.name) used[id] = true;
  std::string out = "[";
  bool first = true;
  for (StringId id = 0; id < used.size(); ++id) {
    if (!used[id]) continue;
    if (!first) out += ',';
    first = false;
    out += '[' + std::to_string(id) + ',';
    append_json_escaped(&out, t.str(id));  // quoted
    out += ']';
  }
  out += ']';
  return out;
}

std::vector<uint32_t> slices_with_names(const ViewIndex& index,
                                        const std::vector<StringId>& names) {
  const Trace& t = index.trace();
  std::vector<bool> wanted(t.strings.size(), false);
  for (StringId id : names)
    if (id < wanted.size()) wanted[id] = true;
  std::vector<uint32_t> out;
  const SliceTable& s = t.slices;
  for (uint32_t i = 0; i < s.size(); ++i)
    if (wanted[s.name[i]]) out.push_back(i);
  std::stable_sort(out.begin(), out.end(), [&s](uint32_t a, uint32_t b) {
    if (s.ts[a] != s.ts[b]) return s.ts[a] < s.ts[b];
    if (s.track[a] != s.track[b]) return s.track[a] < s.track[b];
    return s.depth[a] < s.depth[b];
  });
  return out;
}

std::vector<int32_t> OffsetIndex::lookup(const ViewIndex& index,
                                         const std::vector<uint64_t>& offsets) {
  const SliceTable& s = index.trace().slices;
  if (by_offset_.size() != s.size()) {
    by_offset_.resize(s.size());
    std::iota(by_offset_.begin(), by_offset_.end(), 0u);
    std::stable_sort(by_offset_.begin(), by_offset_.end(),
                     [&s](uint32_t a, uint32_t b) { return s.file_offset(a) < s.file_offset(b); });
  }
  std::vector<int32_t> out;
  for (uint64_t off : offsets) {
    auto it = std::lower_bound(by_offset_.begin(), by_offset_.end(), off,
                               [&s](uint32_t i, uint64_t v) { return s.file_offset(i) < v; });
    out.push_back(it != by_offset_.end() && s.file_offset(*it) == off ? static_cast<int32_t>(*it)
                                                                      : -1);
  }
  return out;
}

int32_t slice_at(const ViewIndex& index, TrackId track, uint32_t depth, int64_t t,
                 int64_t tolerance) {
  if (track >= index.tracks().size()) return -1;
  const TrackRows& tr = index.tracks()[track];
  if (depth >= tr.rows.size()) return -1;
  const SliceRow& row = tr.rows[depth];
  // Candidates: the slice ending at or after t - tolerance, and the one before it.
  size_t k = row.first_ending_at_or_after(t - tolerance);
  int32_t best = -1;
  int64_t best_gap = tolerance + 1;
  for (size_t c = k; c < row.size() && row.start[c] <= t + tolerance; ++c) {
    const int64_t gap = t < row.start[c] ? row.start[c] - t : (t > row.end(c) ? t - row.end(c) : 0);
    if (gap < best_gap) {
      best_gap = gap;
      best = static_cast<int32_t>(row.slice[c]);
    }
    if (gap == 0 || c - k > 64) break;
  }
  return best;
}

}  // namespace ks::timeline_query
