#include "model/trace_builder.h"

#include "model/stray_times.h"
#include "util/format.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>

namespace ks {

TraceBuilder::TraceBuilder(Trace* trace) : t_(trace) {}

uint32_t TraceBuilder::process(std::string_view pid_text) {
  key_.assign(pid_text);
  auto it = process_index_.find(key_);
  if (it != process_index_.end()) return it->second;
  auto id = static_cast<uint32_t>(t_->processes.size());
  Process p;
  p.pid_text = t_->strings.intern(pid_text);
  t_->processes.push_back(std::move(p));
  part_.process_first_name.emplace_back();
  part_.process_first_name_offset.push_back(PartState::kNoOffset);
  part_.process_labels_set.push_back(0);
  process_index_.emplace(key_, id);
  return id;
}

TrackId TraceBuilder::track(std::string_view pid_text, std::string_view tid_text) {
  key_.assign(pid_text);
  key_.push_back('\x1f');
  key_.append(tid_text);
  auto it = track_index_.find(key_);
  if (it != track_index_.end()) return it->second;
  std::string key = key_;
  Track tr;
  tr.process = process(pid_text);
  tr.tid_text = t_->strings.intern(tid_text);
  auto id = static_cast<TrackId>(t_->tracks.size());
  t_->tracks.push_back(std::move(tr));
  open_begins_.emplace_back();
  part_.track_first_name.emplace_back();
  part_.track_first_name_offset.push_back(PartState::kNoOffset);
  track_index_.emplace(std::move(key), id);
  return id;
}

uint32_t TraceBuilder::append_slice(TrackId track, int64_t ts, int64_t dur, StringId name,
                                    StringId cat, SliceKind kind, const SliceArgs& args,
                                    EventSource src) {
  SliceTable& s = t_->slices;
  auto index = static_cast<uint32_t>(s.size());
  s.ts.push_back(ts);
  s.dur.push_back(dur);
  s.track.push_back(track);
  s.name.push_back(name);
  s.cat.push_back(cat);
  s.kind.push_back(kind);
  s.correlation.push_back(args.correlation);
  if (args.launch) {
    s.launch_info.push_back(static_cast<int32_t>(s.launch_infos.size()));
    s.launch_infos.push_back(*args.launch);
  } else {
    s.launch_info.push_back(-1);
  }
  s.source.push_back(src.offset, src.length);
  if (!args.call_stack.empty())
    s.call_stacks.emplace_back(index, t_->strings.intern(args.call_stack));
  if (args.has_shapes) {
    OpShapeArgs o;
    o.dims = t_->strings.intern(args.input_dims);
    o.types = t_->strings.intern(args.input_types);
    o.concrete = t_->strings.intern(args.concrete_inputs);
    s.op_shapes.emplace_back(index, o);
  }
  if (args.has_collective) {
    CollectiveArgs c;
    c.in_nelems = args.in_nelems;
    c.out_nelems = args.out_nelems;
    c.group_size = args.group_size;
    c.peer = args.peer;
    c.collective = t_->strings.intern(args.collective);
    c.dtype = t_->strings.intern(args.dtype);
    c.process_group = t_->strings.intern(args.process_group);
    c.group_ranks = t_->strings.intern(args.process_group_ranks);
    s.collective_args.emplace_back(index, c);
  }
  if (args.external_id >= 0) s.external_ids.emplace_back(index, args.external_id);
  if (args.wait_on_stream >= 0)
    s.sync_waits.emplace_back(index,
                              SyncWaitArgs{args.wait_on_stream, args.wait_on_record_correlation});
  if (args.bytes != kNoValue) s.copy_sizes.emplace_back(index, args.bytes);
  Track& tr = t_->tracks[track];
  if (args.stream != kNoValue) tr.stream = args.stream;
  if (args.device != kNoValue) tr.device = args.device;
  return index;
}

void TraceBuilder::reserve(size_t slices, size_t flows, size_t launch_infos) {
  SliceTable& s = t_->slices;
  const size_t n = s.size() + slices;
  s.ts.reserve(n);
  s.dur.reserve(n);
  s.track.reserve(n);
  s.name.reserve(n);
  s.cat.reserve(n);
  s.kind.reserve(n);
  s.correlation.reserve(n);
  s.launch_info.reserve(n);
  s.source.reserve(n);
  s.launch_infos.reserve(s.launch_infos.size() + launch_infos);
  FlowTable& f = t_->flows;
  const size_t m = f.size() + flows;
  f.ts.reserve(m);
  f.track.reserve(m);
  f.id.reserve(m);
  f.cat.reserve(m);
  f.phase.reserve(m);
  f.binds_enclosing.reserve(m);
}

void TraceBuilder::add_complete(TrackId track, int64_t ts, int64_t dur, std::string_view name,
                                std::string_view cat, const SliceArgs& args, EventSource src) {
  StringId cat_id = t_->strings.intern(cat);
  auto kit = kind_of_cat_.find(cat_id);
  SliceKind kind = kit != kind_of_cat_.end()
                       ? kit->second
                       : (kind_of_cat_[cat_id] = slice_kind_from_category(cat));
  // Accelerators without Kineto's CUDA categories (MTIA's mtia_ccp_events) mark their device ops
  // with a positive `stream` arg; HTA counts those as kernels, and so do we.
  if (kind == SliceKind::kOther && args.stream > 0) kind = SliceKind::kKernel;
  append_slice(track, ts, dur, t_->strings.intern(name), cat_id, kind, args, src);
}

void TraceBuilder::add_begin(TrackId track, int64_t ts, std::string_view name, std::string_view cat,
                             const SliceArgs& args, EventSource src) {
  StringId cat_id = t_->strings.intern(cat);
  uint32_t index = append_slice(track, ts, 0, t_->strings.intern(name), cat_id,
                                slice_kind_from_category(cat), args, src);
  t_->slices.dur[index] = -1;  // open until its E arrives
  open_begins_[track].push_back(index);
  part_.paired_events = true;
}

void TraceBuilder::add_end(TrackId track, int64_t ts, std::string_view name, EventSource src) {
  part_.paired_events = true;
  auto& open = open_begins_[track];
  if (open.empty()) {
    t_->diagnostics.add(Diag::kUnmatchedEnd, src.offset);
    return;
  }
  // An E closes the innermost open B. When the E is named and the innermost open B has another
  // name, the slices crossed (Kineto's python_function and cpu_op slices of one thread do, by a
  // few us, and an exporter that writes them as B/E keeps the crossing): the E closes the
  // innermost open B of its own name, as Perfetto's JSON importer does, so the slices are those
  // the X events of the same capture give. Without a name, or with none open, the innermost.
  size_t at = open.size() - 1;
  if (!name.empty() && t_->strings.get(t_->slices.name[open[at]]) != name) {
    for (size_t i = at; i-- > 0;) {
      if (t_->strings.get(t_->slices.name[open[i]]) == name) {
        at = i;
        break;
      }
    }
  }
  uint32_t index = open[at];
  open.erase(open.begin() + static_cast<std::ptrdiff_t>(at));
  int64_t dur = ts - t_->slices.ts[index];
  if (dur < 0) {
    t_->diagnostics.add(Diag::kEndBeforeBegin, src.offset);
    dur = 0;
  }
  t_->slices.dur[index] = dur;
}

void TraceBuilder::add_async(char ph, std::string_view pid_text, int64_t ts, std::string_view name,
                             std::string_view cat, std::string_view id, EventSource src) {
  part_.paired_events = true;
  std::string tid = "async";
  if (!cat.empty()) tid.append(" ").append(cat);
  TrackId tr = track(pid_text, tid);
  t_->tracks[tr].kind = TrackKind::kAsync;
  key_.assign(pid_text).append("\x1f").append(cat).append("\x1f").append(id).append("\x1f").append(
      name);
  if (ph == 'n') {
    append_slice(tr, ts, 0, t_->strings.intern(name), t_->strings.intern(cat), SliceKind::kAsync,
                 SliceArgs(), src);
  } else if (ph == 'b') {
    uint32_t index = append_slice(tr, ts, 0, t_->strings.intern(name), t_->strings.intern(cat),
                                  SliceKind::kAsync, SliceArgs(), src);
    t_->slices.dur[index] = -1;
    open_async_[key_] = index;
  } else {  // 'e'
    auto it = open_async_.find(key_);
    if (it == open_async_.end()) {
      t_->diagnostics.add(Diag::kUnmatchedEnd, src.offset);
      return;
    }
    int64_t dur = ts - t_->slices.ts[it->second];
    t_->slices.dur[it->second] = dur < 0 ? 0 : dur;
    open_async_.erase(it);
  }
}

void TraceBuilder::add_flow(TrackId track, char ph, int64_t ts, std::string_view id,
                            std::string_view cat, bool binds_enclosing) {
  FlowTable& f = t_->flows;
  f.ts.push_back(ts);
  f.track.push_back(track);
  f.id.push_back(flow_id_of(id, &t_->strings));
  f.cat.push_back(t_->strings.intern(cat));
  f.phase.push_back(ph);
  f.binds_enclosing.push_back(binds_enclosing);
}

void TraceBuilder::add_counter(std::string_view pid_text, int64_t ts, std::string_view series,
                               double value) {
  CounterTable& c = t_->counters;
  c.ts.push_back(ts);
  c.process.push_back(process(pid_text));
  c.series.push_back(t_->strings.intern(series));
  c.value.push_back(value);
}

void TraceBuilder::add_instant(TrackId track, int64_t ts, std::string_view name,
                               std::string_view cat, char scope, int64_t mem_bytes,
                               int64_t total_allocated, int64_t total_reserved,
                               int64_t mem_device) {
  InstantTable& in = t_->instants;
  in.ts.push_back(ts);
  in.track.push_back(track);
  in.name.push_back(t_->strings.intern(name));
  in.cat.push_back(t_->strings.intern(cat));
  in.scope.push_back(scope ? scope : 't');
  in.mem_bytes.push_back(mem_bytes);
  in.mem_total_allocated.push_back(total_allocated);
  in.mem_total_reserved.push_back(total_reserved);
  in.mem_device.push_back(mem_device);
}

void TraceBuilder::set_process_name(std::string_view pid_text, std::string_view name,
                                    uint64_t offset) {
  const uint32_t id = process(pid_text);
  Process& p = t_->processes[id];
  if (!p.name.empty() && p.name != name) t_->diagnostics.add(Diag::kDuplicateMetadata, offset);
  p.name.assign(name);
  if (part_.process_first_name_offset[id] == PartState::kNoOffset) {
    part_.process_first_name_offset[id] = offset;
    part_.process_first_name[id].assign(name);
  }
}

void TraceBuilder::set_process_labels(std::string_view pid_text, std::string_view labels) {
  const uint32_t id = process(pid_text);
  t_->processes[id].labels.assign(labels);
  part_.process_labels_set[id] = 1;
}

void TraceBuilder::set_process_sort_index(std::string_view pid_text, int64_t index) {
  Process& p = t_->processes[process(pid_text)];
  p.sort_index = index;
  p.has_sort_index = true;
}

void TraceBuilder::set_thread_name(std::string_view pid_text, std::string_view tid_text,
                                   std::string_view name, uint64_t offset) {
  const TrackId id = track(pid_text, tid_text);
  Track& tr = t_->tracks[id];
  if (!tr.name.empty() && tr.name != name) t_->diagnostics.add(Diag::kDuplicateMetadata, offset);
  tr.name.assign(name);
  if (part_.track_first_name_offset[id] == PartState::kNoOffset) {
    part_.track_first_name_offset[id] = offset;
    part_.track_first_name[id].assign(name);
  }
}

void TraceBuilder::set_thread_sort_index(std::string_view pid_text, std::string_view tid_text,
                                         int64_t index) {
  Track& tr = t_->tracks[track(pid_text, tid_text)];
  tr.sort_index = index;
  tr.has_sort_index = true;
}

void TraceBuilder::observe_time(int64_t ts, int64_t end) {
  TraceFacts& f = t_->facts;
  if (!any_time_) {
    f.start_ns = ts;
    f.end_ns = end;
    any_time_ = true;
    part_.first_ts = ts;
  } else {
    if (ts < f.start_ns) f.start_ns = ts;
    if (end > f.end_ns) f.end_ns = end;
    if (ts < last_ts_) out_of_order_ = true;
  }
  last_ts_ = ts;
}

// Newer Kineto writes timestamps relative to baseTimeNanoseconds (a top-level key that comes
// after traceEvents), so the base can only be added once everything is read.
void TraceBuilder::apply_base_time() {
  TraceFacts& f = t_->facts;
  if (!f.has_base_time || f.base_time_ns == 0) return;
  // Only when the timestamps are relative (well below the base); never add it twice.
  if (any_time_ && f.start_ns > f.base_time_ns / 2) return;
  // Hostile values: adding the base must not overflow any end time (they are all <= end_ns).
  if (any_time_ && f.base_time_ns > 0 && f.end_ns > INT64_MAX - f.base_time_ns) return;
  const int64_t base = f.base_time_ns;
  for (auto& x : t_->slices.ts) x += base;
  for (auto& x : t_->flows.ts) x += base;
  for (auto& x : t_->counters.ts) x += base;
  for (auto& x : t_->instants.ts) x += base;
  // The profiler's own messages hold any time a row held: saturated, never overflowed.
  for (auto& m : f.profiler_warnings)
    m.ts = base > 0 ? (m.ts > INT64_MAX - base ? INT64_MAX : m.ts + base)
                    : (m.ts < INT64_MIN - base ? INT64_MIN : m.ts + base);
  if (any_time_) {
    f.start_ns += base;
    f.end_ns += base;
  }
  t_->diagnostics.add(Diag::kBaseTimeApplied, 0);
}

void TraceBuilder::close_open_slices() {
  SliceTable& s = t_->slices;
  std::vector<int64_t> track_last(t_->tracks.size(), INT64_MIN);
  for (size_t i = 0; i < s.size(); ++i) {
    int64_t e = s.dur[i] >= 0 ? s.ts[i] + s.dur[i] : s.ts[i];
    track_last[s.track[i]] = std::max(track_last[s.track[i]], e);
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.dur[i] >= 0) continue;
    t_->diagnostics.add(Diag::kUnclosedBegin, s.file_offset(i));
    t_->facts.unclosed_offsets.push_back(s.file_offset(i));
    s.dur[i] = std::max<int64_t>(0, track_last[s.track[i]] - s.ts[i]);
  }
  std::sort(t_->facts.unclosed_offsets.begin(), t_->facts.unclosed_offsets.end());
}

