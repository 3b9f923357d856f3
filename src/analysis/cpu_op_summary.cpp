#include "analysis/cpu_op_summary.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/gpu_time_by_op.h"
#include "analysis/name_families.h"

namespace ks {

CpuOpSummary summarize_cpu_ops(const Trace& t) {
  const SliceTable& s = t.slices;
  std::vector<int64_t> children_ns(s.size(), 0);
  for (uint32_t i = 0; i < s.size(); ++i)
    if (s.parent[i] >= 0) children_ns[static_cast<size_t>(s.parent[i])] += s.dur[i];
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

}  // namespace ks
