#include "analysis/merged_ranks.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "model/trace_subset.h"

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

// A GPU op with a correlation id, sorted by (id, start, slice).
struct Op {
  int64_t corr;
  int64_t ts;
  uint32_t slice;
  bool operator<(const Op& o) const {
    return std::tie(corr, ts, slice) < std::tie(o.corr, o.ts, o.slice);
  }
};

// The ops [a, b) of one id, on whichever GPU processes (ranks that kept GPU pids of their own
// count ids from 1 each as well: an id's ops on two GPUs are two ranks' launches), launched by
// one of `procs`, whose calls of the
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
  constexpr size_t kMaxSearched = 8;
  if (n > m || m > kMaxSearched) {
    // Each op to the latest call at or before it (the least wait; on a tie, the lowest process).
    // One sort of the id's calls, then a search per op: an id that every op and call of a file
    // shares (a converter writing one id) cost ops x calls (200,000 of each: 4 x 10^10 steps).
    std::vector<std::pair<int64_t, uint32_t>> by_time;  // (start, -process) sorted
    by_time.reserve(hi - lo);
    for (size_t c = lo; c < hi; ++c) by_time.emplace_back(calls[c].ts, ~calls[c].process);
    std::sort(by_time.begin(), by_time.end());
    for (size_t i = 0; i < n; ++i) {
      const auto at = std::upper_bound(by_time.begin(), by_time.end(),
                                       std::make_pair(ops[a + i].ts, UINT32_MAX));
      if (at != by_time.begin()) (*owner)[ops[a + i].slice] = ~std::prev(at)->second;
    }
    return;
  }
  // wait[i][k]: op a+i's wait since process k's latest call of the id at or before it; -1: none
  // (at most 8 x 8).
  std::vector<std::vector<double>> wait(n, std::vector<double>(m, -1));
  for (size_t i = 0; i < n; ++i) {
    for (size_t c = lo; c < hi; ++c) {
      if (calls[c].ts > ops[a + i].ts) continue;
      const size_t k = static_cast<size_t>(
          std::lower_bound(procs.begin(), procs.end(), calls[c].process) - procs.begin());
      wait[i][k] = static_cast<double>(ops[a + i].ts - calls[c].ts) / 1e3;  // calls sorted by ts
    }
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
      ops.push_back({s.correlation[i], s.ts[i], i});
  }
  std::sort(calls.begin(), calls.end());
  std::sort(ops.begin(), ops.end());
  std::vector<uint32_t> owner(s.size(), kNone);
  std::vector<uint32_t> procs;
  for (size_t a = 0, b = 0; a < ops.size(); a = b) {
    for (b = a; b < ops.size() && ops[b].corr == ops[a].corr; ++b) {
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

// Whether launch calls with correlation ids are on two processes or more (one pass, so that a
// file one process launched, nearly every file, skips op_launchers' sorts).
bool two_launching_processes(const Trace& t) {
  const SliceTable& s = t.slices;
  uint32_t first = kNone;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.correlation[i] == kNoValue ||
        (s.kind[i] != SliceKind::kRuntime && s.kind[i] != SliceKind::kDriver))
      continue;
    const uint32_t p = t.tracks[s.track[i]].process;
    if (first == kNone)
      first = p;
    else if (p != first)
      return true;
  }
  return false;
}