namespace {
constexpr uint32_t kLeftOut = UINT32_MAX;  // new_index of a slice left out

// Reorders `v` through `scratch`, which then holds v's old storage for the next column of the
// same type: a column's worth of fresh pages per type instead of per column (page faults were
// 6% of the CLI's time on a 230 MB trace of tiny kernels).
template <typename T>
void permute(std::vector<T>& v, const std::vector<uint32_t>& order, std::vector<T>& scratch) {
  scratch.clear();
  scratch.reserve(v.size());
  for (uint32_t i : order) scratch.push_back(v[i]);
  v.swap(scratch);
}
// A sparse per-slice table after the slices were reordered: new slice numbers, sorted by them
// (each slice appears at most once, so sorting by the slice alone is enough).
template <typename T>
void renumber_sparse(std::vector<std::pair<uint32_t, T>>& v,
                     const std::vector<uint32_t>& new_index) {
  if (v.empty()) return;
  for (auto& e : v) e.first = new_index[e.first];
  v.erase(std::remove_if(v.begin(), v.end(),
                         [](const std::pair<uint32_t, T>& e) { return e.first == kLeftOut; }),
          v.end());
  std::sort(v.begin(), v.end(),
            [](const std::pair<uint32_t, T>& a, const std::pair<uint32_t, T>& b) {
              return a.first < b.first;
            });
}
}  // namespace

