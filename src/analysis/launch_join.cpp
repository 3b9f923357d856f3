#include "analysis/launch_join.h"

#include <algorithm>
#include <unordered_map>

namespace ks {

LaunchJoin build_launch_join(const Trace& t) {
  const SliceTable& s = t.slices;
  LaunchJoin j;
  j.partner.assign(s.size(), -1);
  std::unordered_map<int64_t, uint32_t> runtime_by_corr;
  for (uint32_t i = 0; i < s.size(); ++i) {
    SliceKind k = s.kind[i];
    if (k == SliceKind::kRuntime || k == SliceKind::kDriver) {
      j.runtime_by_ts.push_back(i);
      if (s.correlation[i] != kNoValue) runtime_by_corr.emplace(s.correlation[i], i);
    } else if (is_gpu_op(k)) {
      j.gpu_ops_by_ts.push_back(i);
    }
  }
  for (uint32_t g : j.gpu_ops_by_ts) {
    if (s.correlation[g] == kNoValue) continue;
    auto it = runtime_by_corr.find(s.correlation[g]);
    if (it == runtime_by_corr.end()) continue;
    j.partner[g] = static_cast<int32_t>(it->second);
    j.partner[it->second] = static_cast<int32_t>(g);
  }
  auto by_ts = [&s](uint32_t a, uint32_t b) {
    return s.ts[a] != s.ts[b] ? s.ts[a] < s.ts[b] : a < b;
  };
  std::sort(j.runtime_by_ts.begin(), j.runtime_by_ts.end(), by_ts);
  std::sort(j.gpu_ops_by_ts.begin(), j.gpu_ops_by_ts.end(), by_ts);
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
