#include "analysis/merged_ranks.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>

namespace ks {

namespace {
constexpr uint32_t kNone = UINT32_MAX;

// A runtime call that carries a correlation id, sorted by (id, process, start).
struct Call {
  int64_t corr;
  uint32_t process;
  int64_t ts;
  bool operator<(const Call& o) const {
    return std::tie(corr, process, ts) < std::tie(o.corr, o.process, o.ts);
  }
};

// A GPU op with a correlation id, sorted by (GPU process, id, start, slice).
struct Op {
  uint32_t gpu_process;
  int64_t corr;
  int64_t ts;
  uint32_t slice;
  bool operator<(const Op& o) const {
    return std::tie(gpu_process, corr, ts, slice) < std::tie(o.gpu_process, o.corr, o.ts, o.slice);
  }
};

// The ops [a, b) of one GPU process and one id, launched by one of `procs`, whose calls of the
// id are calls[lo, hi): who launched each. Each rank launches an id once (its CUPTI counts its
// own), so with no more ops than processes each op goes to a process of its own, the choice that
// explains the most ops (a call at or before the op) with the least sum of squared waits: a
// rank whose clock runs ahead by d is nearer to the other rank's kernel by d and farther from
// its own by d, which the plain nearest launch gets wrong and the squares do not. More ops than
// processes (a CUDA graph's kernels share their launch's id): each op to the latest call.
void assign_group(const std::vector<Op>& ops, size_t a, size_t b, const std::vector<Call>& calls,
                  size_t lo, size_t hi, const std::vector<uint32_t>& procs,
                  std::vector<uint32_t>* owner) {
  const size_t n = b - a, m = procs.size();
  // wait[i][k]: op a+i's wait since process k's latest call of the id at or before it; -1: none.
  std::vector<std::vector<double>> wait(n, std::vector<double>(m, -1));
  for (size_t i = 0; i < n; ++i) {
    for (size_t c = lo; c < hi; ++c) {
      if (calls[c].ts > ops[a + i].ts) continue;
      const size_t k = static_cast<size_t>(
          std::lower_bound(procs.begin(), procs.end(), calls[c].process) - procs.begin());
      wait[i][k] = static_cast<double>(ops[a + i].ts - calls[c].ts) / 1e3;  // calls sorted by ts
    }
  }
  constexpr size_t kMaxSearched = 8;
  if (n > m || m > kMaxSearched) {
    for (size_t i = 0; i < n; ++i) {
      size_t best = m;
      for (size_t k = 0; k < m; ++k)
        if (wait[i][k] >= 0 && (best == m || wait[i][k] < wait[i][best])) best = k;
      if (best < m) (*owner)[ops[a + i].slice] = procs[best];
    }
    return;
  }
  // Over the ops in order and the set of processes taken: the most ops explained, then the least
  // sum of squares (at most 8 ops x 256 sets).
  struct Cost {
    int64_t unexplained = INT64_MAX;
    double sq = 0;
    bool operator<(const Cost& o) const {
      return unexplained != o.unexplained ? unexplained < o.unexplained : sq < o.sq;
    }
  };
  const size_t sets = size_t{1} << m;
  std::vector<std::vector<Cost>> best(n + 1, std::vector<Cost>(sets));
  std::vector<std::vector<size_t>> choice(n + 1, std::vector<size_t>(sets, m));
  best[n].assign(sets, Cost{0, 0});
  for (size_t i = n; i-- > 0;) {
    for (size_t used = 0; used < sets; ++used) {
      Cost c = best[i + 1][used];
      if (c.unexplained != INT64_MAX) ++c.unexplained;  // op i explained by none
      best[i][used] = c;
      for (size_t k = 0; k < m; ++k) {
        if ((used >> k & 1) || wait[i][k] < 0) continue;
        Cost with = best[i + 1][used | size_t{1} << k];
        if (with.unexplained == INT64_MAX) continue;
        with.sq += wait[i][k] * wait[i][k];
        if (with < best[i][used]) best[i][used] = with, choice[i][used] = k;
      }
    }
  }
  size_t used = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t k = choice[i][used];
    if (k == m) continue;
    (*owner)[ops[a + i].slice] = procs[k];
    used |= size_t{1} << k;
  }
}

// The process that launched each GPU op (kNone: unknown), by its correlation id's calls.
std::vector<uint32_t> op_launchers(const Trace& t) {
  const SliceTable& s = t.slices;
  std::vector<Call> calls;
  std::vector<Op> ops;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.correlation[i] == kNoValue) continue;
    if (s.kind[i] == SliceKind::kRuntime || s.kind[i] == SliceKind::kDriver)
      calls.push_back({s.correlation[i], t.tracks[s.track[i]].process, s.ts[i]});
    else if (is_gpu_op(s.kind[i]))
      ops.push_back({t.tracks[s.track[i]].process, s.correlation[i], s.ts[i], i});
  }
  std::sort(calls.begin(), calls.end());
  std::sort(ops.begin(), ops.end());
  std::vector<uint32_t> owner(s.size(), kNone);
  std::vector<uint32_t> procs;
  for (size_t a = 0, b = 0; a < ops.size(); a = b) {
    for (b = a;
         b < ops.size() && ops[b].gpu_process == ops[a].gpu_process && ops[b].corr == ops[a].corr;
         ++b) {
    }
    const int64_t corr = ops[a].corr;
    const size_t lo = static_cast<size_t>(
        std::lower_bound(calls.begin(), calls.end(), Call{corr, 0, INT64_MIN}) - calls.begin());
    size_t hi = lo;
    procs.clear();
    for (; hi < calls.size() && calls[hi].corr == corr; ++hi)
      if (procs.empty() || procs.back() != calls[hi].process) procs.push_back(calls[hi].process);
    if (procs.size() == 1) {
      for (size_t i = a; i < b; ++i) owner[ops[i].slice] = procs[0];
    } else if (procs.size() > 1) {
      assign_group(ops, a, b, calls, lo, hi, procs, &owner);
    }
  }
  return owner;
}