namespace {
// Keeps the rows of `col` whose `keep` is set, in order.
template <typename T>
void keep_rows(std::vector<T>& col, const std::vector<uint8_t>& keep) {
  size_t w = 0;
  for (size_t r = 0; r < col.size(); ++r)
    if (keep[r]) col[w++] = col[r];
  col.resize(w);
}

// format_duration's text, and past two hours "2.5 hours", "35 days", "146 years": the spans a
// stray time comes with are anything up to centuries.
std::string seconds_text(uint64_t ns) {
  const double s = static_cast<double>(ns) / 1e9;
  if (s < 2 * 3600.0) return format_duration(static_cast<int64_t>(ns));
  char buf[64];
  if (s >= 2 * 365.25 * 86400)
    std::snprintf(buf, sizeof buf, "%.3g years", s / (365.25 * 86400));
  else if (s >= 2 * 86400.0)
    std::snprintf(buf, sizeof buf, "%.3g days", s / 86400);
  else
    std::snprintf(buf, sizeof buf, "%.3g hours", s / 3600);
  return buf;
}
}  // namespace

// Events whose times lie far from all the others (model/stray_times.h) leave the model: the
// slices through sort_slices' order, instants, counter samples and flow ends here; the trace's
// span becomes that of the rest. The diagnostic counts them and says how far they lay.
void TraceBuilder::leave_out_stray_times() {
  const KeptTimes k = find_stray_times(*t_);
  if (k.far_groups) {
    // Kept, but the report spans the gaps between them: said, so that a GPU idle for days or a
    // step of centuries is read for what it is.
    t_->diagnostics.add(Diag::kTimeGroups, 0);
    t_->diagnostics.set_detail(Diag::kTimeGroups, std::to_string(k.far_groups) +
                                                      " groups; the widest gap " +
                                                      seconds_text(k.widest_gap_ns) + ".");
  }
  if (!k.any_stray) return;
  auto in = [&k](int64_t x) { return x >= k.lo && x <= k.hi; };
  uint64_t left_out = 0;
  uint64_t first_offset = UINT64_MAX;
  bool nearest_before = false;  // the left-out time nearest to the rest: which side, how far
  uint64_t nearest_apart = UINT64_MAX;
  auto note = [&](int64_t x) {
    if (in(x)) return;
    const bool before = x < k.lo;
    const uint64_t d = before ? static_cast<uint64_t>(k.lo) - static_cast<uint64_t>(x)
                              : static_cast<uint64_t>(x) - static_cast<uint64_t>(k.hi);
    if (d < nearest_apart) nearest_apart = d, nearest_before = before;
  };
  SliceTable& s = t_->slices;
  stray_.assign(s.size(), 0);
  for (size_t i = 0; i < s.size(); ++i) {
    if (in(s.ts[i]) && in(s.end(i))) continue;
    stray_[i] = 1;
    ++left_out;
    first_offset = std::min<uint64_t>(first_offset, s.file_offset(i));
    note(s.ts[i]);
    note(s.end(i));
  }
  auto filter = [&](const std::vector<int64_t>& ts) {
    std::vector<uint8_t> keep(ts.size());
    for (size_t r = 0; r < ts.size(); ++r) {
      keep[r] = in(ts[r]);
      if (!keep[r]) ++left_out, note(ts[r]);
    }
    return keep;
  };
  {
    InstantTable& x = t_->instants;
    const std::vector<uint8_t> keep = filter(x.ts);
    keep_rows(x.ts, keep), keep_rows(x.track, keep), keep_rows(x.name, keep);
    keep_rows(x.cat, keep), keep_rows(x.scope, keep), keep_rows(x.mem_bytes, keep);
    keep_rows(x.mem_total_allocated, keep), keep_rows(x.mem_total_reserved, keep);
    keep_rows(x.mem_device, keep);
  }
  {
    CounterTable& x = t_->counters;
    const std::vector<uint8_t> keep = filter(x.ts);
    keep_rows(x.ts, keep), keep_rows(x.process, keep), keep_rows(x.series, keep);
    keep_rows(x.value, keep);
  }
  {
    FlowTable& x = t_->flows;
    const std::vector<uint8_t> keep = filter(x.ts);
    keep_rows(x.ts, keep), keep_rows(x.track, keep), keep_rows(x.id, keep);
    keep_rows(x.cat, keep), keep_rows(x.phase, keep), keep_rows(x.binds_enclosing, keep);
  }
  t_->facts.start_ns = k.lo;
  t_->facts.end_ns = k.hi;
  t_->diagnostics.add(Diag::kStrayTime, first_offset == UINT64_MAX ? 0 : first_offset, {},
                      left_out);
  const std::string rest = seconds_text(static_cast<uint64_t>(k.hi) - static_cast<uint64_t>(k.lo));
  t_->diagnostics.set_detail(Diag::kStrayTime,
                             "The rest span " + rest + "; the nearest time left out lies " +
                                 seconds_text(nearest_apart) +
                                 (nearest_before ? " before them." : " after them."));
}

