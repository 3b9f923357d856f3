#include "analysis/launch_join.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <string_view>
#include <tuple>
#include <utility>

#include "analysis/steps.h"
#include "util/sort_runs.h"

namespace ks {

namespace {
// A CPU op that names where a GPU op came from. Kineto before 1.10 wrote ProfilerStep#N as an
// op (cat "Operator"): a step marker, not an op, and with it in the chain every step's
// `aten::item` copy had its own origin ("ProfilerStep#10 > aten::item > ...", one copy each).
bool is_origin_op(const Trace& t, int32_t slice) {
  if (t.slices.kind[static_cast<size_t>(slice)] != SliceKind::kCpuOp) return false;
  int64_t number;
  return !parse_profiler_step(t.str(t.slices.name[static_cast<size_t>(slice)]), &number);
}

// A runtime call that carries a correlation id, ordered by (id, process, start, slice).
struct LaunchCall {
  int64_t corr;
  uint32_t process;
  int64_t ts;
  uint32_t slice;
  bool operator<(const LaunchCall& o) const {
    return std::tie(corr, process, ts, slice) < std::tie(o.corr, o.process, o.ts, o.slice);
  }
};

// Where the calls of one id, and of one id in one process, end in the sorted calls; each such
// group's first call in slice order (the clock-skew fallback); and how many processes carry the
// id.
struct LaunchCallIndex {
  std::vector<uint32_t> group_end, id_end, group_first, id_processes;
  // Some id is on calls of several processes: ranks merged into one file (each rank's CUPTI
  // counts its own ids), where a kernel must join its own rank's launch.
  bool shared_ids = false;

