#include "analysis/cpu_op_summary.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "analysis/api_summary.h"
#include "analysis/gpu_time_by_op.h"
#include "analysis/steps.h"

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
  // Each op name's row: its own, or its family's (the first name seen stands for it).
  std::unordered_map<StringId, StringId> row_of;
  std::unordered_map<std::string, StringId> family;
  std::unordered_map<StringId, std::string> label;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (!is_op_call(t, i)) continue;
    auto known = row_of.find(s.name[i]);
    if (known == row_of.end()) {
      const std::string_view name = t.str(s.name[i]);
      int64_t n;
      std::string group;
      if (parse_profiler_step(name, &n))
        group = kProfilerStepGroup;
      else if (s.kind[i] == SliceKind::kUserAnnotation)
        group = std::string(emit_nvtx_op_name(name));
      StringId row = s.name[i];
      if (!group.empty()) {
        row = family.emplace(group, s.name[i]).first->second;
        label[row] = group;
      }
      known = row_of.emplace(s.name[i], row).first;
    }
    Acc& a = by_name[known->second];
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
    auto l = label.find(kv.first);
    if (l != label.end()) row.label = l->second;
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