void TraceBuilder::sort_slices() {
  SliceTable& s = t_->slices;
  // Parents before children: by track, earlier first, and at equal start the longer one first;
  // full ties as `before` below says (stable only for slices alike in all it reads). Done as a
  // stable counting sort by track, then a stable sort of each track's slices unless they are in
  // order already (most tracks are: a trace lists a thread's and a stream's events as they
  // happened). The result is the one stable_sort with the whole key gives; a global sort with that
  // key cost 1-2% of a load in scattered reads.
  const size_t n = s.size();
  TrackId max_track = 0;
  for (TrackId t : s.track) max_track = std::max(max_track, t);
  // Slices left out (leave_out_stray_times) get no place in the order, so the permutation below
  // drops them from every column.
  auto kept = [this](uint32_t i) { return stray_.empty() || !stray_[i]; };
  std::vector<uint32_t> start(n ? static_cast<size_t>(max_track) + 2 : 1, 0);
  for (uint32_t i = 0; i < n; ++i)
    if (kept(i)) ++start[s.track[i] + 1];
  for (size_t t = 1; t < start.size(); ++t) start[t] += start[t - 1];
  std::vector<uint32_t> order(start.back());
  {
    std::vector<uint32_t> next(start.begin(), start.end() - 1);
    for (uint32_t i = 0; i < n; ++i)
      if (kept(i)) order[next[s.track[i]]++] = i;
  }
  stray_.clear();
  // Ties on (ts, dur) (an op and the op it calls, both shorter than the clock's tick) go by
  // Kineto's "External id" (call order, parent first), then by name and category: never by the
  // file's order, so a trace with its events in another order gives the same model.
  const auto external_id = [&s](uint32_t i) {
    auto it = std::lower_bound(
        s.external_ids.begin(), s.external_ids.end(), i,
        [](const std::pair<uint32_t, int64_t>& e, uint32_t k) { return e.first < k; });
    return it != s.external_ids.end() && it->first == i ? it->second : INT64_MAX;
  };
  const StringPool& strings = t_->strings;
  auto before = [&s, &external_id, &strings](uint32_t a, uint32_t b) {
    if (s.ts[a] != s.ts[b]) return s.ts[a] < s.ts[b];
    if (s.dur[a] != s.dur[b]) return s.dur[a] > s.dur[b];
    const int64_t xa = external_id(a), xb = external_id(b);
    if (xa != xb) return xa < xb;
    if (s.name[a] != s.name[b]) return strings.get(s.name[a]) < strings.get(s.name[b]);
    return s.cat[a] != s.cat[b] && strings.get(s.cat[a]) < strings.get(s.cat[b]);
  };
  for (size_t t = 0; t + 1 < start.size(); ++t) {
    auto first = order.begin() + start[t], last = order.begin() + start[t + 1];
    if (!std::is_sorted(first, last, before)) std::stable_sort(first, last, before);
  }
  {
    std::vector<int64_t> i64;
    std::vector<uint32_t> u32;
    std::vector<SliceKind> kinds;
    std::vector<int32_t> i32;
    std::vector<uint64_t> u64;
    permute(s.ts, order, i64);
    permute(s.dur, order, i64);
    permute(s.correlation, order, i64);
    permute(s.track, order, u32);
    permute(s.name, order, u32);
    permute(s.cat, order, u32);
    permute(s.kind, order, kinds);
    permute(s.launch_info, order, i32);
    SourceSpans& src = s.source;
    if (src.wide) {
      permute(src.wide_offset, order, u64);
      permute(src.wide_length, order, u32);
    } else {
      std::vector<uint16_t> u16;
      std::vector<uint8_t> u8;
      permute(src.offset_low, order, u32);
      permute(src.length_low, order, u16);
      permute(src.key, order, u8);
    }
  }
  // The sparse per-slice tables, (slice, value) sorted by slice: renumber them, keep them sorted.
  std::vector<uint32_t> new_index(n, kLeftOut);
  for (uint32_t k = 0; k < order.size(); ++k) new_index[order[k]] = k;
  renumber_sparse(s.call_stacks, new_index);
  renumber_sparse(s.collective_args, new_index);
  renumber_sparse(s.op_shapes, new_index);
  renumber_sparse(s.sync_waits, new_index);
  renumber_sparse(s.copy_sizes, new_index);
  // Nothing after the order reads the ids: free them (the model's memory is a tracked target).
  std::vector<std::pair<uint32_t, int64_t>>().swap(s.external_ids);
}

