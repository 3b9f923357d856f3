#include "analysis/launch_join.h"

#include <algorithm>
#include <cstdint>
#include <functional>
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
}  // namespace

LaunchJoin build_launch_join(const Trace& t) {
  const SliceTable& s = t.slices;
  LaunchJoin j;
  j.partner.assign(s.size(), -1);
  // Runtime calls by correlation id: (id, start, slice), sorted (a sorted vector: a hash map's
  // node per call cost more in WASM). An id is on one call, except where a file holds two
  // profiler sessions or another tool's events: of several calls with the op's id, the one that
  // launched it is the latest that started at or before the op (one that started after it cannot
  // have; of equal starts, the first in slice order); when every one started after it (clock
  // skew), the first in slice order. Found by binary search: a file whose calls all carry one
  // id (100 k of them) took 13 s when each op walked every call of its id.
  std::vector<std::tuple<int64_t, int64_t, uint32_t>> runtime_by_corr;
  for (uint32_t i = 0; i < s.size(); ++i) {
    SliceKind k = s.kind[i];
    if (k == SliceKind::kRuntime || k == SliceKind::kDriver) {
      j.runtime_by_ts.push_back(i);
      if (s.correlation[i] != kNoValue) runtime_by_corr.emplace_back(s.correlation[i], s.ts[i], i);
    } else if (is_gpu_op(k)) {
      j.gpu_ops_by_ts.push_back(i);
    }
  }
  sort_runs(&runtime_by_corr, std::less<std::tuple<int64_t, int64_t, uint32_t>>());
  // Per call, the first in slice order among the calls of its id (the clock-skew fallback).
  std::vector<uint32_t> first_of_id(runtime_by_corr.size());
  for (size_t a = 0, b = 0; a < runtime_by_corr.size(); a = b) {
    uint32_t first = UINT32_MAX;
    for (b = a; b < runtime_by_corr.size() &&
                std::get<0>(runtime_by_corr[b]) == std::get<0>(runtime_by_corr[a]);
         ++b)
      first = std::min(first, std::get<2>(runtime_by_corr[b]));
    std::fill(first_of_id.begin() + static_cast<std::ptrdiff_t>(a),
              first_of_id.begin() + static_cast<std::ptrdiff_t>(b), first);
  }
  for (uint32_t g : j.gpu_ops_by_ts) {
    const int64_t corr = s.correlation[g];
    if (corr == kNoValue) continue;
    auto lo = std::lower_bound(runtime_by_corr.begin(), runtime_by_corr.end(),
                               std::make_tuple(corr, INT64_MIN, uint32_t{0}));
    if (lo == runtime_by_corr.end() || std::get<0>(*lo) != corr) continue;
    // Past the calls of this id that started at or before the op.
    auto hi =
        std::upper_bound(lo, runtime_by_corr.end(), std::make_tuple(corr, s.ts[g], UINT32_MAX));
    uint32_t launcher = first_of_id[static_cast<size_t>(lo - runtime_by_corr.begin())];
    if (hi != lo) {  // the latest start at or before the op; of equal starts, the first slice
      const int64_t latest = std::get<1>(*(hi - 1));
      launcher = std::get<2>(*std::lower_bound(lo, hi, std::make_tuple(corr, latest, uint32_t{0})));
    }
    j.partner[g] = static_cast<int32_t>(launcher);
    // A launch that started several ops (a CUDA graph) points at the first, by start time.
    if (j.partner[launcher] < 0) {
      j.partner[launcher] = static_cast<int32_t>(g);
    } else {
      j.multi_op_ends.emplace_back(launcher, s.end(g));
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
