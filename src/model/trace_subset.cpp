#include "model/trace_subset.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
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

template <typename T>
void keep_sparse(const std::vector<std::pair<uint32_t, T>>& from,
                 const std::vector<uint32_t>& new_index, std::vector<std::pair<uint32_t, T>>* to) {
  for (const auto& e : from)
    if (new_index[e.first] != kNone) to->emplace_back(new_index[e.first], e.second);
}

void forget_category(TraceFacts* f, std::string_view cat) {
  auto it = f->categories.find(cat.empty() ? "(none)" : std::string(cat));
  if (it != f->categories.end() && it->second > 0) --it->second;
}

// One event the cut left out, of the first of `phases` the file counted (a slice is an X event,
// or a B/E pair where the file wrote no X): the part's event counts are its own.
void forget_event(TraceFacts* f, std::initializer_list<const char*> phases, uint64_t events = 1) {
  for (const char* ph : phases) {
    auto it = f->events_by_phase.find(ph);
    if (it == f->events_by_phase.end() || it->second == 0) continue;
    const uint64_t n = std::min(it->second, events);
    it->second -= n;
    f->events_total -= std::min(f->events_total, n);
    return;
  }
}

void forget_slice_event(TraceFacts* f) {
  if (f->events_by_phase.count("X") && f->events_by_phase.at("X") > 0)
    return forget_event(f, {"X"});
  forget_event(f, {"B"});
  forget_event(f, {"E"});
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
std::vector<uint8_t> count_own_diagnostics(const Trace& t, Trace* p) {
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

  std::vector<uint64_t> file_offsets = t.slices.source.offsets(), kept = p->slices.source.offsets();
  std::sort(file_offsets.begin(), file_offsets.end());
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
void keep_used_strings(const StringPool& from, Trace* p) {
  std::vector<uint8_t> used(from.size(), 0);
  auto mark = [&used](StringId id) { used[id] = 1; };
  SliceTable& s = p->slices;
  for (const Process& pr : p->processes) mark(pr.pid_text);
  for (const Track& tr : p->tracks) mark(tr.tid_text);
  for (StringId id : s.name) mark(id);
  for (StringId id : s.cat) mark(id);
  for (const auto& cs : s.call_stacks) mark(cs.second);
  for (const auto& o : s.op_shapes)
    mark(o.second.dims), mark(o.second.types), mark(o.second.concrete);
  for (const auto& c : s.collective_args)
    mark(c.second.collective), mark(c.second.dtype), mark(c.second.process_group);
  for (FlowId id : p->flows.id)
    if (id & kFlowIdText) mark(static_cast<StringId>(id & ~kFlowIdText));
  for (StringId id : p->flows.cat) mark(id);
  for (StringId id : p->counters.series) mark(id);
  for (StringId id : p->instants.name) mark(id);
  for (StringId id : p->instants.cat) mark(id);

  StringPool kept;
  std::vector<StringId> to(from.size(), 0);
  for (StringId id = 0; id < from.size(); ++id)
    if (used[id]) to[id] = kept.intern(from.get(id));
  auto remap = [&to](StringId& id) { id = to[id]; };
  for (Process& pr : p->processes) remap(pr.pid_text);
  for (Track& tr : p->tracks) remap(tr.tid_text);
  for (StringId& id : s.name) remap(id);
  for (StringId& id : s.cat) remap(id);
  for (auto& cs : s.call_stacks) remap(cs.second);
  for (auto& o : s.op_shapes) remap(o.second.dims), remap(o.second.types), remap(o.second.concrete);
  for (auto& c : s.collective_args)
    remap(c.second.collective), remap(c.second.dtype), remap(c.second.process_group);
  for (FlowId& id : p->flows.id)
    if (id & kFlowIdText) id = kFlowIdText | to[id & ~kFlowIdText];
  for (StringId& id : p->flows.cat) remap(id);
  for (StringId& id : p->counters.series) remap(id);
  for (StringId& id : p->instants.name) remap(id);
  for (StringId& id : p->instants.cat) remap(id);
  p->strings = std::move(kept);
}

}  // namespace

std::unique_ptr<Trace> trace_subset(const Trace& t, const std::vector<uint8_t>& keep_process,
                                    const std::vector<uint8_t>& keep_slice,
                                    const std::vector<uint8_t>& keep_flow) {
  const SliceTable& s = t.slices;
  auto out = std::make_unique<Trace>();
  Trace& p = *out;
  p.devices = t.devices;
  p.distributed = t.distributed;
  p.facts = t.facts;
  p.diagnostics = t.diagnostics;
  p.diagnostics.clear(Diag::kPartialOverlap);
  // Tracks the split emptied leave; tracks that held nothing (a named idle thread) stay.
  std::vector<uint32_t> kept_rows(t.tracks.size(), 0), had_rows(t.tracks.size(), 0);
  for (uint32_t i = 0; i < s.size(); ++i) {
    ++had_rows[s.track[i]];
    if (keep_slice[i]) ++kept_rows[s.track[i]];
  }
  for (size_t i = 0; i < t.instants.size(); ++i) {
    ++had_rows[t.instants.track[i]];
    if (keep_process[t.tracks[t.instants.track[i]].process]) ++kept_rows[t.instants.track[i]];
  }
  std::vector<uint32_t> process_index(t.processes.size(), kNone),
      track_index(t.tracks.size(), kNone);
  for (uint32_t i = 0; i < t.processes.size(); ++i) {
    if (!keep_process[i]) forget_event(&p.facts, {"M"}, t.processes[i].metadata_events);
    if (!keep_process[i]) continue;
    process_index[i] = static_cast<uint32_t>(p.processes.size());
    p.processes.push_back(t.processes[i]);
    p.processes.back().has_gpu_ops = false;
  }
  for (size_t i = 0; i < t.tracks.size(); ++i) {
    const uint32_t proc = process_index[t.tracks[i].process];
    if (proc == kNone || (had_rows[i] > 0 && kept_rows[i] == 0)) continue;
    track_index[i] = static_cast<uint32_t>(p.tracks.size());
    p.tracks.push_back(t.tracks[i]);
    p.tracks.back().process = proc;
    p.tracks.back().has_gpu_ops = false;
  }
  SliceTable& o = p.slices;
  std::vector<uint32_t> new_index(s.size(), kNone);
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (!keep_slice[i] || track_index[s.track[i]] == kNone) {
      forget_category(&p.facts, t.str(s.cat[i]));
      forget_slice_event(&p.facts);
      continue;
    }
    new_index[i] = static_cast<uint32_t>(o.size());
    o.ts.push_back(s.ts[i]);
    o.dur.push_back(s.dur[i]);
    o.track.push_back(track_index[s.track[i]]);
    o.name.push_back(s.name[i]);
    o.cat.push_back(s.cat[i]);
    o.kind.push_back(s.kind[i]);
    o.correlation.push_back(s.correlation[i]);
    o.launch_info.push_back(s.launch_info[i]);
    o.source.push_back(s.file_offset(i), s.byte_len(i));
    if (is_gpu_op(s.kind[i])) {
      Track& tr = p.tracks[o.track.back()];
      tr.has_gpu_ops = true;
      p.processes[tr.process].has_gpu_ops = true;
    }
  }
  o.launch_infos = s.launch_infos;
  keep_sparse(s.call_stacks, new_index, &o.call_stacks);
  keep_sparse(s.collective_args, new_index, &o.collective_args);
  keep_sparse(s.op_shapes, new_index, &o.op_shapes);
  keep_sparse(s.sync_waits, new_index, &o.sync_waits);
  keep_sparse(s.copy_sizes, new_index, &o.copy_sizes);
  nest(&o, &p.diagnostics);
  const FlowTable& f = t.flows;
  for (size_t i = 0; i < f.size(); ++i) {
    if (!keep_flow[i] || track_index[f.track[i]] == kNone) {
      forget_category(&p.facts, t.str(f.cat[i]));
      const char phase[2] = {f.phase[i], 0};
      forget_event(&p.facts, {phase});
      continue;
    }
    p.flows.ts.push_back(f.ts[i]);
    p.flows.track.push_back(track_index[f.track[i]]);
    p.flows.id.push_back(f.id[i]);
    p.flows.cat.push_back(f.cat[i]);
    p.flows.phase.push_back(f.phase[i]);
    p.flows.binds_enclosing.push_back(f.binds_enclosing[i]);
  }
  const CounterTable& c = t.counters;
  for (size_t i = 0; i < c.size(); ++i) {
    if (process_index[c.process[i]] == kNone) {
      // One C event gives a row per series, at one time: one event per run of rows.
      if (i == 0 || c.ts[i - 1] != c.ts[i] || c.process[i - 1] != c.process[i])
        forget_event(&p.facts, {"C"});
      continue;
    }
    p.counters.ts.push_back(c.ts[i]);
    p.counters.process.push_back(process_index[c.process[i]]);
    p.counters.series.push_back(c.series[i]);
    p.counters.value.push_back(c.value[i]);
  }
  const InstantTable& in = t.instants;
  for (size_t i = 0; i < in.size(); ++i) {
    if (track_index[in.track[i]] == kNone) {
      forget_category(&p.facts, t.str(in.cat[i]));
      forget_event(&p.facts, {"i", "I", "n", "R"});
      continue;
    }
    p.instants.ts.push_back(in.ts[i]);
    p.instants.track.push_back(track_index[in.track[i]]);
    p.instants.name.push_back(in.name[i]);
    p.instants.cat.push_back(in.cat[i]);
    p.instants.scope.push_back(in.scope[i]);
    p.instants.mem_bytes.push_back(in.mem_bytes[i]);
    p.instants.mem_total_allocated.push_back(in.mem_total_allocated[i]);
    p.instants.mem_total_reserved.push_back(in.mem_total_reserved[i]);
    p.instants.mem_device.push_back(in.mem_device[i]);
  }
  narrow_span(&p);
  keep_used_strings(t.strings, &p);
  mark_file_diagnostics(&p.diagnostics, count_own_diagnostics(t, &p), t.facts.source_name);
  return out;
}

}  // namespace ks
