#include "analysis/cpu_op_summary.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/cpu_op_summary_export.h"
#include "analysis/gpu_time_by_op.h"
#include "analysis/name_families.h"

namespace ks {

CpuOpSummary summarize_cpu_ops(const Trace& t, const EnclosingNvtxRanges* nvtx) {
  const SliceTable& s = t.slices;
  std::vector<int64_t> children_ns(s.size(), 0);
  for (uint32_t i = 0; i < s.size(); ++i)
    if (s.parent[i] >= 0) children_ns[static_cast<size_t>(s.parent[i])] += s.dur[i];
  // An export's CUDA calls: children of the innermost range open at the call on its thread
  // (a call nested in another call counts in its parent's time only).
  if (nvtx && nvtx->any()) {
    for (uint32_t i = 0; i < s.size(); ++i) {
      if (s.parent[i] >= 0 || (s.kind[i] != SliceKind::kRuntime && s.kind[i] != SliceKind::kDriver))
        continue;
      nvtx->walk_out_slices(i, [&](uint32_t range) {
        if (is_op_call(t, range)) children_ns[range] += s.dur[i];
        return false;  // the innermost only
      });
    }
  }
  struct Acc {
    std::vector<int64_t> durs;
    int64_t self_ns = 0, self_max = 0;
  };
  std::unordered_map<StringId, Acc> by_name;
  // Every ProfilerStep#N under one row, an export's emit_nvtx ranges under their op.
  NameFamilies families(t);
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (!is_op_call(t, i)) continue;
    Acc& a = by_name[families.row_of(s.name[i], s.kind[i] == SliceKind::kUserAnnotation)];
    a.durs.push_back(s.dur[i]);
    const int64_t self = std::max<int64_t>(0, s.dur[i] - children_ns[i]);
    a.self_ns += self;
    a.self_max = std::max(a.self_max, self);
  }
  CpuOpSummary r;
  for (auto& kv : by_name) {
    CpuOpRow row;
    row.name = kv.first;
    row.total = compute_duration_stats(kv.second.durs);
    row.self_ns = kv.second.self_ns;
    row.self_max_ns = kv.second.self_max;
    row.label = families.label_of(kv.first);
    r.count += row.total.count;
    r.self_ns += row.self_ns;
    r.rows.push_back(row);
  }
  for (CpuOpRow& row : r.rows)
    row.self_percent =
        r.self_ns > 0 ? 100.0 * static_cast<double>(row.self_ns) / static_cast<double>(r.self_ns)
                      : 0;
  std::sort(r.rows.begin(), r.rows.end(), [&t](const CpuOpRow& a, const CpuOpRow& b) {
    if (a.self_ns != b.self_ns) return a.self_ns > b.self_ns;
    return t.str(a.name) < t.str(b.name);
  });
  return r;
}

CpuOpSummary summarize_cpu_ops(const Trace& t) {
  return summarize_cpu_ops(t, nullptr);
}

}  // namespace ks
