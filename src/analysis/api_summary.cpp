#include "analysis/api_summary.h"

#include "analysis/name_families.h"

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
  // Every ProfilerStep#N under one row, emit_nvtx's ranges under their op (a row per op, not
  // one per call).
  NameFamilies families(t);
  for (uint32_t i = 0; i < s.size(); ++i)
    if (s.kind[i] == SliceKind::kUserAnnotation) b.add(families.row_of(s.name[i], true), s.dur[i]);
  NamedStatsTable table = b.build(t);
  for (NamedStatsRow& row : table.rows) row.label = families.label_of(row.name);
  return table;
}

}  // namespace ks