// A GPU op on a shared GPU process and the process that launched it.
struct OwnedOp {
  TrackId track;
  int64_t ts;
  int64_t corr;
  uint32_t owner;
  bool operator<(const OwnedOp& o) const {
    return std::tie(track, ts, corr, owner) < std::tie(o.track, o.ts, o.corr, o.owner);
  }
};

// Per slice (depth and parent), as the builder computes them: the slices are in track order,
// each track's by start, longer first.
void nest(SliceTable* s) {
  s->depth.assign(s->size(), 0);
  s->parent.assign(s->size(), -1);
  std::vector<uint32_t> stack;
  TrackId current = kNone;
  for (size_t i = 0; i < s->size(); ++i) {
    if (s->track[i] != current) stack.clear(), current = s->track[i];
    while (!stack.empty() && s->end(stack.back()) <= s->ts[i]) stack.pop_back();
    if (!stack.empty() && s->end(i) <= s->end(stack.back()))
      s->parent[i] = static_cast<int32_t>(stack.back());
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

// One rank's part of the trace: the slices, flows and instants `keep_slice`/`keep_track` keep.
std::unique_ptr<Trace> part_of(const Trace& t, const std::vector<uint8_t>& keep_process,
                               const std::vector<uint8_t>& keep_slice,
                               const std::vector<uint8_t>& keep_flow) {
  const SliceTable& s = t.slices;
  auto out = std::make_unique<Trace>();
  Trace& p = *out;
  p.strings = t.strings;
  p.devices = t.devices;
  p.distributed = t.distributed;
  p.facts = t.facts;
  p.diagnostics = t.diagnostics;
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
  for (size_t i = 0; i < t.processes.size(); ++i) {
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
    o.bytes.push_back(s.bytes[i]);
    o.launch_info.push_back(s.launch_info[i]);
    o.file_offset.push_back(s.file_offset[i]);
    o.byte_len.push_back(s.byte_len[i]);
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
  nest(&o);
  const FlowTable& f = t.flows;
  for (size_t i = 0; i < f.size(); ++i) {
    if (!keep_flow[i] || track_index[f.track[i]] == kNone) {
      forget_category(&p.facts, t.str(f.cat[i]));
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
    if (process_index[c.process[i]] == kNone) continue;
    p.counters.ts.push_back(c.ts[i]);
    p.counters.process.push_back(process_index[c.process[i]]);
    p.counters.series.push_back(c.series[i]);
    p.counters.value.push_back(c.value[i]);
  }
  const InstantTable& in = t.instants;
  for (size_t i = 0; i < in.size(); ++i) {
    if (track_index[in.track[i]] == kNone) {
      forget_category(&p.facts, t.str(in.cat[i]));
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
  return out;
}
}  // namespace

std::vector<std::unique_ptr<Trace>> split_merged_ranks(const Trace& t) {
  std::vector<std::unique_ptr<Trace>> parts;
  const SliceTable& s = t.slices;
  const std::vector<uint32_t> launcher = op_launchers(t);
  // Per GPU process, how many of its ops each process launched.
  std::map<uint32_t, std::map<uint32_t, int64_t>> launched;
  for (uint32_t i = 0; i < s.size(); ++i)
    if (launcher[i] != kNone) ++launched[t.tracks[s.track[i]].process][launcher[i]];
  // A process that launched at least a tenth of a GPU process's ops (as many as its main
  // launcher, give or take the kernels of the first step) drives it; fewer are stray calls.
  constexpr int64_t kDriverShare = 10;
  std::vector<uint8_t> shared(t.processes.size(), 0), is_rank(t.processes.size(), 0);
  std::vector<uint32_t> main_launcher(t.processes.size(), kNone);
  bool any_shared = false;
  for (const auto& g : launched) {
    int64_t most = 0;
    for (const auto& kv : g.second)
      if (kv.second > most) most = kv.second, main_launcher[g.first] = kv.first;
    int64_t drivers = 0;
    for (const auto& kv : g.second) {
      if (kv.second * kDriverShare < most) continue;
      ++drivers;
      is_rank[kv.first] = 1;
    }
    if (drivers > 1) shared[g.first] = 1, any_shared = true;
  }
  if (!any_shared) return parts;
  std::vector<uint32_t> ranks;
  for (uint32_t p = 0; p < t.processes.size(); ++p)
    if (is_rank[p]) ranks.push_back(p);
  auto pid = [&t](uint32_t p) { return t.str(t.processes[p].pid_text); };
  std::sort(ranks.begin(), ranks.end(), [&pid](uint32_t a, uint32_t b) {
    return pid(a).size() != pid(b).size() ? pid(a).size() < pid(b).size() : pid(a) < pid(b);
  });
  // Per track of a shared GPU process, each rank's op starts (sorted: a track's slices are).
  std::map<std::pair<TrackId, uint32_t>, std::vector<int64_t>> starts;
  for (uint32_t i = 0; i < s.size(); ++i)
    if (launcher[i] != kNone && shared[t.tracks[s.track[i]].process])
      starts[{s.track[i], launcher[i]}].push_back(s.ts[i]);
  // The same ops with their ids, for the flows that end at them.
  std::vector<OwnedOp> owned;
  for (uint32_t i = 0; i < s.size(); ++i)
    if (launcher[i] != kNone && shared[t.tracks[s.track[i]].process])
      owned.push_back({s.track[i], s.ts[i], s.correlation[i], launcher[i]});
  std::sort(owned.begin(), owned.end());
  auto has_op_in = [&starts](TrackId track, uint32_t rank, int64_t b, int64_t e) {
    auto it = starts.find({track, rank});
    if (it == starts.end()) return false;
    auto at = std::lower_bound(it->second.begin(), it->second.end(), b);
    return at != it->second.end() && *at <= e;
  };
  for (size_t r = 0; r < ranks.size(); ++r) {
    const uint32_t me = ranks[r];
    std::vector<uint8_t> keep_process(t.processes.size(), 0);
    for (uint32_t p = 0; p < t.processes.size(); ++p) {
      if (is_rank[p]) {
        keep_process[p] = p == me;
      } else if (shared[p]) {
        keep_process[p] = 1;
      } else {
        // A GPU process another rank drove is that rank's; a process no rank drove is anyone's.
        const uint32_t driver = main_launcher[p];
        keep_process[p] = driver == kNone || driver == me || !is_rank[driver];
      }
    }
    std::vector<uint8_t> keep_slice(s.size(), 0);
    for (uint32_t i = 0; i < s.size(); ++i) {
      const TrackId track = s.track[i];
      const uint32_t proc = t.tracks[track].process;
      if (!keep_process[proc]) continue;
      if (!shared[proc] || !is_gpu_side(s.kind[i])) {
        keep_slice[i] = 1;
      } else if (launcher[i] != kNone && is_rank[launcher[i]]) {
        keep_slice[i] = launcher[i] == me;
      } else {
        // An annotation or sync lane on the shared GPU: the rank whose ops it holds; none: every.
        bool any = false, mine = false;
        for (uint32_t other : ranks) {
          const bool holds = has_op_in(track, other, s.ts[i], s.end(i));
          any = any || holds;
          if (other == me) mine = holds;
        }
        keep_slice[i] = mine || !any;
      }
    }
    // A flow's end on a shared GPU track: this rank's when it ends at one of its ops, with the
    // op's id (ac2g flows carry the correlation id; the ids collide across ranks, the starts
    // rarely do, both together not).
    std::vector<uint8_t> keep_flow(t.flows.size(), 1);
    for (size_t i = 0; i < t.flows.size(); ++i) {
      const TrackId track = t.flows.track[i];
      if (!shared[t.tracks[track].process]) continue;
      const OwnedOp key{track, t.flows.ts[i], static_cast<int64_t>(t.flows.id[i]), 0};
      auto at = std::lower_bound(owned.begin(), owned.end(), key);
      bool mine = false;
      for (; at != owned.end() && at->track == track && at->ts == key.ts && at->corr == key.corr;
           ++at)
        mine = mine || at->owner == me;
      keep_flow[i] = mine;
    }
    std::unique_ptr<Trace> part = part_of(t, keep_process, keep_slice, keep_flow);
    part->facts.source_name = t.facts.source_name + " pid " + std::string(pid(me));
    DistributedInfo& d = part->distributed;
    d.present = true;
    d.from_environment = true;  // not the file's distributedInfo: a place in the file
    d.rank = static_cast<int64_t>(r);
    d.world_size = static_cast<int64_t>(ranks.size());
    parts.push_back(std::move(part));
  }
  return parts;
}

}  // namespace ks
