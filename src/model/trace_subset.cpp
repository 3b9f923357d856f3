#include "model/trace_subset.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "model/trace_builder.h"

namespace ks {

namespace {
constexpr uint32_t kNone = UINT32_MAX;

// Per slice (depth and parent), as the builder computes them: the slices are in track order,
// each track's by start, longer first. Overlaps without nesting are counted again: the cut may
// have taken them away (two ranks' kernels on one shared stream) and the part's are its own.
void nest(SliceTable* s, Diagnostics* diagnostics) {
  s->depth.assign(s->size(), 0);
  s->parent.assign(s->size(), -1);
  std::vector<uint32_t> stack;
  TrackId current = kNone;
  for (size_t i = 0; i < s->size(); ++i) {
    if (s->track[i] != current) stack.clear(), current = s->track[i];
    while (!stack.empty() && s->end(stack.back()) <= s->ts[i]) stack.pop_back();
    if (!stack.empty() && s->end(i) <= s->end(stack.back()))
      s->parent[i] = static_cast<int32_t>(stack.back());
    else if (!stack.empty())
      diagnostics->add(Diag::kPartialOverlap, s->file_offset(i));
    s->depth[i] = static_cast<uint16_t>(std::min<size_t>(stack.size(), 0xffff));
    stack.push_back(static_cast<uint32_t>(i));
  }
}

// The rows of a sparse table (slice, value) whose slice the part keeps, renumbered: `kept` is the
// file's index of each kept slice, ascending, so the part's rows stay sorted by slice.
template <typename T>
void keep_sparse(const std::vector<std::pair<uint32_t, T>>& from, const std::vector<uint32_t>& kept,
                 std::vector<std::pair<uint32_t, T>>* to) {
  if (from.empty()) return;
  for (uint32_t j = 0; j < kept.size(); ++j) {
    auto at = std::lower_bound(
        from.begin(), from.end(), kept[j],
        [](const std::pair<uint32_t, T>& e, uint32_t slice) { return e.first < slice; });
    if (at != from.end() && at->first == kept[j]) to->emplace_back(j, at->second);
  }
}

// The categories of the file's events without a row that every part counts (trace_subset.h).
constexpr size_t kMaxSharedCategories = 16;

// `events` events the cut left out, each of the first of `phases` the file still counts (as when
// taken off one by one): the part's event counts are its own.
void forget_events(TraceFacts* f, std::initializer_list<const char*> phases, uint64_t events) {
  for (const char* ph : phases) {
    if (events == 0) return;
    auto it = f->events_by_phase.find(ph);
    if (it == f->events_by_phase.end() || it->second == 0) continue;
    const uint64_t n = std::min(it->second, events);
    it->second -= n;
    f->events_total -= std::min(f->events_total, n);
    events -= n;
  }
}

// `n` slices left out: each an X event while the file counts one, else a B/E pair (the file
// wrote no X).
void forget_slice_events(TraceFacts* f, uint64_t n) {
  auto x = f->events_by_phase.find("X");
  const uint64_t as_x = x == f->events_by_phase.end() ? 0 : std::min(x->second, n);
  forget_events(f, {"X"}, as_x);
  forget_events(f, {"B"}, n - as_x);
  forget_events(f, {"E"}, n - as_x);
}

// The part's first and last times, from what it kept: within the file's (events the model does
// not keep, unknown phases, count only there).
void narrow_span(Trace* p) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  const SliceTable& s = p->slices;
  for (size_t i = 0; i < s.size(); ++i) lo = std::min(lo, s.ts[i]), hi = std::max(hi, s.end(i));
  for (int64_t ts : p->flows.ts) lo = std::min(lo, ts), hi = std::max(hi, ts);
  for (int64_t ts : p->counters.ts) lo = std::min(lo, ts), hi = std::max(hi, ts);
  for (int64_t ts : p->instants.ts) lo = std::min(lo, ts), hi = std::max(hi, ts);
  if (lo > hi) return;
  p->facts.start_ns = std::max(p->facts.start_ns, lo);
  p->facts.end_ns = std::max(p->facts.start_ns, std::min(p->facts.end_ns, hi));
}

// Whether the part's slices, in file order, go back in time: the events that made them did.
bool slices_out_of_order(const SliceTable& s) {
  std::vector<uint32_t> order(s.size());
  for (uint32_t i = 0; i < s.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return s.file_offset(a) < s.file_offset(b); });
  for (size_t i = 1; i < order.size(); ++i)
    if (s.ts[order[i]] < s.ts[order[i - 1]]) return true;
  return false;
}