// Per track: a stack of open slices. A slice that starts inside the top one but ends after it
// overlaps without nesting (overlapping kernels on a stream, clock skew): it is kept, counted,
// and placed one row deeper so nothing is drawn on top of anything else.
void TraceBuilder::compute_depth_and_parent() {
  SliceTable& s = t_->slices;
  s.depth.assign(s.size(), 0);
  s.parent.assign(s.size(), -1);
  std::vector<uint32_t> stack;
  TrackId current = 0xffffffffu;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.track[i] != current) {
      stack.clear();
      current = s.track[i];
    }
    while (!stack.empty() && s.end(stack.back()) <= s.ts[i]) stack.pop_back();
    if (!stack.empty()) {
      uint32_t top = stack.back();
      if (s.end(i) > s.end(top)) {
        t_->diagnostics.add(Diag::kPartialOverlap, s.file_offset(i));
      } else {
        s.parent[i] = static_cast<int32_t>(top);
      }
    }
    s.depth[i] = static_cast<uint16_t>(std::min<size_t>(stack.size(), 0xffff));
    stack.push_back(static_cast<uint32_t>(i));
  }
}

void TraceBuilder::classify_tracks() {
  SliceTable& s = t_->slices;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!is_gpu_side(s.kind[i])) continue;
    Track& tr = t_->tracks[s.track[i]];
    if (tr.kind == TrackKind::kCpuThread) tr.kind = TrackKind::kGpuStream;
    if (is_gpu_op(s.kind[i])) {
      tr.has_gpu_ops = true;
      t_->processes[tr.process].has_gpu_ops = true;
    }
  }
  for (Track& tr : t_->tracks) {
    if (tr.kind == TrackKind::kGpuStream && tr.name.empty()) {
      std::string_view tid = t_->str(tr.tid_text);
      tr.name = "stream " + std::string(tr.stream != kNoValue ? std::to_string(tr.stream) : tid);
    }
  }
}

