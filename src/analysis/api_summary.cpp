#include "analysis/api_summary.h"

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
  StringId steps_group = StringPool::kMissing;  // the first ProfilerStep name seen stands for all
  for (uint32_t i = 0; i < s.size(); ++i) {
    if (s.kind[i] != SliceKind::kUserAnnotation) continue;
    int64_t n;
    if (parse_profiler_step(t.str(s.name[i]), &n)) {
      if (steps_group == StringPool::kMissing) steps_group = s.name[i];
      b.add(steps_group, s.dur[i]);
    } else {
      b.add(s.name[i], s.dur[i]);
    }
  }
  NamedStatsTable table = b.build(t);
  for (NamedStatsRow& row : table.rows) row.grouped = row.name == steps_group;
  return table;
}

}  // namespace ks