  explicit LaunchCallIndex(const std::vector<LaunchCall>& c)
      : group_end(c.size()), id_end(c.size()), group_first(c.size()), id_processes(c.size()) {
    for (size_t a = 0, b = 0; a < c.size(); a = b) {
      size_t groups = 0;
      for (b = a; b < c.size() && c[b].corr == c[a].corr;) {
        size_t e = b;
        uint32_t first = UINT32_MAX;
        for (; e < c.size() && c[e].corr == c[b].corr && c[e].process == c[b].process; ++e)
          first = std::min(first, c[e].slice);
        std::fill(group_end.begin() + static_cast<std::ptrdiff_t>(b),
                  group_end.begin() + static_cast<std::ptrdiff_t>(e), static_cast<uint32_t>(e));
        std::fill(group_first.begin() + static_cast<std::ptrdiff_t>(b),
                  group_first.begin() + static_cast<std::ptrdiff_t>(e), first);
        ++groups;
        b = e;
      }
      std::fill(id_end.begin() + static_cast<std::ptrdiff_t>(a),
                id_end.begin() + static_cast<std::ptrdiff_t>(b), static_cast<uint32_t>(b));
      std::fill(id_processes.begin() + static_cast<std::ptrdiff_t>(a),
                id_processes.begin() + static_cast<std::ptrdiff_t>(b),
                static_cast<uint32_t>(groups));
      if (groups > 1) shared_ids = true;
    }
  }
};

// The first call with this id, or calls.size().
size_t first_call_of(const std::vector<LaunchCall>& calls, int64_t corr) {
  auto lo = std::lower_bound(calls.begin(), calls.end(), corr,
                             [](const LaunchCall& c, int64_t id) { return c.corr < id; });
  return lo != calls.end() && lo->corr == corr ? static_cast<size_t>(lo - calls.begin())
                                               : calls.size();
}

// The calls' positions ordered by (id, start, pid, position), for ids on several processes: over
// every process, the latest call at or before an op or the earliest is a binary search. (Walking
// an id's processes for each op made 8,000 processes that each count their ids from 1 take 7 s.)
std::vector<uint32_t> calls_by_start(const Trace& t, const std::vector<LaunchCall>& calls) {
  std::vector<uint32_t> by_pid(t.processes.size()), pid_rank(t.processes.size());
  std::iota(by_pid.begin(), by_pid.end(), 0u);
  std::sort(by_pid.begin(), by_pid.end(), [&t](uint32_t a, uint32_t b) {
    const std::string_view pa = t.str(t.processes[a].pid_text), pb = t.str(t.processes[b].pid_text);
    return pa != pb ? pa < pb : a < b;
  });
  for (uint32_t k = 0; k < by_pid.size(); ++k) pid_rank[by_pid[k]] = k;
  std::vector<uint32_t> order(calls.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const LaunchCall &x = calls[a], &y = calls[b];
    return std::make_tuple(x.corr, x.ts, pid_rank[x.process], a) <
           std::make_tuple(y.corr, y.ts, pid_rank[y.process], b);
  });
  return order;
}

// In one group [b, e) (one id, one process, sorted by start): the call that started latest at
// or before `ts`, of equal starts the first in slice order; e when every one started after.
size_t latest_at_or_before(const std::vector<LaunchCall>& calls, size_t b, size_t e, int64_t ts) {
  auto begin = calls.begin() + static_cast<std::ptrdiff_t>(b);
  auto end = calls.begin() + static_cast<std::ptrdiff_t>(e);
  auto hi =
      std::upper_bound(begin, end, ts, [](int64_t x, const LaunchCall& c) { return x < c.ts; });
  if (hi == begin) return e;
  const int64_t latest = (hi - 1)->ts;
  auto first =
      std::lower_bound(begin, hi, latest, [](const LaunchCall& c, int64_t x) { return c.ts < x; });
  return static_cast<size_t>(first - calls.begin());
}

// Which process launched each GPU process's ops (UINT32_MAX: none needed), for ids that several
// processes carry. Evidence from every op: each process with a call of the op's id that started
// at or before it scores the op and the square of how long it waited. Ranks run the same program,
// so another rank's launch of the same id often precedes a kernel too, sooner when that rank's
// clock runs ahead: per GPU the nearest launches would pick the rank ahead for every GPU. Each
// rank drives its own GPU, so the owners are chosen together, one process per GPU: the most ops
// explained, then the least sum of squared waits (a rank ahead by d shortens one GPU's waits
// by d and lengthens the other's by d: the squares tell, the plain sum does not), then the
// lower pids, never the file order. More GPUs than processes (one process driving several) or
// more than kMaxMatched GPUs: each GPU on its own, by the same order. An id on more than
// kMaxScoredProcesses processes is no evidence (ranks are a few to a file; thousands of
// processes that each count their ids from 1 made this quadratic), its ops are left to
// pick_launcher's fallback.
constexpr uint32_t kMaxScoredProcesses = 64;
std::vector<uint32_t> launching_processes(const Trace& t, const std::vector<uint32_t>& gpu_ops,
                                          const std::vector<LaunchCall>& calls,
                                          const LaunchCallIndex& index) {
  std::vector<uint32_t> owner(t.processes.size(), UINT32_MAX);
  if (!index.shared_ids) return owner;
  struct Score {
    int64_t ops = 0;
    double wait_sq = 0;  // us^2
  };
  std::map<std::pair<uint32_t, uint32_t>, Score> score;  // (GPU process, launching process)
  const SliceTable& s = t.slices;
  for (uint32_t g : gpu_ops) {
    if (s.correlation[g] == kNoValue) continue;
    const size_t lo = first_call_of(calls, s.correlation[g]);
    if (lo == calls.size() || index.id_processes[lo] > kMaxScoredProcesses) continue;
    const uint32_t gpu_process = t.tracks[s.track[g]].process;
    for (size_t b = lo, e; b < index.id_end[lo]; b = e) {
      e = index.group_end[b];
      const size_t at = latest_at_or_before(calls, b, e, s.ts[g]);
      if (at == e) continue;
      Score& sc = score[{gpu_process, calls[b].process}];
      ++sc.ops;
      const double wait_us = static_cast<double>(s.ts[g] - calls[at].ts) / 1e3;
      sc.wait_sq += wait_us * wait_us;
    }
  }
  auto pid = [&t](uint32_t p) { return t.str(t.processes[p].pid_text); };
  auto by_pid = [&pid](uint32_t a, uint32_t b) { return pid(a) < pid(b); };
  // Per GPU process, the processes with evidence, in pid order.
  std::map<uint32_t, std::vector<uint32_t>> candidates;
  std::vector<uint32_t> launchers;
  for (const auto& kv : score) {
    candidates[kv.first.first].push_back(kv.first.second);
    launchers.push_back(kv.first.second);
  }
  std::sort(launchers.begin(), launchers.end());
  launchers.erase(std::unique(launchers.begin(), launchers.end()), launchers.end());
  std::vector<uint32_t> gpus;
  for (auto& kv : candidates) {
    gpus.push_back(kv.first);
    std::sort(kv.second.begin(), kv.second.end(), by_pid);
  }
  std::sort(gpus.begin(), gpus.end(), by_pid);
  // Better: more ops, then a smaller sum of squares; equal ones keep the first found (pid order).
  auto better = [](int64_t ops, double sq, int64_t best_ops, double best_sq) {
    return ops > best_ops || (ops == best_ops && sq < best_sq);
  };
  constexpr size_t kMaxMatched = 8;
  if (gpus.size() > launchers.size() || gpus.size() > kMaxMatched) {
    for (uint32_t gp : gpus) {
      int64_t best_ops = -1;
      double best_sq = 0;
      for (uint32_t p : candidates[gp]) {
        const Score& sc = score[{gp, p}];
        if (better(sc.ops, sc.wait_sq, best_ops, best_sq))
          best_ops = sc.ops, best_sq = sc.wait_sq, owner[gp] = p;
      }
    }
    return owner;
  }
  // One process per GPU: a search over the assignments (at most 8 GPUs: 8! orders). A GPU's
  // best k candidates (k GPUs) hold its process in some best assignment: of any other, one of
  // them is free and better. Without this cut, 8 GPUs with 60 candidates each are 60^8 orders.
  for (uint32_t gp : gpus) {
    std::vector<uint32_t>& c = candidates[gp];
    if (c.size() <= gpus.size()) continue;
    std::stable_sort(c.begin(), c.end(), [&](uint32_t a, uint32_t b) {
      const Score &x = score[{gp, a}], &y = score[{gp, b}];
      return better(x.ops, x.wait_sq, y.ops, y.wait_sq);
    });
    c.resize(gpus.size());
    std::sort(c.begin(), c.end(), by_pid);
  }
  std::vector<uint32_t> current(gpus.size(), UINT32_MAX), best(gpus.size(), UINT32_MAX);
  std::vector<bool> used(t.processes.size(), false);
  int64_t best_ops = -1;
  double best_sq = 0;
  std::function<void(size_t, int64_t, double)> assign = [&](size_t k, int64_t ops, double sq) {
    if (k == gpus.size()) {
      if (better(ops, sq, best_ops, best_sq)) best_ops = ops, best_sq = sq, best = current;
      return;
    }
    bool placed = false;
    for (uint32_t p : candidates[gpus[k]]) {
      if (used[p]) continue;
      placed = true;
      used[p] = true;
      current[k] = p;
      const Score& sc = score[{gpus[k], p}];
      assign(k + 1, ops + sc.ops, sq + sc.wait_sq);
      used[p] = false;
    }
    if (!placed) {  // every candidate taken: this GPU goes without an owner
      current[k] = UINT32_MAX;
      assign(k + 1, ops, sq);
    }
  };
  assign(0, 0, 0);
  for (size_t k = 0; k < gpus.size(); ++k) owner[gpus[k]] = best[k];
  return owner;
}

// The call that launched GPU op g, or -1. An id is on one call, except where a file holds two
// profiler sessions, another tool's events, or several ranks. Within one process, the launcher
// is the latest call that started at or before the op (one that started after it cannot have;
// of equal starts, the first in slice order); when every one started after it (clock skew), the
// first in slice order. Of several processes, the one that launched the op's GPU process's ops
// (launching_processes); when it has no call of the id, the latest start at or before the op
// over all, else the earliest start, ties to the lower pid.
int64_t pick_launcher(const Trace& t, const std::vector<LaunchCall>& calls,
                      const LaunchCallIndex& index, const std::vector<uint32_t>& by_start,
                      const std::vector<uint32_t>& owner, uint32_t g) {
  const SliceTable& s = t.slices;
  const size_t lo = first_call_of(calls, s.correlation[g]);
  if (lo == calls.size()) return -1;
  auto in_group = [&](size_t b) {
    const size_t e = index.group_end[b];
    const size_t at = latest_at_or_before(calls, b, e, s.ts[g]);
    return at < e ? static_cast<int64_t>(calls[at].slice) : int64_t{index.group_first[b]};
  };
  const size_t end = index.id_end[lo];
  if (index.group_end[lo] == end) return in_group(lo);  // one process
  const uint32_t want = owner[t.tracks[s.track[g]].process];
  const auto id_first = calls.begin() + static_cast<std::ptrdiff_t>(lo);
  const auto id_last = calls.begin() + static_cast<std::ptrdiff_t>(end);
  const auto own = std::lower_bound(id_first, id_last, want,
                                    [](const LaunchCall& c, uint32_t p) { return c.process < p; });
  if (own != id_last && own->process == want)
    return in_group(static_cast<size_t>(own - calls.begin()));
  // Over every process (by_start orders the id's calls by start, then pid): the latest start at
  // or before the op, of equal starts the lowest pid; else the earliest start.
  const auto first = by_start.begin() + static_cast<std::ptrdiff_t>(lo);
  const auto last = by_start.begin() + static_cast<std::ptrdiff_t>(end);
  const auto after = std::upper_bound(first, last, s.ts[g],
                                      [&](int64_t x, uint32_t k) { return x < calls[k].ts; });
  if (after == first) return calls[*first].slice;
  const int64_t latest = calls[*(after - 1)].ts;
  const auto at = std::lower_bound(first, after, latest,
                                   [&](uint32_t k, int64_t x) { return calls[k].ts < x; });
  return calls[*at].slice;
}
}  // namespace