// The part's own count of what the importer met, where its events are known: its flows paired
// again, its slices' order, the unclosed ranges among its slices, and a kind met once at the
// offset of a slice (an X without dur, a negative dur...) is the part's if it kept that slice,
// else none of its business. Returns the kinds so counted; the others stay the file's.
std::vector<uint8_t> count_own_diagnostics(const Trace& t,
                                           const std::vector<uint64_t>& file_offsets, Trace* p) {
  std::vector<uint8_t> own(static_cast<size_t>(Diag::kCount), 0);
  Diagnostics& d = p->diagnostics;
  auto set_own = [&](Diag kind, uint64_t count, uint64_t offset, std::string_view excerpt) {
    const std::string detail = d.get(kind).detail;
    d.clear(kind);
    if (count) d.add(kind, offset, excerpt, count), d.set_detail(kind, detail);
    own[static_cast<size_t>(kind)] = 1;
  };
  if (t.diagnostics.count(Diag::kFlowWithoutEnd))
    set_own(Diag::kFlowWithoutEnd, count_unpaired_flows(p->flows), 0, {});
  // Counters, instants and flows keep no offset: a part whose slices are in order may still
  // hold them out of order, and keeps the file's count.
  if (t.diagnostics.count(Diag::kTimestampsOutOfOrder) && slices_out_of_order(p->slices))
    set_own(Diag::kTimestampsOutOfOrder, 1, 0, {});

  std::vector<uint64_t> kept = p->slices.source.offsets();
  std::sort(kept.begin(), kept.end());
  auto has = [](const std::vector<uint64_t>& v, uint64_t x) {
    return std::binary_search(v.begin(), v.end(), x);
  };
  // Unclosed async ranges (b without e) are counted without an offset: all known only when
  // every one counted has its slice's offset listed.
  std::vector<uint64_t>& unclosed = p->facts.unclosed_offsets;
  const uint64_t unclosed_count = t.diagnostics.count(Diag::kUnclosedBegin);
  const bool unclosed_known = unclosed_count == unclosed.size();
  unclosed.erase(
      std::remove_if(unclosed.begin(), unclosed.end(), [&](uint64_t o) { return !has(kept, o); }),
      unclosed.end());
  if (unclosed_count && unclosed_known)
    set_own(Diag::kUnclosedBegin, unclosed.size(), unclosed.empty() ? 0 : unclosed.front(), {});
  for (size_t i = 0; i < own.size(); ++i) {
    const auto kind = static_cast<Diag>(i);
    const DiagEntry& e = t.diagnostics.get(kind);
    if (own[i] || e.count != 1 || kind == Diag::kPartialOverlap ||
        !has(file_offsets, e.first_offset))
      continue;
    set_own(kind, has(kept, e.first_offset) ? 1 : 0, e.first_offset, e.excerpt);
  }
  return own;
}

// What the importer met and the part cannot count again is the file's: a part says so of each
// such kind it keeps (the overlaps are counted again on the part's own slices).
void mark_file_diagnostics(Diagnostics* d, const std::vector<uint8_t>& own,
                           const std::string& file) {
  for (size_t i = 0; i < static_cast<size_t>(Diag::kCount); ++i) {
    const auto kind = static_cast<Diag>(i);
    if (!d->count(kind) || own[i] || kind == Diag::kPartialOverlap) continue;
    std::string detail = d->get(kind).detail;
    d->set_detail(kind, detail + (detail.empty() ? "" : " ") + "Counted over the whole file " +
                            file + ", not this part alone.");
  }
}

