#include "timeline_query/aggregate.h"

#include <algorithm>
#include <unordered_map>

#include "util/json_writer.h"

namespace ks::timeline_query {

namespace {

// A name's time in the range on one track is the union of its slices' clipped intervals: a
// recursive function (f inside f) or nested ranges of one name count their time once, not once
// per level, so a row's in_range never exceeds the range on that track. `clipped`: {row, begin,
// end} of the track's slices; sorted here.
template <typename Clipped>
void add_union_in_range(std::vector<Clipped>* clipped, std::vector<AggregateRow>* rows) {
  std::sort(clipped->begin(), clipped->end(), [](const Clipped& x, const Clipped& y) {
    return x.row != y.row ? x.row < y.row : x.begin < y.begin;
  });
  size_t i = 0;
  while (i < clipped->size()) {
    const size_t row = (*clipped)[i].row;
    int64_t begin = (*clipped)[i].begin, end = (*clipped)[i].end;
    for (++i; i < clipped->size() && (*clipped)[i].row == row; ++i) {
      if ((*clipped)[i].begin > end) {
        (*rows)[row].in_range_ns += end - begin;
        begin = (*clipped)[i].begin;
      }
      end = std::max(end, (*clipped)[i].end);
    }
    (*rows)[row].in_range_ns += end - begin;
  }
}

}  // namespace

Aggregate aggregate_range(const ViewIndex& index, int64_t from, int64_t to,
                          const std::vector<TrackId>& tracks) {
  Aggregate a;
  a.from = from;
  a.to = to;
  a.tracks = tracks;
  std::sort(a.tracks.begin(), a.tracks.end());
  a.tracks.erase(std::unique(a.tracks.begin(), a.tracks.end()), a.tracks.end());
  std::unordered_map<StringId, size_t> by_name;
  const SliceTable& s = index.trace().slices;
  // A track's clipped intervals per row of the table, merged once the track is read (in_range).
  struct Clipped {
    size_t row;
    int64_t begin, end;
  };
  std::vector<Clipped> clipped;
  auto clipped_dur = [from, to](int64_t begin, int64_t end) {
    return std::max<int64_t>(0, std::min(end, to) - std::max(begin, from));
  };
  for (TrackId track : a.tracks) {
    if (track >= index.tracks().size()) continue;
    clipped.clear();
    for (const SliceRow& row : index.tracks()[track].rows) {
      for (size_t k = row.first_ending_at_or_after(from); k < row.size() && row.start[k] < to;
           ++k) {
        const bool overlaps = row.dur[k] > 0 ? row.end(k) > from : row.start[k] >= from;
        if (!overlaps) continue;
        const uint32_t i = row.slice[k];
        auto it = by_name.find(s.name[i]);
        if (it == by_name.end()) {
          it = by_name.emplace(s.name[i], a.rows.size()).first;
          AggregateRow r;
          r.name = s.name[i];
          r.kind = s.kind[i];
          r.min_ns = r.max_ns = s.dur[i];
          r.clipped_min_ns = r.clipped_max_ns = clipped_dur(row.start[k], row.end(k));
          a.rows.push_back(r);
        }
        AggregateRow& r = a.rows[it->second];
        ++r.count;
        r.total_ns += s.dur[i];
        const int64_t in_range = clipped_dur(row.start[k], row.end(k));
        clipped.push_back({it->second, std::max(row.start[k], from), std::min(row.end(k), to)});
        r.self_ns += index.self_time(i);
        r.min_ns = std::min(r.min_ns, s.dur[i]);
        r.max_ns = std::max(r.max_ns, s.dur[i]);
        r.clipped_ns += in_range;
        r.clipped_self_ns += in_range;
        r.clipped_min_ns = std::min(r.clipped_min_ns, in_range);
        r.clipped_max_ns = std::max(r.clipped_max_ns, in_range);
        // The parent's self time in the range loses this child's time in it. Rows go by depth,
        // so a parent (one level up, on this track, overlapping the range as its child does) has
        // its row by now.
        if (s.parent[i] >= 0) {
          auto p = by_name.find(s.name[static_cast<size_t>(s.parent[i])]);
          if (p != by_name.end()) a.rows[p->second].clipped_self_ns -= in_range;
        }
        ++a.slices;
      }
    }
    add_union_in_range(&clipped, &a.rows);
  }
  const Trace& t = index.trace();
  std::sort(a.rows.begin(), a.rows.end(), [&t](const AggregateRow& x, const AggregateRow& y) {
    if (x.total_ns != y.total_ns) return x.total_ns > y.total_ns;
    return t.str(x.name) < t.str(y.name);
  });
  return a;
}

std::string aggregate_json(const ViewIndex& index, const Aggregate& a) {
  const Trace& t = index.trace();
  JsonWriter w;
  w.begin_object();
  w.field_micros("from_us", a.from);
  w.field_micros("to_us", a.to);
  w.key("tracks").begin_array();
  for (TrackId id : a.tracks) w.value(static_cast<uint64_t>(id));
  w.end_array();
  w.field("slices", a.slices);
  w.key("rows").begin_array();
  for (const AggregateRow& r : a.rows) {
    w.begin_object();
    w.field("name", t.str(r.name));
    w.field("count", r.count);
    w.field_micros("total_us", r.total_ns);
    w.field_micros("in_range_us", r.in_range_ns);
    w.field_micros("self_us", r.self_ns);
    w.field("avg_us", static_cast<double>(r.total_ns) / static_cast<double>(r.count) / 1e3, 3);
    w.field_micros("min_us", r.min_ns);
    w.field_micros("max_us", r.max_ns);
    w.field("kind", slice_kind_name(r.kind));
    w.field_micros("in_range_self_us", r.clipped_self_ns);
    w.field("in_range_avg_us",
            static_cast<double>(r.clipped_ns) / static_cast<double>(r.count) / 1e3, 3);
    w.field_micros("in_range_min_us", r.clipped_min_ns);
    w.field_micros("in_range_max_us", r.clipped_max_ns);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take();
}

}  // namespace ks::timeline_query