LaunchJoin build_launch_join(const Trace& t) {
  const SliceTable& s = t.slices;
  LaunchJoin j;
  j.partner.assign(s.size(), -1);
  // Runtime calls by correlation id and process: (id, process, start, slice), sorted (a sorted
  // vector: a hash map's node per call cost more in WASM). Found by binary search: a file whose
  // calls all carry one id (100 k of them) took 13 s when each op walked every call of its id.
  std::vector<LaunchCall> calls;
  for (uint32_t i = 0; i < s.size(); ++i) {
    SliceKind k = s.kind[i];
    if (k == SliceKind::kRuntime || k == SliceKind::kDriver) {
      j.runtime_by_ts.push_back(i);
      if (s.correlation[i] != kNoValue)
        calls.push_back({s.correlation[i], t.tracks[s.track[i]].process, s.ts[i], i});
    } else if (is_gpu_op(k)) {
      j.gpu_ops_by_ts.push_back(i);
    }
  }
  sort_runs(&calls, std::less<LaunchCall>());
  const LaunchCallIndex index(calls);
  const std::vector<uint32_t> owner = launching_processes(t, j.gpu_ops_by_ts, calls, index);
  const std::vector<uint32_t> by_start =
      index.shared_ids ? calls_by_start(t, calls) : std::vector<uint32_t>();
  for (uint32_t g : j.gpu_ops_by_ts) {
    const int64_t corr = s.correlation[g];
    if (corr == kNoValue) continue;
    const int64_t launcher = pick_launcher(t, calls, index, by_start, owner, g);
    if (launcher < 0) continue;
    j.partner[g] = static_cast<int32_t>(launcher);
    // A launch that started several ops (a CUDA graph) points at the first, by start time.
    if (j.partner[launcher] < 0) {
      j.partner[launcher] = static_cast<int32_t>(g);
    } else {
      j.multi_op_ends.emplace_back(static_cast<uint32_t>(launcher), s.end(g));
    }
  }
  // One entry per graph launch: the latest end of its ops, the first one's included.
  std::sort(j.multi_op_ends.begin(), j.multi_op_ends.end());
  size_t kept = 0;
  for (size_t a = 0, b = 0; a < j.multi_op_ends.size(); a = b) {
    const uint32_t launch = j.multi_op_ends[a].first;
    int64_t end = s.end(static_cast<uint32_t>(j.partner[launch]));
    for (b = a; b < j.multi_op_ends.size() && j.multi_op_ends[b].first == launch; ++b)
      end = std::max(end, j.multi_op_ends[b].second);
    j.multi_op_ends[kept++] = {launch, end};
  }
  j.multi_op_ends.resize(kept);
  // Slices are sorted per track, so these are a few sorted runs; ties broken by index (total).
  auto by_ts = [&s](uint32_t a, uint32_t b) {
    return s.ts[a] != s.ts[b] ? s.ts[a] < s.ts[b] : a < b;
  };
  sort_runs(&j.runtime_by_ts, by_ts);
  // GPU ops at an equal start: the shorter first. A stream runs its ops one after another, so
  // of two that start in the same microsecond (a 0 us memset and the next kernel, common in
  // integer-microsecond traces) the shorter ran first; the tracks' order (longer first, which
  // nests CPU ops) would make walks over a stream's ops see a negative gap and then the long
  // op's time as idle.
  auto by_start_end = [&s](uint32_t a, uint32_t b) {
    if (s.ts[a] != s.ts[b]) return s.ts[a] < s.ts[b];
    return s.dur[a] != s.dur[b] ? s.dur[a] < s.dur[b] : a < b;
  };
  sort_runs(&j.gpu_ops_by_ts, by_start_end);
  return j;
}