// Who launched each GPU op, which processes are the file's ranks (in pid order) and which GPU
// processes two or more of them drove; and, when there are such, each rank's op starts on the
// shared GPU tracks and the ops with their ids (for the lanes and flows each part keeps).
class Splitter {
 public:
  explicit Splitter(const Trace& t) : t_(t) {
    if (!two_launching_processes(t)) return;  // the usual file: nothing to sort
    launcher_ = op_launchers(t);
    const SliceTable& s = t.slices;
    // Per GPU process, how many of its ops each process launched.
    std::map<uint32_t, std::map<uint32_t, int64_t>> launched;
    for (uint32_t i = 0; i < s.size(); ++i)
      if (launcher_[i] != kNone) ++launched[t.tracks[s.track[i]].process][launcher_[i]];
    // A process that launched at least a tenth of a GPU process's ops (as many as its main
    // launcher, give or take the kernels of the first step) drives it; fewer are stray calls.
    constexpr int64_t kDriverShare = 10;
    shared_.assign(t.processes.size(), 0);
    is_rank_.assign(t.processes.size(), 0);
    main_launcher_.assign(t.processes.size(), kNone);
    bool any_shared = false;
    std::map<uint32_t, int64_t> driven;  // per driving process, the ops of the GPUs it drives
    for (const auto& g : launched) {
      int64_t most = 0;
      for (const auto& kv : g.second)
        if (kv.second > most) most = kv.second, main_launcher_[g.first] = kv.first;
      int64_t drivers = 0;
      for (const auto& kv : g.second) {
        if (kv.second * kDriverShare < most) continue;
        ++drivers;
        is_rank_[kv.first] = 1;
        driven[kv.first] += kv.second;
      }
      if (drivers > 1) shared_[g.first] = 1, any_shared = true;
    }
    // Ranks that kept GPU pids of their own (two nodes' traces concatenated, each rank's GPU on
    // its own pid): two processes or more, each the only driver of its GPUs, doing comparable
    // work. One process driving several GPUs is one rank (one pid launches onto them all); a
    // process that launched a tenth as much as the busiest is a helper, not a rank.
    int64_t busiest = 0;
    for (const auto& kv : driven) busiest = std::max(busiest, kv.second);
    size_t peers = 0;
    for (const auto& kv : driven) peers += kv.second * kDriverShare >= busiest;
    const bool own_gpus = !any_shared && peers > 1 && peers == driven.size();
    if (!any_shared && !own_gpus) return;
    for (uint32_t p = 0; p < t.processes.size(); ++p)
      if (is_rank_[p]) ranks_.push_back(p);
    std::sort(ranks_.begin(), ranks_.end(), [this](uint32_t a, uint32_t b) {
      return pid(a).size() != pid(b).size() ? pid(a).size() < pid(b).size() : pid(a) < pid(b);
    });
    for (uint32_t i = 0; i < s.size(); ++i) {
      if (launcher_[i] == kNone || !shared_[t.tracks[s.track[i]].process]) continue;
      starts_[{s.track[i], launcher_[i]}].push_back(s.ts[i]);  // sorted: a track's slices are
      owned_.push_back({s.track[i], s.ts[i], s.correlation[i], launcher_[i]});
      if (is_rank_[launcher_[i]]) rank_starts_[s.track[i]].push_back(s.ts[i]);  // sorted too
    }
    std::sort(owned_.begin(), owned_.end());
    bucket();
  }

  size_t ranks() const { return ranks_.size(); }
  std::string_view pid(uint32_t process) const { return t_.str(t_.processes[process].pid_text); }
  std::string_view rank_pid(size_t r) const { return pid(ranks_[r]); }

  // Rank r's part: its own processes, the GPU ops it launched, and what no rank owns.
  std::unique_ptr<Trace> part(size_t r) const {
    const Trace& t = t_;
    const SliceTable& s = t.slices;
    const uint32_t me = ranks_[r];
    const SubsetLists& own = own_[r];
    SubsetLists keep;
    keep.processes = merged(own.processes, common_.processes);
    // An annotation or sync lane on the shared GPU that holds ranks' ops: the rank whose ops it
    // holds (those that hold none are in common_).
    std::vector<uint32_t> lanes;
    for (uint32_t i : contested_)
      if (has_op_in(s.track[i], me, s.ts[i], s.end(i))) lanes.push_back(i);
    keep.slices = merged(merged(own.slices, common_.slices), lanes);
    keep.flows = merged(own.flows, common_.flows);
    keep.counters = merged(own.counters, common_.counters);
    keep.instants = merged(own.instants, common_.instants);
    std::unique_ptr<Trace> out = subsetter_->cut(keep);
    out->facts.source_name = t.facts.source_name + " pid " + std::string(pid(me));
    DistributedInfo& d = out->distributed;
    d.present = true;
    d.from_environment = true;  // not the file's distributedInfo: a place in the file
    d.rank = static_cast<int64_t>(r);
    d.world_size = static_cast<int64_t>(ranks_.size());
    return out;
  }