// Flow starts and finishes pair by (category, id): sorted keys in two vectors rather than a hash
// map of balances, 16 bytes a flow instead of a node per id, at the peak of an import (finalize
// holds the whole model).
uint64_t count_unpaired_flows(const FlowTable& f) {
  using Key = std::pair<StringId, FlowId>;
  std::vector<Key> starts, finishes;
  for (size_t i = 0; i < f.size(); ++i) {
    Key key{f.cat[i], f.id[i]};
    if (f.phase[i] == 's') starts.push_back(key);
    if (f.phase[i] == 'f') finishes.push_back(key);
  }
  std::sort(starts.begin(), starts.end());
  std::sort(finishes.begin(), finishes.end());
  // Walk both in key order: a key whose starts and finishes differ in number is unpaired.
  uint64_t unpaired = 0;
  size_t a = 0, b = 0;
  while (a < starts.size() || b < finishes.size()) {
    const Key key = a < starts.size() && (b == finishes.size() || starts[a] <= finishes[b])
                        ? starts[a]
                        : finishes[b];
    size_t ns = 0, nf = 0;
    while (a < starts.size() && starts[a] == key) ++a, ++ns;
    while (b < finishes.size() && finishes[b] == key) ++b, ++nf;
    if (ns != nf) ++unpaired;
  }
  return unpaired;
}

// A missing end is worth counting once.
void TraceBuilder::check_flows() {
  FlowTable& f = t_->flows;
  // Reserved for rows that had no launch to link: given back (no copy when nothing is spare).
  f.ts.shrink_to_fit();
  f.track.shrink_to_fit();
  f.id.shrink_to_fit();
  f.cat.shrink_to_fit();
  f.phase.shrink_to_fit();
  f.binds_enclosing.shrink_to_fit();
  const uint64_t unpaired = count_unpaired_flows(f);
  if (unpaired) t_->diagnostics.add(Diag::kFlowWithoutEnd, 0, {}, unpaired);
}