int64_t launched_work_end(const Trace& t, const LaunchJoin& j, uint32_t launch) {
  const int32_t op = j.partner[launch];
  if (op < 0) return INT64_MIN;
  auto it = std::lower_bound(j.multi_op_ends.begin(), j.multi_op_ends.end(),
                             std::make_pair(launch, INT64_MIN));
  if (it != j.multi_op_ends.end() && it->first == launch) return it->second;
  return t.slices.end(static_cast<uint32_t>(op));
}

std::vector<StringId> enclosing_cpu_ops(const Trace& t, uint32_t slice, size_t max_depth) {
  std::vector<StringId> chain;
  for (int32_t p = t.slices.parent[slice]; p >= 0; p = t.slices.parent[p]) {
    if (is_origin_op(t, p)) chain.push_back(t.slices.name[p]);
  }
  std::reverse(chain.begin(), chain.end());
  if (chain.size() > max_depth) chain.resize(max_depth);
  return chain;
}

std::vector<int32_t> nearest_origin_ops(const Trace& t) {
  // Slices are sorted per track by start, longer first, so a parent's index is below its
  // children's and its answer is ready.
  const SliceTable& s = t.slices;
  std::vector<int32_t> nearest(s.size(), -1);
  for (size_t i = 0; i < s.size(); ++i) {
    const int32_t p = s.parent[i];
    if (p < 0 || static_cast<size_t>(p) >= i) continue;
    nearest[i] = is_origin_op(t, p) ? p : nearest[static_cast<size_t>(p)];
  }
  return nearest;
}

const std::vector<StringId>& EnclosingCpuOps::of(uint32_t slice) {
  auto found = memo_.find(slice);
  if (found != memo_.end()) return found->second;
  // Up the chain to the first slice already known (or the top), then back down filling in.
  std::vector<uint32_t> path;
  const std::vector<StringId>* known = nullptr;
  static const std::vector<StringId> kNone;
  for (int32_t at = static_cast<int32_t>(slice); at >= 0;
       at = t_.slices.parent[static_cast<size_t>(at)]) {
    auto it = memo_.find(static_cast<uint32_t>(at));
    if (it != memo_.end()) {
      known = &it->second;
      break;
    }
    path.push_back(static_cast<uint32_t>(at));
  }
  std::vector<StringId> chain = known ? *known : kNone;
  for (size_t k = path.size(); k-- > 0;) {
    const uint32_t x = path[k];
    const int32_t p = t_.slices.parent[x];
    if (p >= 0 && chain.size() < max_depth_ && is_origin_op(t_, p))
      chain.push_back(t_.slices.name[static_cast<size_t>(p)]);
    memo_[x] = chain;
  }
  return memo_[slice];
}

}  // namespace ks
