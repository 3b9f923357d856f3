#include "analysis/launch_join.h"

#include <algorithm>
#include <functional>
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
  // Runtime calls by correlation id: (id, slice), sorted (a sorted vector: a hash map's node per
  // call cost more in WASM). An id is on one call, except where a file holds two profiler
  // sessions or another tool's events: of several calls with the op's id, the one that launched
  // it is the latest that started at or before the op (one that started after it cannot have);
  // when every one started after it (clock skew), the first in slice order.
  std::vector<std::pair<int64_t, uint32_t>> runtime_by_corr;
  for (uint32_t i = 0; i < s.size(); ++i) {
    SliceKind k = s.kind[i];
    if (k == SliceKind::kRuntime || k == SliceKind::kDriver) {
      j.runtime_by_ts.push_back(i);
      if (s.correlation[i] != kNoValue) runtime_by_corr.emplace_back(s.correlation[i], i);
    } else if (is_gpu_op(k)) {
      j.gpu_ops_by_ts.push_back(i);
    }
  }
  sort_runs(&runtime_by_corr, std::less<std::pair<int64_t, uint32_t>>());
  for (uint32_t g : j.gpu_ops_by_ts) {
    if (s.correlation[g] == kNoValue) continue;
    auto it = std::lower_bound(runtime_by_corr.begin(), runtime_by_corr.end(),
                               std::make_pair(s.correlation[g], uint32_t{0}));
    if (it == runtime_by_corr.end() || it->first != s.correlation[g]) continue;
    uint32_t launcher = it->second;
    bool before = s.ts[launcher] <= s.ts[g];
    for (auto next = it + 1; next != runtime_by_corr.end() && next->first == it->first; ++next) {
      const uint32_t r = next->second;
      if (s.ts[r] <= s.ts[g] && (!before || s.ts[r] > s.ts[launcher])) launcher = r, before = true;
    }
    j.partner[g] = static_cast<int32_t>(launcher);
    // A launch that started several ops (a CUDA graph) points at the first, by start time.
    if (j.partner[launcher] < 0) j.partner[launcher] = static_cast<int32_t>(g);
  }
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
