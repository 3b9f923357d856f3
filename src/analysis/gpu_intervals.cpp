#include "analysis/gpu_intervals.h"

#include "analysis/kernel_class.h"
#include "analysis/name_cache.h"

namespace ks {

GpuIntervals collect_gpu_intervals(const Trace& t, const LaunchJoin& join,
                                   const std::vector<bool>* included) {
  const SliceTable& s = t.slices;
  GpuIntervals g;
  std::vector<Interval> all, comp, comm, mem;
  all.reserve(join.gpu_ops_by_ts.size());
  // HTA's type depends on the name (and memcpy/memset kinds, which are named Memcpy/Memset).
  auto category = make_name_cache(
      t, [](std::string_view n) { return static_cast<int>(hta_category(SliceKind::kKernel, n)); });
  for (uint32_t i : join.gpu_ops_by_ts) {
    if (!op_counted(included, i)) continue;
    ++g.ops;
    Interval iv{s.ts[i], s.end(i)};
    all.push_back(iv);
    const HtaCategory c = s.kind[i] == SliceKind::kKernel
                              ? static_cast<HtaCategory>(category(s.name[i]))
                              : hta_category(s.kind[i], std::string_view());
    switch (c) {
      case HtaCategory::kComputation:
        comp.push_back(iv);
        break;
      case HtaCategory::kCommunication:
        comm.push_back(iv);
        break;
      case HtaCategory::kMemory:
        mem.push_back(iv);
        break;
    }
  }
  g.all = merge_intervals(std::move(all));
  g.computation = merge_intervals(std::move(comp));
  g.communication = merge_intervals(std::move(comm));
  g.memory = merge_intervals(std::move(mem));
  return g;
}

int64_t gpu_busy_within(const Trace& trace, const LaunchJoin& join,
                        const std::vector<Interval>& merged) {
  if (merged.empty()) return 0;
  const SliceTable& s = trace.slices;
  std::vector<Interval> busy;
  busy.reserve(join.gpu_ops_by_ts.size());
  for (uint32_t g : join.gpu_ops_by_ts) busy.push_back({s.ts[g], s.end(g)});
  return total_length(intersect(merged, merge_intervals(std::move(busy))));
}

}  // namespace ks
