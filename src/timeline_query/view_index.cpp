#include "timeline_query/view_index.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

#include "analysis/iterations.h"

namespace ks::timeline_query {

size_t SliceRow::first_ending_at_or_after(int64_t t) const {
  size_t lo = 0, hi = size();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (end(mid) < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

size_t SliceRow::first_starting_at_or_after(size_t from, int64_t t) const {
  return static_cast<size_t>(
      std::lower_bound(start.begin() + static_cast<ptrdiff_t>(from), start.end(), t) -
      start.begin());
}

ViewIndex::ViewIndex(const Trace& trace) : trace_(trace) {
  build_rows();
  build_counters();
  build_instants();
  build_self_times();
  join_ = build_launch_join(trace_);
  StepsResult steps = find_steps(trace_, join_, false);
  for (const Step& s : steps.steps)
    steps_.push_back({s.number, s.begin - origin(), s.end - origin(), false});
  if (steps_.empty()) {
    const IterationsResult it = infer_iterations(trace_, join_);
    int64_t n = 0;
    for (const Iteration& i : it.iterations)
      steps_.push_back({n++, i.begin - origin(), i.end - origin(), true});
  }
}

// Slices are sorted by (track, ts), so each row receives its slices in time order.
void ViewIndex::build_rows() {
  const SliceTable& s = trace_.slices;
  tracks_.assign(trace_.tracks.size(), TrackRows());
  const int64_t base = origin();
  for (uint32_t i = 0; i < s.size(); ++i) {
    TrackRows& tr = tracks_[s.track[i]];
    const size_t depth = s.depth[i];
    if (tr.rows.size() <= depth) tr.rows.resize(depth + 1);
    SliceRow& row = tr.rows[depth];
    row.slice.push_back(i);
    row.start.push_back(s.ts[i] - base);
    row.dur.push_back(s.dur[i]);
    ++tr.slices;
  }
  for (TrackRows& tr : tracks_) {
    for (SliceRow& row : tr.rows) {
      row.step.resize(row.size());
      for (size_t k = 0; k < row.size(); ++k)
        row.step[k] = k == 0 ? row.dur[k] : std::max(row.dur[k], row.start[k] - row.end(k - 1));
      row.max_step = BlockMaxTree(&row.step);
    }
  }
}

void ViewIndex::build_counters() {
  const CounterTable& c = trace_.counters;
  std::map<std::pair<uint32_t, StringId>, size_t> index;
  std::vector<uint32_t> order(c.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&c](uint32_t a, uint32_t b) { return c.ts[a] < c.ts[b]; });
  for (uint32_t i : order) {
    auto key = std::make_pair(c.process[i], c.series[i]);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, counters_.size()).first;
      CounterSeries cs;
      cs.process = c.process[i];
      cs.series = c.series[i];
      cs.min = cs.max = c.value[i];
      counters_.push_back(std::move(cs));
    }
    CounterSeries& cs = counters_[it->second];
    cs.ts.push_back(c.ts[i] - origin());
    cs.value.push_back(c.value[i]);
    cs.min = std::min(cs.min, c.value[i]);
    cs.max = std::max(cs.max, c.value[i]);
  }
  for (CounterSeries& cs : counters_) cs.range = BlockMinMax(&cs.value);
}

void ViewIndex::build_instants() {
  const InstantTable& in = trace_.instants;
  instants_.assign(trace_.tracks.size(), InstantRow());
  std::vector<uint32_t> order(in.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&in](uint32_t a, uint32_t b) { return in.ts[a] < in.ts[b]; });
  for (uint32_t i : order) {
    InstantRow& row = instants_[in.track[i]];
    row.ts.push_back(in.ts[i] - origin());
    row.instant.push_back(i);
  }
}

void ViewIndex::build_self_times() {
  const SliceTable& s = trace_.slices;
  self_.assign(s.dur.begin(), s.dur.end());
  for (size_t i = 0; i < s.size(); ++i)
    if (s.parent[i] >= 0) self_[static_cast<size_t>(s.parent[i])] -= s.dur[i];
}

namespace {
template <typename T>
size_t bytes_of(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}
}  // namespace

size_t ViewIndex::memory_bytes() const {
  size_t n = bytes_of(tracks_) + bytes_of(counters_) + bytes_of(instants_) + bytes_of(steps_) +
             bytes_of(self_) + bytes_of(join_.partner) + bytes_of(join_.runtime_by_ts) +
             bytes_of(join_.gpu_ops_by_ts);
  for (const TrackRows& t : tracks_) {
    n += bytes_of(t.rows);
    for (const SliceRow& r : t.rows)
      n += bytes_of(r.slice) + bytes_of(r.start) + bytes_of(r.dur) + bytes_of(r.step) +
           r.max_step.memory_bytes();
  }
  for (const CounterSeries& c : counters_)
    n += bytes_of(c.ts) + bytes_of(c.value) + c.range.memory_bytes();
  for (const InstantRow& r : instants_) n += bytes_of(r.ts) + bytes_of(r.instant);
  return n;
}

}  // namespace ks::timeline_query