namespace {
template <typename T, typename Map>
void append_mapped(std::vector<T>* to, const std::vector<T>& from, Map map) {
  to->reserve(to->size() + from.size());
  for (const auto& x : from) to->push_back(map(x));
}
}  // namespace

PartState TraceBuilder::part_state() const {
  PartState st = part_;
  st.any_time = any_time_;
  st.last_ts = last_ts_;
  st.out_of_order = out_of_order_;
  return st;
}

void TraceBuilder::merge_part(const Trace& p, const PartState& st) {
  // Strings, processes and tracks get ids in the order they first appear; the part's own ids are
  // in that order within the part, so taking them over in id order gives the ids one builder
  // would have given.
  std::vector<StringId> str(p.strings.size());
  for (StringId i = 0; i < p.strings.size(); ++i) str[i] = t_->strings.intern(p.str(i));
  std::vector<uint32_t> proc(p.processes.size());
  for (size_t i = 0; i < p.processes.size(); ++i) proc[i] = process(p.str(p.processes[i].pid_text));
  std::vector<TrackId> trk(p.tracks.size());
  for (size_t i = 0; i < p.tracks.size(); ++i)
    trk[i] = track(p.str(p.processes[p.tracks[i].process].pid_text), p.str(p.tracks[i].tid_text));

  // Metadata: the part's values win (they came later). A part's first name that differs from
  // the name here is a duplicate one builder would have counted, at that event.
  std::vector<uint64_t> duplicates;
  auto take_name = [&duplicates](std::string* name, const std::string& first, uint64_t offset,
                                 const std::string& last) {
    if (offset == PartState::kNoOffset) return;
    if (!name->empty() && *name != first) duplicates.push_back(offset);
    *name = last;
  };
  for (size_t i = 0; i < p.processes.size(); ++i) {
    const Process& from = p.processes[i];
    Process& to = t_->processes[proc[i]];
    take_name(&to.name, st.process_first_name[i], st.process_first_name_offset[i], from.name);
    if (st.process_labels_set[i]) to.labels = from.labels;
    if (from.has_sort_index) to.sort_index = from.sort_index, to.has_sort_index = true;
    to.metadata_events += from.metadata_events;
  }
  for (size_t i = 0; i < p.tracks.size(); ++i) {
    const Track& from = p.tracks[i];
    Track& to = t_->tracks[trk[i]];
    take_name(&to.name, st.track_first_name[i], st.track_first_name_offset[i], from.name);
    if (from.has_sort_index) to.sort_index = from.sort_index, to.has_sort_index = true;
    if (from.stream != kNoValue) to.stream = from.stream;
    if (from.device != kNoValue) to.device = from.device;
  }

  // The part's columns after this builder's, ids translated.
  const auto same = [](auto x) { return x; };
  const auto to_str = [&str](StringId id) { return str[id]; };
  const auto to_track = [&trk](TrackId id) { return trk[id]; };
  const SliceTable& a = p.slices;
  SliceTable& s = t_->slices;
  const auto base = static_cast<uint32_t>(s.size());
  const auto launch_base = static_cast<int32_t>(s.launch_infos.size());
  append_mapped(&s.ts, a.ts, same);
  append_mapped(&s.dur, a.dur, same);
  append_mapped(&s.track, a.track, to_track);
  append_mapped(&s.name, a.name, to_str);
  append_mapped(&s.cat, a.cat, to_str);
  append_mapped(&s.kind, a.kind, same);
  append_mapped(&s.correlation, a.correlation, same);
  append_mapped(&s.launch_info, a.launch_info,
                [launch_base](int32_t li) { return li < 0 ? -1 : li + launch_base; });
  s.source.append(a.source);
  append_mapped(&s.launch_infos, a.launch_infos, same);
  append_mapped(&s.call_stacks, a.call_stacks, [&](const std::pair<uint32_t, StringId>& cs) {
    return std::make_pair(cs.first + base, str[cs.second]);
  });
  append_mapped(&s.op_shapes, a.op_shapes, [&](std::pair<uint32_t, OpShapeArgs> o) {
    o.first += base;
    o.second.dims = str[o.second.dims];
    o.second.types = str[o.second.types];
    o.second.concrete = str[o.second.concrete];
    return o;
  });
  append_mapped(&s.collective_args, a.collective_args, [&](std::pair<uint32_t, CollectiveArgs> c) {
    c.first += base;
    c.second.collective = str[c.second.collective];
    c.second.dtype = str[c.second.dtype];
    c.second.process_group = str[c.second.process_group];
    c.second.group_ranks = str[c.second.group_ranks];
    return c;
  });
  append_mapped(&s.sync_waits, a.sync_waits, [base](std::pair<uint32_t, SyncWaitArgs> w) {
    w.first += base;
    return w;
  });
  append_mapped(&s.copy_sizes, a.copy_sizes, [base](std::pair<uint32_t, int64_t> x) {
    x.first += base;
    return x;
  });
  append_mapped(&s.external_ids, a.external_ids, [base](std::pair<uint32_t, int64_t> x) {
    x.first += base;
    return x;
  });
  FlowTable& f = t_->flows;
  append_mapped(&f.ts, p.flows.ts, same);
  append_mapped(&f.track, p.flows.track, to_track);
  append_mapped(&f.id, p.flows.id, [&str](FlowId id) {
    return id & kFlowIdText ? kFlowIdText | str[id & ~kFlowIdText] : id;
  });
  append_mapped(&f.cat, p.flows.cat, to_str);
  append_mapped(&f.phase, p.flows.phase, same);
  append_mapped(&f.binds_enclosing, p.flows.binds_enclosing, same);
  CounterTable& c = t_->counters;
  append_mapped(&c.ts, p.counters.ts, same);
  append_mapped(&c.process, p.counters.process, [&proc](uint32_t i) { return proc[i]; });
  append_mapped(&c.series, p.counters.series, to_str);
  append_mapped(&c.value, p.counters.value, same);
  InstantTable& in = t_->instants;
  append_mapped(&in.ts, p.instants.ts, same);
  append_mapped(&in.track, p.instants.track, to_track);
  append_mapped(&in.name, p.instants.name, to_str);
  append_mapped(&in.cat, p.instants.cat, to_str);
  append_mapped(&in.scope, p.instants.scope, same);
  append_mapped(&in.mem_bytes, p.instants.mem_bytes, same);
  append_mapped(&in.mem_total_allocated, p.instants.mem_total_allocated, same);
  append_mapped(&in.mem_total_reserved, p.instants.mem_total_reserved, same);
  append_mapped(&in.mem_device, p.instants.mem_device, same);

  TraceFacts& facts = t_->facts;
  facts.events_total += p.facts.events_total;
  for (const auto& kv : p.facts.events_by_phase) facts.events_by_phase[kv.first] += kv.second;
  for (const auto& kv : p.facts.categories) facts.categories[kv.first] += kv.second;
  facts.saw_call_stack = facts.saw_call_stack || p.facts.saw_call_stack;
  facts.saw_input_dims = facts.saw_input_dims || p.facts.saw_input_dims;
  facts.saw_flops = facts.saw_flops || p.facts.saw_flops;
  if (st.any_time) {
    if (!any_time_) {
      facts.start_ns = p.facts.start_ns;
      facts.end_ns = p.facts.end_ns;
      any_time_ = true;
    } else {
      facts.start_ns = std::min(facts.start_ns, p.facts.start_ns);
      facts.end_ns = std::max(facts.end_ns, p.facts.end_ns);
      if (st.first_ts < last_ts_) out_of_order_ = true;
    }
    out_of_order_ = out_of_order_ || st.out_of_order;
    last_ts_ = st.last_ts;
  }

  // Diagnostics keep per kind a count and the first occurrence; the part's all came after this
  // builder's. Duplicate names also come from the comparison above: the first of either kind.
  for (size_t d = 0; d < static_cast<size_t>(Diag::kCount); ++d) {
    const auto kind = static_cast<Diag>(d);
    DiagEntry e = p.diagnostics.get(kind);
    if (kind == Diag::kDuplicateMetadata && !duplicates.empty()) {
      uint64_t first = *std::min_element(duplicates.begin(), duplicates.end());
      if (e.count == 0 || first < e.first_offset) e.first_offset = first;
      e.count += duplicates.size();
    }
    if (e.count) t_->diagnostics.add(kind, e.first_offset, e.excerpt, e.count);
  }
}

void TraceBuilder::finalize() {
  apply_base_time();
  // Unclosed async begins get zero length. This runs before close_open_slices(), which closes
  // every slice still open (dur -1) and used to count these too (twice in all), and in input
  // order: the hash map's order differs between standard libraries (CLI vs WASM).
  std::vector<uint32_t> open_async;
  for (const auto& kv : open_async_) open_async.push_back(kv.second);
  std::sort(open_async.begin(), open_async.end());
  for (uint32_t i : open_async) {
    t_->slices.dur[i] = 0;
    t_->diagnostics.add(Diag::kUnclosedBegin, t_->slices.file_offset(i));
  }
  open_async_.clear();
  close_open_slices();
  if (out_of_order_) t_->diagnostics.add(Diag::kTimestampsOutOfOrder, 0);
  leave_out_stray_times();
  sort_slices();
  t_->slices.launch_infos.shrink_to_fit();  // reserved for kernels without launch info
  compute_depth_and_parent();
  classify_tracks();
  check_flows();
}

}  // namespace ks