 private:
  static std::vector<uint32_t> merged(const std::vector<uint32_t>& a,
                                      const std::vector<uint32_t>& b) {
    std::vector<uint32_t> out(a.size() + b.size());
    std::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin());
    return out;
  }

  // Each process, slice, flow, counter row and instant once: to one rank's lists (own_), to every
  // part's (common_), or, a lane on a shared GPU among ranks' ops, to contested_ (the ranks whose
  // ops it holds). Each part then costs what it keeps: a part that scanned the whole file made
  // 256 ranks of one file 256 scans of it (~10 s).
  void bucket() {
    const Trace& t = t_;
    const SliceTable& s = t.slices;
    constexpr uint32_t kAll = kNone - 1;
    std::vector<uint32_t> rank_of(t.processes.size(), kNone);
    for (uint32_t r = 0; r < ranks_.size(); ++r) rank_of[ranks_[r]] = r;
    // Per process, the part that keeps it: a rank's own, a GPU process one rank drove (that
    // rank's), a shared GPU process or one no rank drove (every part's).
    std::vector<uint32_t> part_of(t.processes.size(), kAll);
    for (uint32_t p = 0; p < t.processes.size(); ++p) {
      if (is_rank_[p]) {
        part_of[p] = rank_of[p];
      } else if (!shared_[p]) {
        const uint32_t driver = main_launcher_[p];
        if (driver != kNone && is_rank_[driver]) part_of[p] = rank_of[driver];
      }
    }
    own_.resize(ranks_.size());
    auto lists_of = [&](uint32_t part) -> SubsetLists& {
      return part == kAll ? common_ : own_[part];
    };
    for (uint32_t p = 0; p < t.processes.size(); ++p) lists_of(part_of[p]).processes.push_back(p);
    for (uint32_t i = 0; i < s.size(); ++i) {
      const TrackId track = s.track[i];
      const uint32_t proc = t.tracks[track].process;
      if (!shared_[proc] || !is_gpu_side(s.kind[i])) {
        lists_of(part_of[proc]).slices.push_back(i);
      } else if (launcher_[i] != kNone && is_rank_[launcher_[i]]) {
        own_[rank_of[launcher_[i]]].slices.push_back(i);
      } else if (!has_start_in(rank_starts_, track, s.ts[i], s.end(i))) {
        common_.slices.push_back(i);  // among no rank's ops: every part's
      } else {
        contested_.push_back(i);
      }
    }
    // A flow's end on a shared GPU track: the rank's that launched an op starting there with the
    // flow's id (ac2g flows carry the correlation id; the ids collide across ranks, the starts
    // rarely do, both together not).
    for (uint32_t i = 0; i < t.flows.size(); ++i) {
      const TrackId track = t.flows.track[i];
      const uint32_t proc = t.tracks[track].process;
      if (!shared_[proc]) {
        lists_of(part_of[proc]).flows.push_back(i);
        continue;
      }
      const OwnedOp key{track, t.flows.ts[i], static_cast<int64_t>(t.flows.id[i]), 0};
      uint32_t last = kNone;  // owned_ is sorted by owner within one (track, ts, id)
      for (auto at = std::lower_bound(owned_.begin(), owned_.end(), key);
           at != owned_.end() && at->track == track && at->ts == key.ts && at->corr == key.corr;
           ++at) {
        if (at->owner == last || rank_of[at->owner] == kNone) continue;
        last = at->owner;
        own_[rank_of[at->owner]].flows.push_back(i);
      }
    }
    for (uint32_t i = 0; i < t.counters.size(); ++i)
      lists_of(part_of[t.counters.process[i]]).counters.push_back(i);
    for (uint32_t i = 0; i < t.instants.size(); ++i)
      lists_of(part_of[t.tracks[t.instants.track[i]].process]).instants.push_back(i);
    subsetter_ = std::make_unique<TraceSubsetter>(t);
  }

  bool has_op_in(TrackId track, uint32_t rank, int64_t b, int64_t e) const {
    return has_start_in(starts_, {track, rank}, b, e);
  }
  // Whether the sorted starts under `key` hold one in [b, e].
  template <typename Map>
  static bool has_start_in(const Map& starts, const typename Map::key_type& key, int64_t b,
                           int64_t e) {
    auto it = starts.find(key);
    if (it == starts.end()) return false;
    auto at = std::lower_bound(it->second.begin(), it->second.end(), b);
    return at != it->second.end() && *at <= e;
  }

  const Trace& t_;
  std::vector<uint32_t> launcher_, main_launcher_, ranks_;
  std::vector<uint8_t> shared_, is_rank_;
  std::map<std::pair<TrackId, uint32_t>, std::vector<int64_t>> starts_;
  std::map<TrackId, std::vector<int64_t>> rank_starts_;  // per shared track, all ranks' ops
  std::vector<OwnedOp> owned_;
  std::vector<SubsetLists> own_;  // per rank
  SubsetLists common_;
  std::vector<uint32_t> contested_;
  std::unique_ptr<TraceSubsetter> subsetter_;
};

}  // namespace

std::vector<std::unique_ptr<Trace>> split_merged_ranks(const Trace& t) {
  const Splitter split(t);
  std::vector<std::unique_ptr<Trace>> parts;
  for (size_t r = 0; r < split.ranks(); ++r) parts.push_back(split.part(r));
  return parts;
}

std::vector<std::string> merged_rank_pids(const Trace& t) {
  const Splitter split(t);
  std::vector<std::string> pids;
  for (size_t r = 0; r < split.ranks(); ++r) pids.emplace_back(split.rank_pid(r));
  return pids;
}

std::unique_ptr<Trace> merged_rank_part(const Trace& t, size_t rank) {
  const Splitter split(t);
  return rank < split.ranks() ? split.part(rank) : nullptr;
}

}  // namespace ks
