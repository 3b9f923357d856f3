// What the timeline asks of a trace, prepared once: per track and per depth ("row") the slices
// as sorted, non-overlapping arrays with a block max-tree over max(duration, gap); per counter
// series and per track of instants, sorted sample arrays; self times; the step bands. Times in
// the view are nanoseconds from the trace's time zero (facts.origin_ns(): the first event, or an
// Nsight Systems session's start), the report's zero too, so a double in JS holds them exactly
// (up to 2^53 ns, 104 days).
//
// Why rows are non-overlapping: TraceBuilder gives each slice the depth of its track's stack of
// open slices, and a slice that only partly overlaps the one above goes one row deeper (see
// compute_depth_and_parent). Two slices on one row therefore never overlap, so their starts
// and their ends are both sorted, and binary search works on either.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "analysis/launch_join.h"
#include "analysis/steps.h"
#include "model/trace.h"
#include "timeline_query/block_max.h"
#include "timeline_query/block_minmax.h"

namespace ks::timeline_query {

struct SliceRow {               // the slices of one track at one depth, in time order
  std::vector<uint32_t> slice;  // model slice index
  std::vector<int64_t> start;   // relative ns
  std::vector<int64_t> dur;
  // max(duration, gap since the previous slice ended): a run of sub-pixel slices with sub-pixel
  // gaps ends at the first slice whose `step` is a pixel or more (lod_query.cpp).
  std::vector<int64_t> step;
  BlockMaxTree max_step;  // over `step`
  size_t size() const { return slice.size(); }
  int64_t end(size_t k) const { return start[k] + dur[k]; }
  // First k with end(k) >= t (ends are sorted on a row).
  size_t first_ending_at_or_after(int64_t t) const;
  // First k at or after `from` with start[k] >= t.
  size_t first_starting_at_or_after(size_t from, int64_t t) const;
};

struct TrackRows {
  std::vector<SliceRow> rows;  // by depth
  size_t slices = 0;
};

struct CounterSeries {  // one line of one process's counter track ("name" or "name.key")
  uint32_t process = 0;
  StringId series = 0;
  std::vector<int64_t> ts;  // relative ns, sorted
  std::vector<double> value;
  double min = 0, max = 0;
  BlockMinMax range;  // over `value`
};

struct InstantRow {               // the instant events of one track, in time order
  std::vector<int64_t> ts;        // relative ns
  std::vector<uint32_t> instant;  // index into the model's InstantTable
};

struct StepBand {
  int64_t number = 0;
  int64_t start = 0, end = 0;  // relative ns, device-adjusted (analysis/steps.h)
  // Without step markers, the iterations inferred from the repeating launches
  // (analysis/iterations.h) are the bands, numbered from 0.
  bool inferred = false;
};

class ViewIndex {
 public:
  explicit ViewIndex(const Trace& trace);
  // Rows point into their own vectors: the index stays where it was built.
  ViewIndex(const ViewIndex&) = delete;
  ViewIndex& operator=(const ViewIndex&) = delete;

  const Trace& trace() const { return trace_; }
  int64_t origin() const { return trace_.facts.origin_ns(); }
  // Where the first event lies in the view's time (0 unless the time zero is a session start).
  int64_t first_event() const { return trace_.facts.first_event_after_origin_ns(); }
  int64_t span() const { return trace_.span_ns(); }
  const std::vector<TrackRows>& tracks() const { return tracks_; }  // by TrackId
  const std::vector<CounterSeries>& counters() const { return counters_; }
  const std::vector<InstantRow>& instants() const { return instants_; }  // by TrackId
  const std::vector<StepBand>& steps() const { return steps_; }
  const LaunchJoin& join() const { return join_; }
  // Duration minus the durations of the slice's children (slices whose parent it is).
  int64_t self_time(uint32_t slice) const { return self_[slice]; }
  int64_t rel_start(uint32_t slice) const { return trace_.slices.ts[slice] - origin(); }
  // Bytes the index holds beside the model (rows, block-max trees, counters, instants, self times,
  // the launch join): the timeline's own memory in the worker (docs/performance.md, "Timeline").
  size_t memory_bytes() const;

 private:
  void build_rows();
  void build_counters();
  void build_instants();
  void build_self_times();

  const Trace& trace_;
  std::vector<TrackRows> tracks_;
  std::vector<CounterSeries> counters_;
  std::vector<InstantRow> instants_;
  std::vector<StepBand> steps_;
  std::vector<int64_t> self_;
  LaunchJoin join_;
};

}  // namespace ks::timeline_query