// The part keeps only the strings it uses, with new ids in the file's order (so ids compare as
// before). A copy of the file's whole pool per part made a merged file of many ranks take ranks x
// names: 256 ranks of a 57 MB file with 128,000 distinct kernel names peaked at 9.2 GB.
// `to`: a column as long as the file's pool, written where used (each part costs what it uses).
void keep_used_strings(const StringPool& from, std::vector<StringId>* to_column, Trace* p) {
  std::vector<StringId> used;
  auto mark = [&used](StringId id) { used.push_back(id); };
  SliceTable& s = p->slices;
  for (const Process& pr : p->processes) mark(pr.pid_text);
  for (const Track& tr : p->tracks) mark(tr.tid_text);
  for (StringId id : s.name) mark(id);
  for (StringId id : s.cat) mark(id);
  for (const auto& cs : s.call_stacks) mark(cs.second);
  for (const auto& o : s.op_shapes)
    mark(o.second.dims), mark(o.second.types), mark(o.second.concrete);
  for (const auto& c : s.collective_args)
    mark(c.second.collective), mark(c.second.dtype), mark(c.second.process_group),
        mark(c.second.group_ranks);
  for (FlowId id : p->flows.id)
    if (id & kFlowIdText) mark(static_cast<StringId>(id & ~kFlowIdText));
  for (StringId id : p->flows.cat) mark(id);
  for (StringId id : p->counters.series) mark(id);
  for (StringId id : p->instants.name) mark(id);
  for (StringId id : p->instants.cat) mark(id);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());

  StringPool kept;
  std::vector<StringId>& to = *to_column;
  for (StringId id : used) to[id] = kept.intern(from.get(id));
  auto remap = [&to](StringId& id) { id = to[id]; };
  for (Process& pr : p->processes) remap(pr.pid_text);
  for (Track& tr : p->tracks) remap(tr.tid_text);
  for (StringId& id : s.name) remap(id);
  for (StringId& id : s.cat) remap(id);
  for (auto& cs : s.call_stacks) remap(cs.second);
  for (auto& o : s.op_shapes) remap(o.second.dims), remap(o.second.types), remap(o.second.concrete);
  for (auto& c : s.collective_args)
    remap(c.second.collective), remap(c.second.dtype), remap(c.second.process_group),
        remap(c.second.group_ranks);
  for (FlowId& id : p->flows.id)
    if (id & kFlowIdText) id = kFlowIdText | to[id & ~kFlowIdText];
  for (StringId& id : p->flows.cat) remap(id);
  for (StringId& id : p->counters.series) remap(id);
  for (StringId& id : p->instants.name) remap(id);
  for (StringId& id : p->instants.cat) remap(id);
  p->strings = std::move(kept);
}

}  // namespace

