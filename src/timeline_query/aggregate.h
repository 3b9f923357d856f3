// The area-selection table ("key_averages scoped to a region"): for a time range and a set of
// tracks, per slice name: count, total, self, average, min and max duration.
// A slice counts when it overlaps the range (start < to and end > from; a zero-length slice when
// from <= start < to), as Perfetto's area selection counts them. Each row sums both the slices'
// whole durations (total) and their time inside the range (in_range: the union, per track, of its
// slices clipped to [from, to): nested slices of one name, as recursion makes, count once, so the
// column never exceeds the selection times the number of tracks). Self time is the
// duration minus the durations of its children. The in-range self, average, minimum and maximum
// are of the slices clipped to the range (a 177 ms step in a 5 ms selection counts 5 ms there, as
// Perfetto's area selection counts wall time); the whole-slice ones stay beside them.
// The page (aggregateJson) and the CLI (`kinetoscope aggregate`) write the same JSON.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "timeline_query/view_index.h"

namespace ks::timeline_query {

struct AggregateRow {
  StringId name = 0;
  SliceKind kind = SliceKind::kOther;  // of the first slice of that name (a name has one kind)
  uint64_t count = 0;
  int64_t total_ns = 0, self_ns = 0, min_ns = 0, max_ns = 0;
  int64_t in_range_ns = 0;  // per track, the union of its slices clipped to [from, to)
  // Of each slice clipped to [from, to): summed (clipped_ns: the average's numerator; unlike
  // in_range, nested slices of one name count once per level), its self time (its clipped
  // duration minus its children's clipped durations), shortest, longest.
  int64_t clipped_ns = 0, clipped_self_ns = 0, clipped_min_ns = 0, clipped_max_ns = 0;
};

struct Aggregate {
  int64_t from = 0, to = 0;  // relative ns
  std::vector<TrackId> tracks;
  uint64_t slices = 0;
  std::vector<AggregateRow> rows;  // by total descending, then name
};

// Cost: per track and row, a binary search then the slices inside the range.
Aggregate aggregate_range(const ViewIndex& index, int64_t from, int64_t to,
                          const std::vector<TrackId>& tracks);

// {"from_us", "to_us", "tracks": [...], "slices", "rows": [{name, count, total_us, in_range_us,
//  self_us, avg_us, min_us, max_us, kind, in_range_self_us, in_range_avg_us, in_range_min_us,
//  in_range_max_us}]}: times in microseconds from the trace's first event;
//  kind as slice_kind_name() says it (cpu_op, runtime, kernel, ...), so that a table mixing CPU
//  ops, runtime calls and kernels says which is which.
std::string aggregate_json(const ViewIndex& index, const Aggregate& a);

}  // namespace ks::timeline_query
