#include "analysis/api_summary.h"

#include <string>
#include <unordered_map>

#include "analysis/gpu_time_by_op.h"
#include "analysis/steps.h"

namespace ks {

NamedStatsTable summarize_api_calls(const Trace& t) {
  const SliceTable& s = t.slices;
  NamedStatsBuilder b;
  for (uint32_t i = 0; i < s.size(); ++i)
    if (s.kind[i] == SliceKind::kRuntime || s.kind[i] == SliceKind::kDriver)
      b.add(s.name[i], s.dur[i]);
  return b.build(t);
}

NamedStatsTable summarize_annotations(const Trace& t) {
  const SliceTable& s = t.slices;
  NamedStatsBuilder b;
  // Each name's row: its own, or its family's (the first name seen of the family stands for
  // it): every ProfilerStep#N, and the ranges emit_nvtx pushes per op call ("aten::mm, seq = 12,
  // sizes = [...]"), a row per op rather than one per call.
  std::unordered_map<StringId, StringId> row_of;
  std::unordered_map<std::string, StringId> family;
  std::unordered_map<StringId, std::string> label;
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != SliceKind::kUserAnnotation) continue;
    auto known = row_of.find(s.name[i]);
    if (known == row_of.end()) {
      const std::string_view name = t.str(s.name[i]);
      int64_t n;
      std::string group;
      if (parse_profiler_step(name, &n))
        group = kProfilerStepGroup;
      else if (is_emit_nvtx_op_range(name))  // "aten::mm" joins its "aten::mm, seq = N" too
        group = std::string(emit_nvtx_op_name(name));
      StringId row = s.name[i];
      if (!group.empty()) {
        auto f = family.emplace(group, s.name[i]).first;
        row = f->second;
        label[row] = group;
      }
      known = row_of.emplace(s.name[i], row).first;
    }
    b.add(known->second, s.dur[i]);
  }
  NamedStatsTable table = b.build(t);
  for (NamedStatsRow& row : table.rows) {
    auto l = label.find(row.name);
    if (l != label.end()) row.label = l->second;
  }
  return table;
}

}  // namespace ks
