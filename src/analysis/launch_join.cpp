#include "analysis/launch_join.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "util/sort_runs.h"

namespace ks {

LaunchJoin build_launch_join(const Trace& t) {
  const SliceTable& s = t.slices;
  LaunchJoin j;
  j.partner.assign(s.size(), -1);
  // Runtime calls by correlation id: (id, slice), sorted; of several calls with one id the first
  // in slice order is the one (a sorted vector: a hash map's node per call cost more in WASM).
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
    j.partner[g] = static_cast<int32_t>(it->second);
    j.partner[it->second] = static_cast<int32_t>(g);
  }
  // Slices are sorted per track, so these are a few sorted runs; ties broken by index (total).
  auto by_ts = [&s](uint32_t a, uint32_t b) {
    return s.ts[a] != s.ts[b] ? s.ts[a] < s.ts[b] : a < b;
  };
  sort_runs(&j.runtime_by_ts, by_ts);
  sort_runs(&j.gpu_ops_by_ts, by_ts);
  return j;
}

std::vector<StringId> enclosing_cpu_ops(const Trace& t, uint32_t slice, size_t max_depth) {
  std::vector<StringId> chain;
  for (int32_t p = t.slices.parent[slice]; p >= 0; p = t.slices.parent[p]) {
    if (t.slices.kind[p] == SliceKind::kCpuOp) chain.push_back(t.slices.name[p]);
  }
  std::reverse(chain.begin(), chain.end());
  if (chain.size() > max_depth) chain.resize(max_depth);
  return chain;
}

}  // namespace ks