TraceSubsetter::TraceSubsetter(const Trace& t)
    : t_(t),
      had_rows_(t.tracks.size(), 0),
      process_tracks_(t.processes.size()),
      file_offsets_(t.slices.source.offsets()),
      counter_runs_(t.processes.size(), 0),
      part_id_(t.strings.size(), 0) {
  const SliceTable& s = t.slices;
  for (uint32_t i = 0; i < t.tracks.size(); ++i) process_tracks_[t.tracks[i].process].push_back(i);
  for (uint32_t i = 0; i < s.size(); ++i) ++had_rows_[s.track[i]];
  for (size_t i = 0; i < t.instants.size(); ++i) ++had_rows_[t.instants.track[i]];
  std::sort(file_offsets_.begin(), file_offsets_.end());
  // Per category, the events the model keeps no row of (C and unknown phases, a B/E pair's E):
  // the file's count less the rows of that category. Those stay in every part, as the file's;
  // the rest each part counts from its own rows.
  std::map<StringId, uint64_t> rows;
  for (StringId c : s.cat) ++rows[c];
  for (StringId c : t.flows.cat) ++rows[c];
  for (StringId c : t.instants.cat) ++rows[c];
  std::map<std::string_view, int64_t> rest;
  for (const auto& kv : t.facts.categories) rest[kv.first] = static_cast<int64_t>(kv.second);
  for (const auto& kv : rows) rest[t.str(kv.first)] -= static_cast<int64_t>(kv.second);
  for (const auto& kv : rest)
    if (kv.second != 0) category_rest_.emplace_back(std::string(kv.first), kv.second);
  // What every part holds as the file's is bounded, or a file makes ranks x distinct texts: 200
  // ranks and 2,000 events of distinct 1 KiB unknown phases and categories (a 4.3 MB file)
  // peaked at 2.8 GB and gave an 828 MB report. The categories of events without a row: the
  // kMaxSharedCategories most frequent (ties in name order). A real file has a handful.
  if (category_rest_.size() > kMaxSharedCategories) {
    std::stable_sort(category_rest_.begin(), category_rest_.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    category_rest_.resize(kMaxSharedCategories);
    std::sort(category_rest_.begin(), category_rest_.end());
  }
  facts_ = t.facts;
  facts_.categories.clear();
  // Phases outside the trace format (each of its phases is one character: at most 256 keys) are
  // no part's: the model keeps nothing of their events, whose process each part would need.
  // Each part still says they were there (the file's unknown_phase diagnostic).
  for (auto it = facts_.events_by_phase.begin(); it != facts_.events_by_phase.end();) {
    if (it->first.size() <= 1) {
      ++it;
      continue;
    }
    facts_.events_total -= std::min(facts_.events_total, it->second);
    it = facts_.events_by_phase.erase(it);
  }
  const CounterTable& c = t.counters;
  for (size_t i = 0; i < c.size(); ++i)
    if (i == 0 || c.ts[i - 1] != c.ts[i] || c.process[i - 1] != c.process[i])
      ++counter_runs_[c.process[i]];  // one C event gives a row per series, at one time
}

std::map<std::string, uint64_t> TraceSubsetter::own_categories(
    const std::unordered_map<StringId, uint64_t>& rows) const {
  std::map<std::string, int64_t> counts(category_rest_.begin(), category_rest_.end());
  for (const auto& kv : rows)
    counts[std::string(t_.str(kv.first))] += static_cast<int64_t>(kv.second);
  std::map<std::string, uint64_t> out;
  for (auto& kv : counts)  // a category none of whose events the part holds is not the part's
    if (kv.second > 0) out.emplace_hint(out.end(), kv.first, static_cast<uint64_t>(kv.second));
  return out;
}

std::unique_ptr<Trace> TraceSubsetter::cut(const SubsetLists& keep) const {
  const Trace& t = t_;
  const SliceTable& s = t.slices;
  auto out = std::make_unique<Trace>();
  Trace& p = *out;
  p.devices = t.devices;
  p.distributed = t.distributed;
  // The file's facts but its category counts: the part's are its own (a copy of the file's, the
  // cut's taken off, made each part as long as the file's list: ranks x categories).
  p.facts = facts_;
  p.diagnostics = t.diagnostics;
  p.diagnostics.clear(Diag::kPartialOverlap);
  // The part's processes, and their tracks in the file's order.
  std::unordered_map<uint32_t, uint32_t> process_index, track_index;
  uint64_t kept_metadata = 0, kept_counter_runs = 0, all_metadata = 0, all_counter_runs = 0;
  for (const Process& pr : t.processes) all_metadata += pr.metadata_events;
  for (uint64_t n : counter_runs_) all_counter_runs += n;
  std::vector<uint32_t> tracks;
  for (uint32_t i : keep.processes) {
    process_index[i] = static_cast<uint32_t>(p.processes.size());
    p.processes.push_back(t.processes[i]);
    p.processes.back().has_gpu_ops = false;
    kept_metadata += t.processes[i].metadata_events;
    kept_counter_runs += counter_runs_[i];
    tracks.insert(tracks.end(), process_tracks_[i].begin(), process_tracks_[i].end());
  }
  forget_events(&p.facts, {"M"}, all_metadata - kept_metadata);
  std::sort(tracks.begin(), tracks.end());
  // Tracks the split emptied leave; tracks that held nothing (a named idle thread) stay.
  std::unordered_map<uint32_t, uint32_t> kept_rows;
  for (uint32_t i : keep.slices) ++kept_rows[s.track[i]];
  for (uint32_t i : keep.instants) ++kept_rows[t.instants.track[i]];
  for (uint32_t i : tracks) {
    if (had_rows_[i] > 0 && kept_rows[i] == 0) continue;
    track_index[i] = static_cast<uint32_t>(p.tracks.size());
    p.tracks.push_back(t.tracks[i]);
    p.tracks.back().process = process_index.at(t.tracks[i].process);
    p.tracks.back().has_gpu_ops = false;
  }
  auto kept_track = [&track_index](TrackId track) {
    auto it = track_index.find(track);
    return it == track_index.end() ? kNone : it->second;
  };
  std::unordered_map<StringId, uint64_t> kept_cats;  // the part's rows per category
  SliceTable& o = p.slices;
  std::vector<uint32_t> kept_slices;
  kept_slices.reserve(keep.slices.size());
  for (uint32_t i : keep.slices) {
    const uint32_t track = kept_track(s.track[i]);
    if (track == kNone) continue;
    kept_slices.push_back(i);
    ++kept_cats[s.cat[i]];
    o.ts.push_back(s.ts[i]);
    o.dur.push_back(s.dur[i]);
    o.track.push_back(track);
    o.name.push_back(s.name[i]);
    o.cat.push_back(s.cat[i]);
    o.kind.push_back(s.kind[i]);
    o.correlation.push_back(s.correlation[i]);
    // The launch details the part's slices use, renumbered (not the file's whole column).
    int32_t launch = s.launch_info[i];
    if (launch >= 0) {
      o.launch_infos.push_back(s.launch_infos[static_cast<size_t>(launch)]);
      launch = static_cast<int32_t>(o.launch_infos.size() - 1);
    }
    o.launch_info.push_back(launch);
    o.source.push_back(s.file_offset(i), s.byte_len(i));
    if (is_gpu_op(s.kind[i])) {
      Track& tr = p.tracks[track];
      tr.has_gpu_ops = true;
      p.processes[tr.process].has_gpu_ops = true;
    }
  }
  forget_slice_events(&p.facts, s.size() - kept_slices.size());
  keep_sparse(s.call_stacks, kept_slices, &o.call_stacks);
  keep_sparse(s.collective_args, kept_slices, &o.collective_args);
  keep_sparse(s.op_shapes, kept_slices, &o.op_shapes);
  keep_sparse(s.sync_waits, kept_slices, &o.sync_waits);
  keep_sparse(s.copy_sizes, kept_slices, &o.copy_sizes);
  nest(&o, &p.diagnostics);
  const FlowTable& f = t.flows;
  std::map<char, uint64_t> flow_phases;  // the file's flows by phase, less the kept
  for (char ph : f.phase) ++flow_phases[ph];
  for (uint32_t i : keep.flows) {
    const uint32_t track = kept_track(f.track[i]);
    if (track == kNone) continue;
    ++kept_cats[f.cat[i]];
    --flow_phases[f.phase[i]];
    p.flows.ts.push_back(f.ts[i]);
    p.flows.track.push_back(track);
    p.flows.id.push_back(f.id[i]);
    p.flows.cat.push_back(f.cat[i]);
    p.flows.phase.push_back(f.phase[i]);
    p.flows.binds_enclosing.push_back(f.binds_enclosing[i]);
  }
  for (const auto& ph : flow_phases) {
    const char phase[2] = {ph.first, 0};
    forget_events(&p.facts, {phase}, ph.second);
  }
  const CounterTable& c = t.counters;
  forget_events(&p.facts, {"C"}, all_counter_runs - kept_counter_runs);
  for (uint32_t i : keep.counters) {
    p.counters.ts.push_back(c.ts[i]);
    p.counters.process.push_back(process_index.at(c.process[i]));
    p.counters.series.push_back(c.series[i]);
    p.counters.value.push_back(c.value[i]);
  }
  const InstantTable& in = t.instants;
  for (uint32_t i : keep.instants) {
    const uint32_t track = kept_track(in.track[i]);
    if (track == kNone) continue;
    ++kept_cats[in.cat[i]];
    p.instants.ts.push_back(in.ts[i]);
    p.instants.track.push_back(track);
    p.instants.name.push_back(in.name[i]);
    p.instants.cat.push_back(in.cat[i]);
    p.instants.scope.push_back(in.scope[i]);
    p.instants.mem_bytes.push_back(in.mem_bytes[i]);
    p.instants.mem_total_allocated.push_back(in.mem_total_allocated[i]);
    p.instants.mem_total_reserved.push_back(in.mem_total_reserved[i]);
    p.instants.mem_device.push_back(in.mem_device[i]);
  }
  forget_events(&p.facts, {"i", "I", "n", "R"}, in.size() - p.instants.size());
  p.facts.categories = own_categories(kept_cats);
  narrow_span(&p);
  keep_used_strings(t.strings, &part_id_, &p);
  mark_file_diagnostics(&p.diagnostics, count_own_diagnostics(t, file_offsets_, &p),
                        t.facts.source_name);
  return out;
}

std::unique_ptr<Trace> trace_subset(const Trace& t, const std::vector<uint8_t>& keep_process,
                                    const std::vector<uint8_t>& keep_slice,
                                    const std::vector<uint8_t>& keep_flow) {
  SubsetLists keep;
  for (uint32_t i = 0; i < t.processes.size(); ++i)
    if (keep_process[i]) keep.processes.push_back(i);
  for (uint32_t i = 0; i < t.slices.size(); ++i)
    if (keep_slice[i] && keep_process[t.tracks[t.slices.track[i]].process])
      keep.slices.push_back(i);
  for (uint32_t i = 0; i < t.flows.size(); ++i)
    if (keep_flow[i] && keep_process[t.tracks[t.flows.track[i]].process]) keep.flows.push_back(i);
  for (uint32_t i = 0; i < t.counters.size(); ++i)
    if (keep_process[t.counters.process[i]]) keep.counters.push_back(i);
  for (uint32_t i = 0; i < t.instants.size(); ++i)
    if (keep_process[t.tracks[t.instants.track[i]].process]) keep.instants.push_back(i);
  return TraceSubsetter(t).cut(keep);
}

}  // namespace ks
